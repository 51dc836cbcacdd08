// The queue a job resolves to (ResolveJob) and what both operators' builders make of it: the
// same rules and the same queue read back from the application, whatever the operator.

#include "spark/resolved_job.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spark/build_error.h"
#include "spark/names.h"
#include "spark/operators.h"
#include "spark/queue.h"

namespace kje::spark {
namespace {

const std::vector<std::string_view> kOperatorNames = {"apache", "kubeflow"};

BuilderOptions Options(QueueScheduler scheduler, std::string queue_name = "") {
  BuilderOptions options;
  options.namespace_ = "spark-jobs";
  options.image = "apache/spark:3.5.6";
  options.spark_version = "3.5.6";
  options.queue_scheduler = scheduler;
  options.queue_name = std::move(queue_name);
  return options;
}

SparkTemplate Pi(std::string queue = "") {
  SparkTemplate t;
  t.name = "spark-pi";
  t.executable = "local:///opt/spark/examples/jars/spark-examples.jar";
  t.class_name = "org.apache.spark.examples.SparkPi";
  t.custom_fields = {{"team", "data"}};
  if (!queue.empty()) t.custom_fields[std::string(kCustomFieldQueue)] = std::move(queue);
  return t;
}

std::unique_ptr<OperatorBackend> Backend(std::string_view name) {
  auto backend = NewOperatorBackend(name);
  REQUIRE(backend.ok());
  return *std::move(backend);
}

// The queue the operator's backend reads back from the application it built.
std::string QueueReadBack(const OperatorBackend& backend, const BuiltApplication& built) {
  absl::StatusOr<AppProjection> app = backend.ProjectJson(built.json);
  REQUIRE(app.ok());
  return std::string(backend.RunDetailsOf(*app).queue());
}

TEST_CASE("queue: the template's custom field wins over the deployment's queue", "[queue]") {
  SparkTemplate t = Pi("  team-b  ");
  absl::StatusOr<ResolvedJob> job =
      ResolveJob("7", "m", t, Options(QueueScheduler::kKueue, "team-a"));
  REQUIRE(job.ok());
  CHECK(job->queue_scheduler == QueueScheduler::kKueue);
  CHECK(job->queue == "team-b");
  job = ResolveJob("7", "m", Pi(), Options(QueueScheduler::kKueue, "team-a"));
  REQUIRE(job.ok());
  CHECK(job->queue == "team-a");
  // No default and no field: no queue, the scheduler still known.
  job = ResolveJob("7", "m", Pi(), Options(QueueScheduler::kYuniKorn));
  REQUIRE(job.ok());
  CHECK(job->queue.empty());
  CHECK(job->queue_scheduler == QueueScheduler::kYuniKorn);
  // A blank field is unset, as blank confs are.
  job = ResolveJob("7", "m", Pi(" "), Options(QueueScheduler::kNone));
  REQUIRE(job.ok());
  CHECK(job->queue.empty());
}

TEST_CASE("queue: each operator refuses what the rules refuse, naming the rule, building nothing",
          "[queue]") {
  const std::string_view name = GENERATE(from_range(kOperatorNames));
  INFO(name);
  std::unique_ptr<OperatorBackend> backend = Backend(name);
  auto error_of = [&](const SparkTemplate& t, const BuilderOptions& o) {
    absl::StatusOr<BuiltApplication> built = backend->Build("7", "m", t, o);
    REQUIRE_FALSE(built.ok());
    CHECK(built.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(BuildInputOf(built.status()) == BuildInput::kTemplate);
    return std::string(built.status().message());
  };
  CHECK(error_of(Pi("team-a"), Options(QueueScheduler::kNone)) ==
        "Job template \"spark-pi\" names a queue in its custom field queue, but this executor "
        "sends jobs to no batch scheduler (queue.scheduler is none)");
  CHECK_THAT(error_of(Pi("Team_A"), Options(QueueScheduler::kKueue)),
             Catch::StartsWith("The custom field queue of job template \"spark-pi\" must be a "
                               "Kueue LocalQueue name") &&
                 Catch::EndsWith(", not \"Team_A\""));
  CHECK_THAT(error_of(Pi(std::string(64, 'a')), Options(QueueScheduler::kKueue)),
             Catch::Contains("at most 63 characters"));
  CHECK_THAT(error_of(Pi("analytics"), Options(QueueScheduler::kYuniKorn)),
             Catch::Contains("must be a full YuniKorn queue path root.<queue>") &&
                 Catch::EndsWith(", not \"analytics\""));
  CHECK_THAT(error_of(Pi("Batch"), Options(QueueScheduler::kVolcano)),
             Catch::Contains("must be a Volcano Queue name"));
  // The pods' scheduler is the queue's to set.
  for (QueueScheduler s : {QueueScheduler::kYuniKorn, QueueScheduler::kVolcano}) {
    SparkTemplate t = Pi();
    t.configs = {{std::string(kConfSchedulerName), "default-scheduler"}};
    CHECK_THAT(error_of(t, Options(s)),
               Catch::StartsWith("spark.kubernetes.scheduler.name of job template \"spark-pi\" is "
                                 "\"default-scheduler\", but this executor's jobs go through the "
                                 "batch scheduler ") &&
                   Catch::EndsWith(" (queue.scheduler): leave it unset"));
    t.configs = {{std::string(kConfSchedulerName), std::string(QueueSchedulerName(s))}};
    CHECK(backend->Build("7", "m", t, Options(s)).ok());
  }
  // A bad deployment default is the executor's own configuration, not the caller's.
  absl::StatusOr<BuiltApplication> built =
      backend->Build("7", "m", Pi(), Options(QueueScheduler::kYuniKorn, "default"));
  REQUIRE_FALSE(built.ok());
  CHECK(built.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(BuildInputOf(built.status()) == BuildInput::kServerConfig);
  CHECK_THAT(std::string(built.status().message()),
             Catch::StartsWith("The executor's queue.name must be a full YuniKorn queue path"));
}

TEST_CASE("queue: each operator writes the queue and reads the same one back", "[queue]") {
  const std::string_view name = GENERATE(from_range(kOperatorNames));
  INFO(name);
  std::unique_ptr<OperatorBackend> backend = Backend(name);
  struct Case {
    QueueScheduler scheduler;
    std::string queue;
  };
  for (const Case& c : {Case{QueueScheduler::kKueue, "team-a"},
                        Case{QueueScheduler::kYuniKorn, "root.analytics.etl"},
                        Case{QueueScheduler::kVolcano, "batch"}}) {
    INFO(QueueSchedulerName(c.scheduler));
    absl::StatusOr<BuiltApplication> built =
        backend->Build("7", "m", Pi(c.queue), Options(c.scheduler));
    REQUIRE(built.ok());
    CHECK(QueueReadBack(*backend, *built) == c.queue);
    // Kueue's label is on the app (and so on a schedule of it, and its runs); no other's is.
    const auto label = built->labels.find(std::string(kLabelKueueQueueName));
    if (c.scheduler == QueueScheduler::kKueue) {
      REQUIRE(label != built->labels.end());
      CHECK(label->second == c.queue);
    } else {
      CHECK(label == built->labels.end());
    }
    // Without a queue, the scheduler alone leaves nothing to read back.
    built = backend->Build("7", "m", Pi(), Options(c.scheduler));
    REQUIRE(built.ok());
    CHECK(QueueReadBack(*backend, *built).empty());
  }
  absl::StatusOr<BuiltApplication> plain = backend->Build("7", "m", Pi(), Options({}));
  REQUIRE(plain.ok());
  CHECK(QueueReadBack(*backend, *plain).empty());
  CHECK(plain->labels.count(std::string(kLabelKueueQueueName)) == 0);
}

TEST_CASE("queue: a projection keeps a queue only when the app has one", "[queue]") {
  const std::string_view name = GENERATE(from_range(kOperatorNames));
  INFO(name);
  std::unique_ptr<OperatorBackend> backend = Backend(name);
  absl::StatusOr<BuiltApplication> plain =
      backend->Build("7", "m", Pi(), Options(QueueScheduler::kVolcano));
  absl::StatusOr<BuiltApplication> queued =
      backend->Build("7", "m", Pi("batch"), Options(QueueScheduler::kVolcano));
  REQUIRE(plain.ok());
  REQUIRE(queued.ok());
  absl::StatusOr<AppProjection> without = backend->ProjectJson(plain->json);
  absl::StatusOr<AppProjection> with = backend->ProjectJson(queued->json);
  REQUIRE(without.ok());
  REQUIRE(with.ok());
  // The queue's bytes and their length, nothing more; nothing at all without one.
  CHECK(with->operator_status().size() == without->operator_status().size() + 1 + 5);
  // Unpacked and packed again, the projection says the same.
  const AppProjection copy(with->ToFields());
  CHECK(backend->RunDetailsOf(copy).queue() == "batch");
  CHECK(backend->RunDetailsOf(copy).ToDetails().queue == "batch");
}

}  // namespace
}  // namespace kje::spark
