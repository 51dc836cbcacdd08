#include "executor/job_metrics.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "base/clock.h"
#include "base/strings.h"
#include "tests/executor/operator_apps.h"

namespace kje::executor {
namespace {

using spark::JobStatus;

const absl::Time kStart = absl::FromUnixSeconds(1767225600);  // the FakeClock's start

// The status an application's labels dictate: "status" (a JobStatus' number), and the times
// "started" / "finished" in seconds after kStart. The metrics' logic, without an operator's.
spark::JobStatusInfo FromLabels(const spark::AppProjection& app) {
  spark::JobStatusInfo info;
  int n = 0;
  if (auto s = app.labels().Find("status"); s && absl::SimpleAtoi(ToAbsl(*s), &n)) {
    info.status = static_cast<JobStatus>(n);
  }
  if (auto s = app.labels().Find("started"); s && absl::SimpleAtoi(ToAbsl(*s), &n)) {
    info.started_at = kStart + absl::Seconds(n);
  }
  if (auto s = app.labels().Find("finished"); s && absl::SimpleAtoi(ToAbsl(*s), &n)) {
    info.finished_at = kStart + absl::Seconds(n);
  }
  return info;
}

struct Version {
  std::string ns = "jobs";
  std::string name = "a";
  int created = 0;  // seconds after kStart
  JobStatus status = JobStatus::kQueued;
  std::optional<int> started = std::nullopt;
  std::optional<int> finished = std::nullopt;
};

cache::AppPtr App(const Version& v) {
  spark::AppFields f;
  f.namespace_ = v.ns;
  f.name = v.name;
  f.uid = "uid-" + v.ns + "-" + v.name;
  f.resource_version = "1";
  f.creation_time = absl::ToUnixMillis(kStart + absl::Seconds(v.created));
  f.labels.emplace_back("status", std::to_string(static_cast<int>(v.status)));
  if (v.started) f.labels.emplace_back("started", std::to_string(*v.started));
  if (v.finished) f.labels.emplace_back("finished", std::to_string(*v.finished));
  return std::make_shared<const spark::AppProjection>(f);
}

cache::AppEvent Upsert(const Version& v) { return {cache::AppEvent::Type::kUpserted, App(v)}; }
cache::AppEvent Delete(const Version& v) { return {cache::AppEvent::Type::kDeleted, App(v)}; }

JobSeries Series(const JobMetrics& m, const std::string& label) {
  for (const auto& [name, series] : m.Read().namespaces) {
    if (name == label) return series;
  }
  FAIL("no label " << label);
  return {};
}

int64_t Jobs(const JobSeries& s, JobStatus status) { return s.jobs[static_cast<size_t>(status)]; }

TEST_CASE("a job's run moves the gauge, counts once, and times its start and run",
          "[job_metrics]") {
  FakeClock clock;
  JobMetrics m({"jobs"}, FromLabels, clock);
  Version v{.created = 10};
  m.Observe(Upsert(v));
  m.Observe(Upsert(v));  // the same status again: nothing more
  JobSeries s = Series(m, "jobs");
  CHECK(s.submissions == 1);
  CHECK(Jobs(s, JobStatus::kQueued) == 1);

  v.status = JobStatus::kStarted;
  v.started = 40;  // 30 s after creation
  m.Observe(Upsert(v));
  s = Series(m, "jobs");
  CHECK(Jobs(s, JobStatus::kQueued) == 0);
  CHECK(Jobs(s, JobStatus::kStarted) == 1);
  CHECK(s.start_latency.count == 1);
  CHECK(s.start_latency.sum == 30);
  CHECK(s.start_latency.buckets[5] == 1);  // (20, 30]

  v.status = JobStatus::kSucceeded;
  v.finished = 340;  // ran 300 s
  m.Observe(Upsert(v));
  m.Observe(Upsert(v));
  s = Series(m, "jobs");
  CHECK(s.completions == 1);
  CHECK(s.failures == 0);
  CHECK(Jobs(s, JobStatus::kSucceeded) == 1);
  CHECK(Jobs(s, JobStatus::kStarted) == 0);
  CHECK(s.run_time.count == 1);
  CHECK(s.run_time.sum == 300);
  CHECK(s.run_time.buckets[4] == 1);  // (120, 300]
  CHECK(s.start_latency.count == 1);

  // The TTL deletes it: off the gauge, and a finished job isn't a cancellation.
  m.Observe(Delete(v));
  s = Series(m, "jobs");
  CHECK(Jobs(s, JobStatus::kSucceeded) == 0);
  CHECK(s.cancellations == 0);
}

TEST_CASE("what existed before the metrics started is the baseline, not submissions",
          "[job_metrics]") {
  FakeClock clock;
  JobMetrics m({"jobs"}, FromLabels, clock);
  m.Observe(Upsert({.name = "old", .created = -600, .status = JobStatus::kStarted, .started = -5}));
  JobSeries s = Series(m, "jobs");
  CHECK(s.submissions == 0);
  CHECK(Jobs(s, JobStatus::kStarted) == 1);
  CHECK(s.start_latency.count == 0);
  // Its end still counts: this replica saw it happen.
  m.Observe(Upsert({.name = "old",
                    .created = -600,
                    .status = JobStatus::kFailed,
                    .started = -5,
                    .finished = 55}));
  s = Series(m, "jobs");
  CHECK(s.failures == 1);
  CHECK(s.run_time.count == 1);
  CHECK(s.run_time.sum == 60);
}

TEST_CASE("a status skipped between two versions still counts its outcome", "[job_metrics]") {
  FakeClock clock;
  JobMetrics m({"jobs"}, FromLabels, clock);
  m.Observe(Upsert({.created = 1}));
  m.Observe(Upsert({.created = 1, .status = JobStatus::kCancelled, .started = 3, .finished = 9}));
  JobSeries s = Series(m, "jobs");
  CHECK(s.cancellations == 1);
  CHECK(s.start_latency.count == 1);
  CHECK(s.run_time.count == 1);
  // First seen already finished, made after the start: submitted and finished.
  m.Observe(Upsert({.name = "b", .created = 2, .status = JobStatus::kSucceeded}));
  s = Series(m, "jobs");
  CHECK(s.submissions == 2);
  CHECK(s.completions == 1);
}

TEST_CASE("an application deleted before it finished is a cancellation", "[job_metrics]") {
  FakeClock clock;
  JobMetrics m({"jobs"}, FromLabels, clock);
  Version v{.created = 1, .status = JobStatus::kStarted, .started = 2};
  m.Observe(Upsert(v));
  m.Observe(Delete(v));
  m.Observe(Delete(v));  // a second deletion of what is gone: nothing
  JobSeries s = Series(m, "jobs");
  CHECK(s.cancellations == 1);
  CHECK(Jobs(s, JobStatus::kStarted) == 0);
}

TEST_CASE("namespaces outside the configured ones fold into other", "[job_metrics]") {
  FakeClock clock;
  JobMetrics m({"jobs", "team-b"}, FromLabels, clock);
  m.Observe(Upsert({.ns = "team-b", .created = 1}));
  m.Observe(Upsert({.ns = "tenant-x", .created = 1}));
  m.Observe(Upsert({.ns = "tenant-y", .created = 1}));
  JobMetricsSnapshot snapshot = m.Read();
  REQUIRE(snapshot.namespaces.size() == 3);
  CHECK(snapshot.namespaces[0].first == "jobs");
  CHECK(snapshot.namespaces[1].first == "team-b");
  CHECK(snapshot.namespaces[2].first == "other");
  CHECK(snapshot.namespaces[1].second.submissions == 1);
  CHECK(snapshot.namespaces[2].second.submissions == 2);
}

TEST_CASE("a resync counts what changed meanwhile and drops what is gone", "[job_metrics]") {
  FakeClock clock;
  JobMetrics m({"jobs"}, FromLabels, clock);
  m.Observe(Upsert({.name = "a", .created = 1}));
  m.Observe(Upsert({.name = "b", .created = 1, .status = JobStatus::kStarted, .started = 2}));
  // Changes lost: a succeeded, b was deleted, c was created.
  m.Resync("jobs", {App({.name = "a",
                         .created = 1,
                         .status = JobStatus::kSucceeded,
                         .started = 2,
                         .finished = 5}),
                    App({.name = "c", .created = 3})});
  JobSeries s = Series(m, "jobs");
  CHECK(s.completions == 1);
  CHECK(s.cancellations == 1);
  CHECK(s.submissions == 3);
  CHECK(Jobs(s, JobStatus::kSucceeded) == 1);
  CHECK(Jobs(s, JobStatus::kQueued) == 1);
  CHECK(Jobs(s, JobStatus::kStarted) == 0);
}

TEST_CASE("the metrics read each operator's applications as Status does", "[job_metrics]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  FakeClock clock(absl::FromUnixSeconds(1767225600 - 60));
  auto map = [&op, &clock](const spark::AppProjection& app) {
    return op.backend->MapStatus(app, nullptr, clock.Now(), absl::Minutes(10));
  };
  JobMetrics m({"jobs"}, map, clock);
  for (Situation situation : {Situation::kSubmitted, Situation::kRunning, Situation::kSucceeded}) {
    auto app = op.backend->ProjectJson(op.AppJson("a", "1", situation));
    REQUIRE(app.ok());
    m.Observe({cache::AppEvent::Type::kUpserted, std::make_shared<spark::AppProjection>(*app)});
  }
  JobSeries s = Series(m, "jobs");
  CHECK(s.submissions == 1);
  CHECK(s.completions == 1);
  CHECK(Jobs(s, JobStatus::kSucceeded) == 1);
  CHECK(Jobs(s, JobStatus::kQueued) + Jobs(s, JobStatus::kStarted) == 0);
}

}  // namespace
}  // namespace kje::executor

