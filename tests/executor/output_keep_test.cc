#include "executor/output_keep.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "executor/kept_record.h"
#include "tests/executor/executor_fixture.h"
#include "tests/executor/operator_apps.h"
#include "tests/fakes/fake_kube_client.h"

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

TEST_CASE("a kept stop's record is left to its stopper for a grace after the mark",
          "[output_keep]") {
  spark::AppFields fields;
  fields.namespace_ = "spark";
  fields.name = "gravitino-job-a";
  fields.uid = "a";
  const absl::Time marked = absl::FromUnixSeconds(1767225660);  // 2026-01-01T00:01:00Z
  CHECK_FALSE(LeftToStopperUntil(spark::AppProjection(fields), marked).has_value());
  fields.stop_kept_at = "2026-01-01T00:01:00Z";
  const spark::AppProjection app(fields);
  CHECK(LeftToStopperUntil(app, marked) == marked + kKeptRecordGrace);
  CHECK(LeftToStopperUntil(app, marked + kKeptRecordGrace - absl::Seconds(1)) ==
        marked + kKeptRecordGrace);
  CHECK_FALSE(LeftToStopperUntil(app, marked + kKeptRecordGrace).has_value());
  fields.stop_kept_at = "yesterday";  // unreadable: nothing to wait for
  CHECK_FALSE(LeftToStopperUntil(spark::AppProjection(fields), marked).has_value());
}

// Another replica stopped the job in keep mode: its mark can end the run before that replica
// writes the record it read first. This replica's keeper, seeing the job ended, must not capture
// (the driver is gone: it would write "not kept" first) until the grace has passed.
TEST_CASE("the keeper waits for a kept stop's own record, then keeps one itself", "[output_keep]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  INFO(op.name);
  Fixture f(/*cache_on=*/true, {}, 1024, op.backend);
  f.clock.Set(absl::FromUnixSeconds(1767225690));  // 30 s after the mark
  f.cache->Pin(kNs);
  const std::string name = "gravitino-job-a";
  k8s::ListPage page;
  page.items = testing::Items({Marked(op.AppJson(name, "3", Situation::kSucceeded))});
  page.resource_version = "5";
  f.client->CompleteList(f.Next("list"), page);
  auto watch = f.Next("watch");
  absl::Notification stopped;
  auto keeper = f.executor->KeepRecords(kNs, [&](absl::Status) { stopped.Notify(); });
  for (int i = 0; i < Fixture::kDrainRounds; ++i) f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());

  // The grace passes without the stopper's record: the app's next version wakes the keeper,
  // which reads whether a record exists before capturing one.
  f.clock.Advance(kKeptRecordGrace);
  f.client->SendEvent(
      watch, k8s::WatchEvent{k8s::WatchEvent::Type::kModified, "6",
                             testing::Json(Marked(op.AppJson(name, "6", Situation::kSucceeded)))});
  auto get = f.Next("get");
  CHECK(get->ref.name == KeptRecordName(name));
  keeper->Cancel();
  REQUIRE(stopped.WaitForNotificationWithTimeout(absl::Seconds(10)));
}

}  // namespace
}  // namespace kje::executor
