#include "spark/queue.h"

#include <catch2/catch.hpp>
#include <string>

namespace kje::spark {
namespace {

bool Takes(QueueScheduler scheduler, const std::string& name) {
  return CheckQueueName(scheduler, name).ok();
}

TEST_CASE("queue schedulers by name", "[queue]") {
  for (QueueScheduler s : {QueueScheduler::kNone, QueueScheduler::kKueue, QueueScheduler::kYuniKorn,
                           QueueScheduler::kVolcano}) {
    CHECK(ParseQueueScheduler(QueueSchedulerName(s)) == s);
  }
  CHECK_FALSE(ParseQueueScheduler("Kueue").has_value());
  CHECK_FALSE(ParseQueueScheduler("").has_value());
  CHECK_FALSE(ParseQueueScheduler("slurm").has_value());
}

TEST_CASE("Kueue queue names: a LocalQueue name that fits a label value", "[queue]") {
  CHECK(Takes(QueueScheduler::kKueue, "team-a"));
  CHECK(Takes(QueueScheduler::kKueue, "team.a-1"));
  CHECK(Takes(QueueScheduler::kKueue, std::string(63, 'q')));
  CHECK_FALSE(Takes(QueueScheduler::kKueue, std::string(64, 'q')));
  CHECK_FALSE(Takes(QueueScheduler::kKueue, "Team"));
  CHECK_FALSE(Takes(QueueScheduler::kKueue, "team_a"));
  CHECK_FALSE(Takes(QueueScheduler::kKueue, "-team"));
  CHECK_FALSE(Takes(QueueScheduler::kKueue, "team."));
  CHECK_FALSE(Takes(QueueScheduler::kKueue, "a..b"));
  CHECK_FALSE(Takes(QueueScheduler::kKueue, ""));
}

TEST_CASE("YuniKorn queue names: a full path under root", "[queue]") {
  CHECK(Takes(QueueScheduler::kYuniKorn, "root.default"));
  CHECK(Takes(QueueScheduler::kYuniKorn, "root.Team_A.etl-1"));
  CHECK_FALSE(Takes(QueueScheduler::kYuniKorn, "root"));
  CHECK_FALSE(Takes(QueueScheduler::kYuniKorn, "default"));
  CHECK_FALSE(Takes(QueueScheduler::kYuniKorn, "root..a"));
  CHECK_FALSE(Takes(QueueScheduler::kYuniKorn, "root.a."));
  CHECK_FALSE(Takes(QueueScheduler::kYuniKorn, "root.a b"));
  CHECK_FALSE(Takes(QueueScheduler::kYuniKorn, "root.a_"));  // a label value ends alphanumeric
  CHECK_FALSE(Takes(QueueScheduler::kYuniKorn, "rooted.a"));
  CHECK(Takes(QueueScheduler::kYuniKorn, "root." + std::string(58, 'q')));
  CHECK_FALSE(Takes(QueueScheduler::kYuniKorn, "root." + std::string(59, 'q')));
}

TEST_CASE("Volcano queue names: a Queue object's name", "[queue]") {
  CHECK(Takes(QueueScheduler::kVolcano, "default"));
  CHECK(Takes(QueueScheduler::kVolcano, "gpu.batch"));
  CHECK_FALSE(Takes(QueueScheduler::kVolcano, "Batch"));
  CHECK_FALSE(Takes(QueueScheduler::kVolcano, "batch_1"));
}

TEST_CASE("no queue name is good without a scheduler, and errors quote the name", "[queue]") {
  CHECK_FALSE(Takes(QueueScheduler::kNone, "team-a"));
  absl::Status bad = CheckQueueName(QueueScheduler::kKueue, "Team\n");
  CHECK(bad.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(bad.message()), Catch::EndsWith(", not \"Team\\x0A\""));
}

}  // namespace
}  // namespace kje::spark