#include "tests/executor/executor_fixture.h"
#include "tests/fakes/fake_kube_client.h"

namespace kje::executor {
namespace {

TEST_CASE("the feed counts the informer's changes, with no request of its own", "[job_metrics]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/true, {}, 1024, op.backend);
  f.clock.Set(absl::FromUnixSeconds(1767225600 - 60));
  auto metrics = std::make_shared<JobMetrics>(std::vector<std::string>{kNs},
                                              f.executor->JobStatusMapper(), f.clock);
  JobMetricsFeed feed(*f.cache, metrics, /*capacity=*/2);
  f.cache->Pin(kNs);
  REQUIRE(feed.Follow(kNs).ok());
  k8s::ListPage page;
  page.items =
      testing::Items({op.AppJson("old", "2", Situation::kRunning, "1", "2025-12-01T00:00:00Z")});
  page.resource_version = "2";
  f.client->CompleteList(f.Next("list"), page);
  auto watch = f.Next("watch");
  for (const auto& [rv, situation] :
       {std::pair{"3", Situation::kSubmitted}, std::pair{"4", Situation::kRunning},
        std::pair{"5", Situation::kSucceeded}}) {
    f.client->SendEvent(watch, k8s::WatchEvent{k8s::WatchEvent::Type::kModified, rv,
                                               testing::Json(op.AppJson("a", rv, situation))});
  }
  for (int i = 0; i < 3; ++i) f.client->Barrier();
  JobSeries s = Series(*metrics, kNs);
  CHECK(s.submissions == 1);  // "old" is the baseline
  CHECK(s.completions == 1);
  CHECK(Jobs(s, JobStatus::kSucceeded) == 1);
  CHECK(Jobs(s, JobStatus::kStarted) == 1);
  // More changes than the mailbox holds at once are still all counted (a resync).
  for (int i = 0; i < 5; ++i) {
    const std::string rv = std::to_string(6 + i);
    f.client->SendEvent(
        watch, k8s::WatchEvent{k8s::WatchEvent::Type::kAdded, rv,
                               testing::Json(op.AppJson("n" + rv, rv, Situation::kSubmitted))});
  }
  f.client->SendEvent(watch,
                      k8s::WatchEvent{k8s::WatchEvent::Type::kDeleted, "20",
                                      testing::Json(op.AppJson("old", "20", Situation::kRunning))});
  for (int i = 0; i < 3; ++i) f.client->Barrier();
  s = Series(*metrics, kNs);
  CHECK(s.submissions == 6);
  CHECK(Jobs(s, JobStatus::kQueued) == 5);
  CHECK(Jobs(s, JobStatus::kStarted) == 0);
  CHECK(s.cancellations == 1);
  feed.Stop();
}

}  // namespace
}  // namespace kje::executor
