#include "spark/deadline.h"

#include <catch2/catch.hpp>

#include "rapidjson/document.h"
#include "spark/resolved_job.h"

namespace kje::spark {
namespace {

AppProjection App(std::vector<std::pair<std::string, std::string>> labels,
                  DeadlineKind mark = DeadlineKind::kNone, bool deleting = false) {
  AppFields fields;
  fields.name = "gravitino-job-1";
  fields.namespace_ = "jobs";
  fields.creation_time = 1'000'000;  // ms
  fields.labels = std::move(labels);
  fields.deadline_exceeded = mark;
  fields.deleting = deleting;
  if (deleting) fields.deletion_time = 1'500'000;
  return AppProjection(fields);
}

const absl::Time kCreated = absl::FromUnixMillis(1'000'000);

TEST_CASE("deadlines: a queued job's falls due its maxQueuedSeconds after creation", "[deadline]") {
  const AppProjection app = App({{"gravitino.apache.org/max-queued-seconds", "30"}});
  JobStatusInfo info;  // QUEUED
  ApplyDeadlines(app, kCreated + absl::Seconds(29), info);
  REQUIRE(info.deadline_at);
  CHECK(*info.deadline_at == kCreated + absl::Seconds(30));
  CHECK(info.deadline_due == DeadlineKind::kNone);
  info = JobStatusInfo{};
  ApplyDeadlines(app, kCreated + absl::Seconds(30), info);
  CHECK(info.deadline_due == DeadlineKind::kQueued);
  // Once started, the queued deadline no longer applies; without a run deadline there is none.
  info = JobStatusInfo{};
  info.status = JobStatus::kStarted;
  info.started_at = kCreated + absl::Seconds(5);
  ApplyDeadlines(app, kCreated + absl::Hours(1), info);
  CHECK_FALSE(info.deadline_at);
  CHECK(info.deadline_due == DeadlineKind::kNone);
}

TEST_CASE("deadlines: a running job's falls due maxRunSeconds after it started", "[deadline]") {
  const AppProjection app = App({{"gravitino.apache.org/max-run-seconds", "60"}});
  JobStatusInfo info;
  info.status = JobStatus::kStarted;
  info.started_at = kCreated + absl::Seconds(10);
  ApplyDeadlines(app, kCreated + absl::Seconds(70), info);
  CHECK(*info.deadline_at == kCreated + absl::Seconds(70));
  CHECK(info.deadline_due == DeadlineKind::kRun);
  // A finished job has none.
  info = JobStatusInfo{};
  info.status = JobStatus::kSucceeded;
  info.started_at = kCreated;
  ApplyDeadlines(app, kCreated + absl::Hours(1), info);
  CHECK_FALSE(info.deadline_at);
}

TEST_CASE("deadlines: a job the service stopped is FAILED, saying which deadline", "[deadline]") {
  const AppProjection app =
      App({{"gravitino.apache.org/max-queued-seconds", "30"}}, DeadlineKind::kQueued, true);
  JobStatusInfo info;
  info.status = JobStatus::kCancelling;  // what the operator's mapping makes of a deletion
  ApplyDeadlines(app, kCreated + absl::Hours(1), info);
  CHECK(info.status == JobStatus::kFailed);
  CHECK(info.deadline_exceeded == DeadlineKind::kQueued);
  CHECK(info.message ==
        "stopped: the job didn't start within its queued deadline (30 s, maxQueuedSeconds)");
  CHECK(*info.finished_at == absl::FromUnixMillis(1'500'000));
  CHECK(info.deadline_due == DeadlineKind::kNone);
  // A job that succeeded before the stop reached it keeps its outcome.
  info = JobStatusInfo{};
  info.status = JobStatus::kSucceeded;
  ApplyDeadlines(app, kCreated + absl::Hours(1), info);
  CHECK(info.status == JobStatus::kSucceeded);
  CHECK(info.deadline_exceeded == DeadlineKind::kNone);
}

TEST_CASE("deadlines: malformed labels count as none, and the mark reads back from the object",
          "[deadline]") {
  for (const char* bad : {"-5", " 30", "30s", "", "99999999999999"}) {
    INFO(bad);
    JobStatusInfo info;
    ApplyDeadlines(App({{"gravitino.apache.org/max-queued-seconds", bad}}),
                   kCreated + absl::Hours(9999), info);
    CHECK_FALSE(info.deadline_at);
  }
  rapidjson::Document doc;
  doc.Parse(R"({"metadata":{"name":"a","namespace":"b","annotations":)"
            R"({"gravitino.apache.org/deadline-exceeded":"run"}}})");
  auto fields = ProjectMetadata(doc);
  REQUIRE(fields.ok());
  CHECK(AppProjection(*fields).deadline_exceeded() == DeadlineKind::kRun);
  CHECK(AppProjection(*fields).ToFields().deadline_exceeded == DeadlineKind::kRun);
  CHECK(DeadlinePatch(DeadlineKind::kQueued, "42") ==
        R"({"metadata":{"resourceVersion":"42","annotations":)"
        R"({"gravitino.apache.org/deadline-exceeded":"queued"}}})");
}

TEST_CASE("deadlines: a template's custom fields override the deployment's, checked",
          "[deadline]") {
  BuilderOptions options;
  options.image = "apache/spark:4.0.0";
  options.spark_version = "4.0.0";
  options.max_queued_seconds = 600;
  SparkTemplate t;
  t.name = "pi";
  t.executable = "local:///opt/spark/examples/jars/spark-examples.jar";
  t.class_name = "org.apache.spark.examples.SparkPi";
  auto job = ResolveJob("1", "lake", t, options);
  REQUIRE(job.ok());
  CHECK(job->deadlines.max_queued_seconds == 600);
  CHECK(job->deadlines.max_run_seconds == 0);
  t.custom_fields = {{"maxQueuedSeconds", "0"}, {"maxRunSeconds", " 3600 "}};
  job = ResolveJob("1", "lake", t, options);
  REQUIRE(job.ok());
  CHECK(job->deadlines.max_queued_seconds == 0);
  CHECK(job->deadlines.max_run_seconds == 3600);
  std::map<std::string, std::string> labels;
  AddDeadlineLabels(job->deadlines, labels);
  CHECK(labels ==
        std::map<std::string, std::string>{{"gravitino.apache.org/max-run-seconds", "3600"}});
  t.custom_fields = {{"maxRunSeconds", "1h"}};
  job = ResolveJob("1", "lake", t, options);
  REQUIRE_FALSE(job.ok());
  CHECK(absl::IsInvalidArgument(job.status()));
  CHECK(job.status().message() ==
        "The custom field maxRunSeconds of job template \"pi\" must be a whole number of seconds "
        "from 0 (none) to 31622400, not \"1h\"");
}

}  // namespace
}  // namespace kje::spark
