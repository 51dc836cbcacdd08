#include "executor/waiting_memo.h"

#include <catch2/catch.hpp>

namespace kje::executor {
namespace {

spark::Waiting Unschedulable(std::string message) {
  spark::Waiting w;
  w.reason = spark::WaitingReason::kUnschedulable;
  w.message = std::move(message);
  return w;
}

const absl::Time kT0 = absl::FromUnixSeconds(1'767'225'600);

TEST_CASE("waiting memo: an answer holds for its app version and refresh interval", "[waiting]") {
  WaitingMemo memo(10, absl::Seconds(15));
  CHECK_FALSE(memo.Fresh("uid-1", "7", kT0));
  memo.Remember("uid-1", "7", kT0, Unschedulable("no nodes"));
  CHECK(memo.Fresh("uid-1", "7", kT0 + absl::Seconds(14))->message == "no nodes");
  CHECK_FALSE(memo.Fresh("uid-1", "7", kT0 + absl::Seconds(15)));  // look again
  CHECK_FALSE(memo.Fresh("uid-1", "8", kT0));                      // the app moved
  CHECK_FALSE(memo.Fresh("uid-2", "7", kT0));
}

TEST_CASE("waiting memo: bounded; stale entries go first, and all when all are fresh",
          "[waiting]") {
  WaitingMemo memo(2, absl::Seconds(15));
  memo.Remember("a", "1", kT0, Unschedulable("a"));
  memo.Remember("b", "1", kT0 + absl::Seconds(10), Unschedulable("b"));
  memo.Remember("c", "1", kT0 + absl::Seconds(16), Unschedulable("c"));  // a is stale: it goes
  CHECK(memo.size() == 2);
  CHECK(memo.Fresh("b", "1", kT0 + absl::Seconds(16)));
  CHECK(memo.Fresh("c", "1", kT0 + absl::Seconds(16)));
  memo.Remember("d", "1", kT0 + absl::Seconds(17), Unschedulable("d"));  // none stale
  CHECK(memo.size() == 1);
  CHECK(memo.Fresh("d", "1", kT0 + absl::Seconds(17)));
  WaitingMemo off(0, absl::Seconds(15));
  off.Remember("a", "1", kT0, Unschedulable("a"));
  CHECK(off.size() == 0);
}

}  // namespace
}  // namespace kje::executor
