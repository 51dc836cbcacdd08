#include "executor/output_keep.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "executor/kept_record.h"

namespace kje::executor {
namespace {

cache::AppPtr App(std::string uid, std::vector<std::pair<std::string, std::string>> labels = {},
                  bool managed = true, bool deleting = false) {
  spark::AppFields f;
  f.namespace_ = "spark";
  f.name = "gravitino-job-" + uid;
  f.uid = uid;
  f.resource_version = "1";
  f.managed_by_us = managed;
  f.deleting = deleting;
  f.labels = std::move(labels);
  return std::make_shared<const spark::AppProjection>(spark::AppProjection(f));
}

spark::JobStatusInfo Info(spark::JobStatus status) {
  spark::JobStatusInfo info;
  info.status = status;
  if (status != spark::JobStatus::kQueued) info.started_at = absl::FromUnixSeconds(100);
  return info;
}

TEST_CASE("a record is owed by our ended jobs until the app says it is written", "[output_keep]") {
  using spark::JobStatus;
  constexpr std::string_view kPrefix = "gravitino-job";
  for (JobStatus status : {JobStatus::kSucceeded, JobStatus::kFailed, JobStatus::kCancelled}) {
    CHECK(OwesKeptRecord(*App("a"), Info(status), kPrefix));
  }
  for (JobStatus status : {JobStatus::kQueued, JobStatus::kStarted, JobStatus::kCancelling}) {
    CHECK_FALSE(OwesKeptRecord(*App("a"), Info(status), kPrefix));
  }
  const std::pair<std::string, std::string> kept{std::string(kLabelOutput), "kept"};
  const std::pair<std::string, std::string> not_kept{std::string(kLabelOutput),
                                                     "not-kept.pod-gone"};
  CHECK_FALSE(OwesKeptRecord(*App("a", {kept}), Info(JobStatus::kSucceeded), kPrefix));
  CHECK_FALSE(OwesKeptRecord(*App("a", {not_kept}), Info(JobStatus::kFailed), kPrefix));
  // Not ours, or on its way out (its record would go with it).
  CHECK_FALSE(OwesKeptRecord(*App("a", {}, false), Info(JobStatus::kFailed), kPrefix));
  CHECK_FALSE(OwesKeptRecord(*App("a", {}, true, true), Info(JobStatus::kFailed), kPrefix));
  // Another deployment's job in the same namespace (another name prefix) is that one's to keep.
  for (const char* prefix : {"nightly-etl", "gravitino-job-a", "gravitino-jobs", "gravitino-jo"}) {
    INFO(prefix);
    CHECK_FALSE(OwesKeptRecord(*App("a"), Info(JobStatus::kFailed), prefix));
  }
  // A prefix is whole words of the name: "gravitino" names gravitino-job-a too.
  CHECK(OwesKeptRecord(*App("a"), Info(JobStatus::kFailed), "gravitino"));
}

TEST_CASE("the output's source follows the app's labels", "[output_keep]") {
  using spark::JobStatus;
  CHECK(OutputStateOf(*App("a"), Info(JobStatus::kQueued)).source == spark::OutputSource::kNone);
  CHECK(OutputStateOf(*App("a"), Info(JobStatus::kStarted)).source == spark::OutputSource::kLive);
  CHECK(OutputStateOf(*App("a"), Info(JobStatus::kFailed)).source == spark::OutputSource::kLive);
  auto kept = OutputStateOf(
      *App("a", {{std::string(kLabelOutput), "kept"}, {std::string(kLabelExitCode), "0"}}),
      Info(JobStatus::kSucceeded));
  CHECK(kept.source == spark::OutputSource::kKept);
  CHECK(kept.note.empty());
  CHECK(kept.exit_code == 0);
  auto gone = OutputStateOf(*App("a", {{std::string(kLabelOutput), "not-kept.pod-gone"},
                                       {std::string(kLabelExitCode), "-9"}}),
                            Info(JobStatus::kFailed));
  CHECK(gone.source == spark::OutputSource::kNotKept);
  CHECK(gone.note == NotKeptNote(NotKept::kPodGone));
  CHECK(gone.exit_code == -9);
  auto junk =
      OutputStateOf(*App("a", {{std::string(kLabelExitCode), "x"}}), Info(JobStatus::kFailed));
  CHECK_FALSE(junk.exit_code.has_value());
  // A restarted attempt, running again, still carries the last attempt's labels: its output is
  // the live driver's, and the old exit code isn't its.
  auto again = OutputStateOf(
      *App("a", {{std::string(kLabelOutput), "kept"}, {std::string(kLabelExitCode), "1"}}),
      Info(JobStatus::kStarted));
  CHECK(again.source == spark::OutputSource::kLive);
  CHECK_FALSE(again.exit_code.has_value());
  // Being stopped (a keep-mode cancel writes the record before the operator stops the job).
  auto stopping =
      OutputStateOf(*App("a", {{std::string(kLabelOutput), "kept"}}), Info(JobStatus::kCancelling));
  CHECK(stopping.source == spark::OutputSource::kKept);
}

TEST_CASE("the keep queue takes each job once, oldest first, within its bound", "[output_keep]") {
  KeepQueue queue(2);
  CHECK(queue.Add(App("a")));
  CHECK_FALSE(queue.Add(App("a")));  // queued already
  CHECK(queue.Add(App("b")));
  CHECK_FALSE(queue.Add(App("c")));  // full
  CHECK(queue.refused() == 1);
  cache::AppPtr first = queue.Take();
  REQUIRE(first != nullptr);
  CHECK(first->uid() == "a");
  CHECK_FALSE(queue.Add(App("a")));  // in flight
  CHECK(queue.Add(App("c")));
  queue.Done("a");
  CHECK(queue.Take()->uid() == "b");
  CHECK(queue.Take()->uid() == "c");
  CHECK(queue.Take() == nullptr);
  CHECK(queue.Add(App("a")));  // done: it may come again
  CHECK(queue.pending() == 1);
}

}  // namespace
}  // namespace kje::executor
