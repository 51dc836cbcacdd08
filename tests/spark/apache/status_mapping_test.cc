#include "spark/apache/status_mapping.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "spark/apache/app_projection.h"
#include "spark/apache/run_details.h"
#include "test_json.h"

namespace kje::spark::apache {
namespace {

using testing::App;
using testing::AppMeta;
using testing::Pod;
using testing::PodStatus;
using testing::Running;
using testing::State;
using testing::Status;
using testing::T;
using testing::Terminated;

const absl::Duration kTimeout = absl::Minutes(10);
const absl::Time kNow = T("2026-05-12T10:05:00Z");  // 5 min after the apps' creation

AppProjection Project(const std::string& json) {
  absl::StatusOr<AppProjection> app = ProjectAppJson(json);
  REQUIRE(app.ok());
  return *std::move(app);
}

DriverPod ProjectPod(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.c_str());
  absl::StatusOr<DriverPod> pod = ProjectDriverPod(document);
  REQUIRE(pod.ok());
  return *std::move(pod);
}

JobStatusInfo Map(const std::string& json, const DriverPod* driver = nullptr,
                  absl::Time now = kNow) {
  return MapStatus(Project(json), driver, now, kTimeout);
}

// A history ending in `states`, one second apart from 10:00:00.
std::string History(const std::vector<std::string>& states, const std::string& current = "") {
  std::vector<std::pair<std::string, std::string>> entries;
  for (size_t i = 0; i < states.size(); ++i) {
    entries.push_back(
        {std::to_string(i),
         State(states[i], absl::StrCat("2026-05-12T10:00:", i < 10 ? "0" : "", i, "Z"))});
  }
  return Status(entries, current);
}

absl::Time At(int second) {
  return T(absl::StrCat("2026-05-12T10:00:", second < 10 ? "0" : "", second, "Z"));
}

// ---- The mapping table, one row per operator state ----

TEST_CASE("Queued states map to QUEUED without times") {
  const char* state =
      GENERATE("Submitted", "ScheduledToRestart", "DriverRequested", "DriverStarted");
  JobStatusInfo info = Map(App(History({"Submitted", state})));
  INFO(state);
  CHECK(info.status == JobStatus::kQueued);
  CHECK(info.operator_state == state);
  CHECK_FALSE(info.started_at.has_value());
  CHECK_FALSE(info.finished_at.has_value());
  CHECK_FALSE(info.is_stopped);
}

TEST_CASE("Started states map to STARTED with a start time") {
  const char* state =
      GENERATE("DriverReady", "InitializedBelowThresholdExecutors", "RunningHealthy",
               "RunningWithPartialCapacity", "RunningWithBelowThresholdExecutors");
  JobStatusInfo info = Map(App(History({"Submitted", "DriverRequested", state})));
  INFO(state);
  CHECK(info.status == JobStatus::kStarted);
  CHECK(info.operator_state == state);
  REQUIRE(info.started_at.has_value());
  CHECK(*info.started_at == At(2));  // the first started entry's transition
  CHECK_FALSE(info.finished_at.has_value());
}

TEST_CASE("Succeeded maps to SUCCEEDED with both times") {
  JobStatusInfo info =
      Map(App(History({"Submitted", "DriverReady", "RunningHealthy", "Succeeded"})));
  CHECK(info.status == JobStatus::kSucceeded);
  CHECK(info.is_stopped);
  REQUIRE(info.started_at.has_value());
  CHECK(*info.started_at == At(1));
  REQUIRE(info.finished_at.has_value());
  CHECK(*info.finished_at == At(3));
}

TEST_CASE("Failure states map to FAILED") {
  const char* state =
      GENERATE("Failed", "SchedulingFailure", "DriverEvicted", "DriverStartTimedOut",
               "ExecutorsStartTimedOut", "DriverReadyTimedOut");
  JobStatusInfo info = Map(App(History({"Submitted", "DriverRequested", state})));
  INFO(state);
  CHECK(info.status == JobStatus::kFailed);
  CHECK(info.is_stopped);
  CHECK_FALSE(info.started_at.has_value());  // never reached a started state
  REQUIRE(info.finished_at.has_value());
  CHECK(*info.finished_at == At(2));
}

TEST_CASE("Stopped states take the last outcome of the history") {
  const char* stopped = GENERATE("ResourceReleased", "TerminatedWithoutReleaseResources");
  INFO(stopped);
  JobStatusInfo ok = Map(App(History({"Submitted", "DriverReady", "Succeeded", stopped})));
  CHECK(ok.status == JobStatus::kSucceeded);
  CHECK(ok.operator_state == stopped);
  REQUIRE(ok.finished_at.has_value());
  CHECK(*ok.finished_at == At(2));  // the outcome's time, not the stop's
  JobStatusInfo failed = Map(App(History({"Submitted", "DriverReady", "Failed", stopped})));
  CHECK(failed.status == JobStatus::kFailed);
  REQUIRE(failed.finished_at.has_value());
  CHECK(*failed.finished_at == At(2));
}

TEST_CASE("A stopped state without an outcome is FAILED") {
  JobStatusInfo info = Map(App(History({"Submitted", "DriverRequested", "ResourceReleased"})));
  CHECK(info.status == JobStatus::kFailed);
  CHECK(info.is_stopped);
  CHECK_FALSE(info.finished_at.has_value());  // no outcome and no deletion
}

TEST_CASE("The walk-back takes the newest outcome across attempts") {
  JobStatusInfo info = Map(App(History({"Submitted", "Failed", "ScheduledToRestart", "DriverReady",
                                        "Succeeded", "TerminatedWithoutReleaseResources"})));
  CHECK(info.status == JobStatus::kSucceeded);
  CHECK(*info.finished_at == At(4));
  info = Map(App(History({"Submitted", "Succeeded", "ScheduledToRestart", "DriverReady",
                          "DriverEvicted", "ResourceReleased"})));
  CHECK(info.status == JobStatus::kFailed);
  CHECK(*info.finished_at == At(4));
}

TEST_CASE("History keys are ordered numerically: 10 comes after 9") {
  // As strings, "9" would sort last and make Failed the outcome and RunningHealthy current.
  std::string status = Status({{"9", State("Failed", "2026-05-12T10:00:09Z")},
                               {"10", State("Succeeded", "2026-05-12T10:00:10Z")},
                               {"11", State("ResourceReleased", "2026-05-12T10:00:11Z")},
                               {"8", State("RunningHealthy", "2026-05-12T10:00:08Z")}});
  JobStatusInfo info = Map(App(status));
  CHECK(info.status == JobStatus::kSucceeded);
  CHECK(info.operator_state == "ResourceReleased");
  CHECK(*info.finished_at == At(10));

  std::string current = Status({{"9", State("RunningHealthy", "2026-05-12T10:00:09Z")},
                                {"10", State("Succeeded", "2026-05-12T10:00:10Z")}});
  CHECK(Map(App(current)).status == JobStatus::kSucceeded);
}

TEST_CASE("A trimmed history ends with the appended currentState") {
  std::string status = Status({{"6", State("ScheduledToRestart", "2026-05-12T10:00:06Z")},
                               {"7", State("DriverRequested", "2026-05-12T10:00:07Z")}},
                              State("RunningHealthy", "2026-05-12T10:00:20Z"));
  JobStatusInfo info = Map(App(status));
  CHECK(info.status == JobStatus::kStarted);
  CHECK(info.operator_state == "RunningHealthy");
  REQUIRE(info.started_at.has_value());
  CHECK(*info.started_at == At(20));

  std::string stopped = Status({{"6", State("Succeeded", "2026-05-12T10:00:06Z")}},
                               State("ResourceReleased", "2026-05-12T10:00:20Z"));
  info = Map(App(stopped));
  CHECK(info.status == JobStatus::kSucceeded);
  CHECK(*info.finished_at == At(6));
}

TEST_CASE("A restarted app waiting again keeps the start of its earlier attempt") {
  // As in the Java executor; Gravitino's JobManager drops a start time from a QUEUED report.
  JobStatusInfo info = Map(App(
      History({"Submitted", "DriverReady", "Failed", "ScheduledToRestart", "DriverRequested"})));
  CHECK(info.status == JobStatus::kQueued);
  REQUIRE(info.started_at.has_value());
  CHECK(*info.started_at == At(1));
  CHECK_FALSE(info.finished_at.has_value());
}

// ---- No status ----

TEST_CASE("No status is QUEUED until the no-status timeout - then FAILED") {
  JobStatusInfo queued = Map(App(""));
  CHECK(queued.status == JobStatus::kQueued);
  CHECK_FALSE(queued.no_status_timed_out);
  CHECK(queued.operator_state.empty());

  absl::Time created = T("2026-05-12T10:00:00Z");
  CHECK(Map(App(""), nullptr, created + kTimeout).status == JobStatus::kQueued);  // not yet past
  JobStatusInfo failed = Map(App(""), nullptr, created + kTimeout + absl::Milliseconds(1));
  CHECK(failed.status == JobStatus::kFailed);
  CHECK(failed.no_status_timed_out);
  CHECK(failed.message.find("watched by the Spark operator") != std::string::npos);
  CHECK_FALSE(failed.started_at.has_value());
  CHECK_FALSE(failed.finished_at.has_value());
}

TEST_CASE("An empty status counts as no status") {
  CHECK(Map(App("{}")).status == JobStatus::kQueued);
  CHECK(Map(App("{}"), nullptr, kNow + absl::Hours(1)).no_status_timed_out);
}

TEST_CASE("A state - however old - is never a no-status timeout") {
  JobStatusInfo info = Map(App(History({"Submitted"})), nullptr, kNow + absl::Hours(100));
  CHECK(info.status == JobStatus::kQueued);
  CHECK_FALSE(info.no_status_timed_out);
}

// ---- Unknown states ----

TEST_CASE("An unknown state is QUEUED when nothing in the history started") {
  JobStatusInfo info = Map(App(History({"Submitted", "DriverRequested", "Hibernating"})));
  CHECK(info.status == JobStatus::kQueued);
  CHECK(info.unknown_state);
  CHECK(info.operator_state == "Hibernating");
  CHECK_FALSE(info.started_at.has_value());
  CHECK_FALSE(info.is_stopped);
}

TEST_CASE("An unknown state is STARTED once the history has a started state") {
  JobStatusInfo info = Map(App(
      History({"Submitted", "DriverRequested", "DriverReady", "RunningHealthy", "Hibernating"})));
  CHECK(info.status == JobStatus::kStarted);
  CHECK(info.unknown_state);
  REQUIRE(info.started_at.has_value());
  CHECK(*info.started_at == At(2));
}

// ---- Deletion and cancel: the evaluation order ----

TEST_CASE("Cancel requested and deleting is CANCELLED at the deletion time") {
  AppMeta meta;
  meta.cancel_requested = true;
  meta.deletion = "2026-05-12T10:03:00Z";
  JobStatusInfo info = Map(App(History({"Submitted", "DriverReady", "RunningHealthy"}), meta));
  CHECK(info.status == JobStatus::kCancelled);
  CHECK(info.deleting);
  REQUIRE(info.started_at.has_value());
  CHECK(*info.started_at == At(1));
  REQUIRE(info.finished_at.has_value());
  CHECK(*info.finished_at == T("2026-05-12T10:03:00Z"));
}

TEST_CASE("Cancel requested and stopped is CANCELLED at the outcome's time") {
  AppMeta meta;
  meta.cancel_requested = true;
  JobStatusInfo info =
      Map(App(History({"Submitted", "DriverReady", "Failed", "ResourceReleased"}), meta));
  CHECK(info.status == JobStatus::kCancelled);
  CHECK(*info.finished_at == At(2));
  // An outcome as the current state is stopped too.
  info = Map(App(History({"Submitted", "DriverReady", "Succeeded"}), meta));
  CHECK(info.status == JobStatus::kCancelled);
  CHECK(*info.finished_at == At(2));
  // The outcome's time wins over the deletion time.
  meta.deletion = "2026-05-12T10:03:00Z";
  info = Map(App(History({"Submitted", "DriverReady", "Succeeded", "ResourceReleased"}), meta));
  CHECK(info.status == JobStatus::kCancelled);
  CHECK(*info.finished_at == At(2));
}

TEST_CASE("Cancel requested without a status and deleting is CANCELLED") {
  AppMeta meta;
  meta.cancel_requested = true;
  meta.deletion = "2026-05-12T10:03:00Z";
  JobStatusInfo info = Map(App("", meta), nullptr, kNow + absl::Hours(1));
  CHECK(info.status == JobStatus::kCancelled);
  CHECK_FALSE(info.no_status_timed_out);
  CHECK_FALSE(info.started_at.has_value());
  CHECK(*info.finished_at == T("2026-05-12T10:03:00Z"));
}

TEST_CASE("Cancel requested while running and not deleting is CANCELLING") {
  AppMeta meta;
  meta.cancel_requested = true;
  JobStatusInfo running = Map(App(History({"Submitted", "DriverReady", "RunningHealthy"}), meta));
  CHECK(running.status == JobStatus::kCancelling);
  CHECK(running.operator_state == "RunningHealthy");
  REQUIRE(running.started_at.has_value());
  CHECK(*running.started_at == At(1));
  CHECK_FALSE(running.finished_at.has_value());

  JobStatusInfo queued = Map(App(History({"Submitted"}), meta));
  CHECK(queued.status == JobStatus::kCancelling);
  CHECK_FALSE(queued.started_at.has_value());

  JobStatusInfo unknown = Map(App(History({"Submitted", "Hibernating"}), meta));
  CHECK(unknown.status == JobStatus::kCancelling);

  JobStatusInfo no_status = Map(App("", meta));
  CHECK(no_status.status == JobStatus::kCancelling);
}

TEST_CASE("Cancel requested never hides a no-status timeout") {
  AppMeta meta;
  meta.cancel_requested = true;
  JobStatusInfo info = Map(App("", meta), nullptr, kNow + absl::Hours(1));
  CHECK(info.status == JobStatus::kFailed);
  CHECK(info.no_status_timed_out);
}

TEST_CASE("Deleted by someone else: the last outcome - else FAILED at the deletion time") {
  AppMeta meta;
  meta.deletion = "2026-05-12T10:03:00Z";
  JobStatusInfo running = Map(App(History({"Submitted", "DriverReady", "RunningHealthy"}), meta));
  CHECK(running.status == JobStatus::kFailed);
  CHECK(running.deleting);
  CHECK(*running.finished_at == T("2026-05-12T10:03:00Z"));
  CHECK(*running.started_at == At(1));

  JobStatusInfo succeeded =
      Map(App(History({"Submitted", "DriverReady", "Succeeded", "ResourceReleased"}), meta));
  CHECK(succeeded.status == JobStatus::kSucceeded);
  CHECK(*succeeded.finished_at == At(2));

  JobStatusInfo queued = Map(App(History({"Submitted"}), meta));
  CHECK(queued.status == JobStatus::kFailed);
  CHECK_FALSE(queued.started_at.has_value());

  JobStatusInfo no_status = Map(App("", meta), nullptr, kNow + absl::Hours(1));
  CHECK(no_status.status == JobStatus::kFailed);
  CHECK_FALSE(no_status.no_status_timed_out);  // being deleted already
  CHECK(*no_status.finished_at == T("2026-05-12T10:03:00Z"));
}

TEST_CASE("A cancel annotation other than true is not a cancel") {
  AppMeta meta;
  meta.cancel_requested = true;
  meta.cancel_value = "yes";
  meta.deletion = "2026-05-12T10:03:00Z";
  CHECK(Map(App(History({"Submitted", "DriverReady"}), meta)).status == JobStatus::kFailed);
}

// ---- Times ----

TEST_CASE(
    "startedAt: the driver pod first - then history containers - then the first started entry") {
  std::string failed_with_pod_status =
      State("Failed", "2026-05-12T10:00:40Z",
            PodStatus({{"spark-kubernetes-driver",
                        Terminated("2026-05-12T10:00:03Z", "2026-05-12T10:00:39Z")}}));
  std::string status = Status({{"0", State("Submitted", "2026-05-12T10:00:00Z")},
                               {"1", State("DriverReady", "2026-05-12T10:00:05Z")},
                               {"2", failed_with_pod_status},
                               {"3", State("ResourceReleased", "2026-05-12T10:00:41Z")}});
  // No pod: the earliest container start of the history.
  JobStatusInfo info = Map(App(status));
  CHECK(*info.started_at == At(3));
  CHECK(*info.finished_at == At(39));  // the outcome's container finish
  // A pod: its container's times win.
  DriverPod pod = ProjectPod(Pod(
      "d", "2026-05-12T10:00:01Z", "Failed",
      {{"spark-kubernetes-driver", Terminated("2026-05-12T10:00:04Z", "2026-05-12T10:00:38Z")}}));
  info = Map(App(status), &pod);
  CHECK(*info.started_at == At(4));
  CHECK(*info.finished_at == At(38));
}

TEST_CASE("startedAt is the earliest container start across the history") {
  auto failed = [](const char* started, const char* finished, const char* at) {
    return State("Failed", at,
                 PodStatus({{"spark-kubernetes-driver", Terminated(started, finished)}}));
  };
  std::string status =
      Status({{"1", failed("2026-05-12T10:00:20Z", "2026-05-12T10:00:30Z", "2026-05-12T10:00:31Z")},
              {"2", State("ScheduledToRestart", "2026-05-12T10:00:32Z")},
              {"3", failed("2026-05-12T10:00:40Z", "2026-05-12T10:00:50Z", "2026-05-12T10:00:51Z")},
              {"4", State("ResourceReleased", "2026-05-12T10:00:52Z")}});
  JobStatusInfo info = Map(App(status));
  CHECK(*info.started_at == At(20));
  CHECK(*info.finished_at == At(50));  // the newest outcome's finish
}

TEST_CASE("A running driver pod gives the start of a STARTED job") {
  DriverPod pod = ProjectPod(Pod("d", "2026-05-12T10:00:01Z", "Running",
                                 {{"spark-kubernetes-driver", Running("2026-05-12T10:00:02Z")}}));
  JobStatusInfo info =
      Map(App(History({"Submitted", "DriverRequested", "DriverStarted", "DriverReady"})), &pod);
  CHECK(info.status == JobStatus::kStarted);
  CHECK(*info.started_at == At(2));
}

TEST_CASE("finishedAt falls back to the outcome's transition time") {
  DriverPod running_pod =
      ProjectPod(Pod("d", "2026-05-12T10:00:01Z", "Running",
                     {{"spark-kubernetes-driver", Running("2026-05-12T10:00:01Z")}}));
  JobStatusInfo info = Map(
      App(History({"Submitted", "DriverReady", "Succeeded", "ResourceReleased"})), &running_pod);
  CHECK(*info.started_at == At(1));
  CHECK(*info.finished_at == At(2));
}

TEST_CASE("Sidecars without a driver-named container: the operator's times") {
  DriverPod pod =
      ProjectPod(Pod("d", "2026-05-12T10:00:01Z", "Succeeded",
                     {{"istio-proxy", Terminated("2026-05-12T10:00:00Z", "2026-05-12T10:00:59Z")},
                      {"main", Terminated("2026-05-12T10:00:00Z", "2026-05-12T10:00:59Z")}}));
  JobStatusInfo info =
      Map(App(History({"Submitted", "DriverReady", "Succeeded", "ResourceReleased"})), &pod);
  CHECK(*info.started_at == At(1));
  CHECK(*info.finished_at == At(2));
}

TEST_CASE("Unparsable times are null - not errors") {
  std::string status = Status({{"0", State("Submitted", "bad")},
                               {"1", State("DriverReady", "also bad")},
                               {"2", State("Succeeded", "2026-13-45T99:00:00Z")}});
  JobStatusInfo info = Map(App(status));
  CHECK(info.status == JobStatus::kSucceeded);
  CHECK_FALSE(info.started_at.has_value());
  CHECK_FALSE(info.finished_at.has_value());
}

TEST_CASE("A job that never started has no start time") {
  JobStatusInfo info = Map(
      App(History({"Submitted", "DriverRequested", "DriverStartTimedOut", "ResourceReleased"})));
  CHECK(info.status == JobStatus::kFailed);
  CHECK_FALSE(info.started_at.has_value());
  CHECK(*info.finished_at == At(2));
}

// ---- Orphan drivers and adoption ----

TEST_CASE("An alive driver of a FAILED job is deleted: a terminated one is kept") {
  JobStatusInfo failed;
  failed.status = JobStatus::kFailed;
  DriverPod pod;
  for (const char* phase : {"Pending", "Running", "Unknown", ""}) {
    pod.phase = phase;
    INFO(phase);
    CHECK(ShouldDeleteOrphanDriver(failed, pod, ""));
  }
  pod.phase = "Failed";
  CHECK_FALSE(ShouldDeleteOrphanDriver(failed, pod, ""));
  pod.phase = "Succeeded";
  CHECK_FALSE(ShouldDeleteOrphanDriver(failed, pod, ""));
  pod.phase = "Running";
  pod.deleting = true;
  CHECK_FALSE(ShouldDeleteOrphanDriver(failed, pod, ""));
  pod.deleting = false;
  for (JobStatus other : {JobStatus::kQueued, JobStatus::kStarted, JobStatus::kSucceeded,
                          JobStatus::kCancelling, JobStatus::kCancelled}) {
    JobStatusInfo info;
    info.status = other;
    CHECK_FALSE(ShouldDeleteOrphanDriver(info, pod, ""));
  }
}

TEST_CASE("409: the same job's live app is adopted - anything else ALREADY_EXISTS") {
  AppMeta meta;
  meta.job_id = "42";
  AppProjection mine = Project(App("", meta));
  CHECK(CheckAdoption(mine, "42").ok());
  absl::Status other = CheckAdoption(mine, "43");
  CHECK(other.code() == absl::StatusCode::kAlreadyExists);
  CHECK(std::string(other.message()).find("use a different namePrefix") != std::string::npos);
  meta.deletion = "2026-05-12T10:03:00Z";
  absl::Status deleting = CheckAdoption(Project(App("", meta)), "42");
  CHECK(deleting.code() == absl::StatusCode::kAlreadyExists);
  CHECK(std::string(deleting.message()).find("being deleted") != std::string::npos);
  meta = AppMeta();
  meta.job_id = "";
  CHECK(CheckAdoption(Project(App("", meta)), "42").code() == absl::StatusCode::kAlreadyExists);
}

TEST_CASE("Job status names and terminality") {
  CHECK(JobStatusName(JobStatus::kQueued) == "QUEUED");
  CHECK(JobStatusName(JobStatus::kStarted) == "STARTED");
  CHECK(JobStatusName(JobStatus::kSucceeded) == "SUCCEEDED");
  CHECK(JobStatusName(JobStatus::kFailed) == "FAILED");
  CHECK(JobStatusName(JobStatus::kCancelling) == "CANCELLING");
  CHECK(JobStatusName(JobStatus::kCancelled) == "CANCELLED");
  CHECK(IsTerminal(JobStatus::kSucceeded));
  CHECK(IsTerminal(JobStatus::kFailed));
  CHECK(IsTerminal(JobStatus::kCancelled));
  CHECK_FALSE(IsTerminal(JobStatus::kQueued));
  CHECK_FALSE(IsTerminal(JobStatus::kStarted));
  CHECK_FALSE(IsTerminal(JobStatus::kCancelling));
}

}  // namespace
}  // namespace kje::spark::apache

namespace kje::spark::apache {
namespace {

using testing::App;
using testing::Pod;
using testing::Running;
using testing::State;
using testing::Status;
using testing::T;
using testing::Terminated;

const absl::Duration kNoStatusTimeout = absl::Minutes(10);
const absl::Time kLongAfter = T("2026-05-12T12:00:00Z");  // 2 h after the apps' creation

// App() with extra spec fields and labels spliced in.
std::string HeldApp(const std::string& status, const std::string& spec_extra,
                    const std::string& label_extra = "") {
  std::string json = App(status);
  const std::string spec = R"("spec":{)";
  json.insert(json.find(spec) + spec.size(), spec_extra.empty() ? "" : spec_extra + ",");
  const std::string label = R"("gravitino.apache.org/job-id":"1")";
  json.insert(json.find(label) + label.size(), label_extra);
  return json;
}

JobStatusInfo MapAt(const std::string& json, absl::Time now, const DriverPod* driver = nullptr) {
  absl::StatusOr<AppProjection> app = ProjectAppJson(json);
  REQUIRE(app.ok());
  return MapStatus(*app, driver, now, kNoStatusTimeout);
}

std::string Entries(const std::vector<std::string>& states, int first_key = 0) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (size_t i = 0; i < states.size(); ++i) {
    entries.push_back({std::to_string(first_key + i),
                       State(states[i], absl::StrCat("2026-05-12T10:00:", 10 + i, "Z"))});
  }
  return Status(entries);
}

TEST_CASE("Suspended after a start is STARTED - with its reason - and no unknown-state warning") {
  JobStatusInfo info = MapAt(
      App(Entries({"Submitted", "DriverRequested", "DriverReady", "RunningHealthy", "Suspended"})),
      kLongAfter);
  CHECK(info.status == JobStatus::kStarted);
  CHECK(info.operator_state == "Suspended");
  CHECK(info.suspended);
  CHECK(info.suspend_reason == "SpecSuspend");  // absent means SpecSuspend
  CHECK_THAT(info.message, Catch::Contains("suspendReason SpecSuspend"));
  CHECK_FALSE(info.unknown_state);
  CHECK_FALSE(info.is_stopped);
  CHECK_FALSE(info.no_status_timed_out);
  CHECK_FALSE(info.finished_at.has_value());
}

TEST_CASE("Suspended before any start is QUEUED - a Kueue eviction says so") {
  std::string status = R"({"stateTransitionHistory":{"0":{"currentStateSummary":"Submitted"},
      "1":{"currentStateSummary":"DriverRequested"},"2":{"currentStateSummary":"Suspended",
      "message":"Evicted by Kueue","suspendReason":"KueueEviction"}},
      "currentState":{"currentStateSummary":"Suspended","message":"Evicted by Kueue",
      "suspendReason":"KueueEviction"}})";
  JobStatusInfo info = MapAt(App(status), kLongAfter);
  CHECK(info.status == JobStatus::kQueued);
  CHECK(info.suspend_reason == "KueueEviction");
  CHECK(info.message == "Evicted by Kueue (suspendReason KueueEviction)");
  CHECK_FALSE(info.unknown_state);
}

TEST_CASE("Suspended never triggers the orphan-driver deletion") {
  DriverPod alive;
  alive.phase = "Running";
  // Deleted by someone else while suspended: FAILED by the walk-back, but the driver is the
  // operator's to remove.
  testing::AppMeta meta;
  meta.deletion = "2026-05-12T10:01:00Z";
  JobStatusInfo info = MapAt(App(Entries({"Submitted", "Suspended"}), meta), kLongAfter, &alive);
  CHECK(info.status == JobStatus::kFailed);
  CHECK_FALSE(ShouldDeleteOrphanDriver(info, alive, ""));
  JobStatusInfo forced;
  forced.status = JobStatus::kFailed;
  forced.suspended = true;
  CHECK_FALSE(ShouldDeleteOrphanDriver(forced, alive, ""));
  forced.suspended = false;
  CHECK(ShouldDeleteOrphanDriver(forced, alive, ""));
}

TEST_CASE("#13700: a status without a readable state is QUEUED for good - no timeout") {
  for (const char* status :
       {R"({"currentState":{"currentStateSummary":7}})", R"({"stateTransitionHistory":{"a":{}}})",
        R"({"somethingNew":{"x":1}})", R"({"currentAttemptSummary":{"attemptInfo":{"id":0}}})"}) {
    INFO(status);
    JobStatusInfo info = MapAt(App(status), kLongAfter);
    CHECK(info.status == JobStatus::kQueued);
    CHECK_FALSE(info.no_status_timed_out);
    CHECK(info.operator_state.empty());
  }
  // Missing or empty: the no-status timeout still applies.
  CHECK(MapAt(App(""), kLongAfter).no_status_timed_out);
  CHECK(MapAt(App("{}"), kLongAfter).no_status_timed_out);
}

TEST_CASE("No status while spec.suspend is true or a Kueue queue holds it: QUEUED - no timeout") {
  JobStatusInfo suspended = MapAt(HeldApp("", R"("suspend":true)"), kLongAfter);
  CHECK(suspended.status == JobStatus::kQueued);
  CHECK(suspended.held);
  CHECK_FALSE(suspended.no_status_timed_out);

  JobStatusInfo kueue =
      MapAt(HeldApp("", "", R"(,"kueue.x-k8s.io/queue-name":"team-a")"), kLongAfter);
  CHECK(kueue.status == JobStatus::kQueued);
  CHECK(kueue.held);
  CHECK_FALSE(kueue.no_status_timed_out);

  // spec.suspend false (what a 1.1 CRD defaults to) is no hold.
  JobStatusInfo not_held = MapAt(HeldApp("", R"("suspend":false)"), kLongAfter);
  CHECK(not_held.status == JobStatus::kFailed);
  CHECK(not_held.no_status_timed_out);
  CHECK_FALSE(not_held.held);
  CHECK(MapAt(HeldApp("", R"("suspend":"true")"), kLongAfter).no_status_timed_out);

  // A held app being cancelled is still CANCELLING, then CANCELLED once deleted.
  std::string json = HeldApp("", R"("suspend":true)");
  json.replace(
      json.find(R"("gravitino.apache.org/metalake":"ml")"),
      std::string(R"("gravitino.apache.org/metalake":"ml")").size(),
      R"("gravitino.apache.org/metalake":"ml","gravitino.apache.org/cancel-requested":"true")");
  CHECK(MapAt(json, kLongAfter).status == JobStatus::kCancelling);
}

TEST_CASE("A resumed app maps from its current attempt: QUEUED - STARTED - SUCCEEDED") {
  // Attempt 0 ran and was suspended; the resume trimmed its history into previousAttemptSummary.
  const std::string previous = R"("previousAttemptSummary":{"attemptInfo":{"id":0},
      "stateTransitionHistory":{"0":{"currentStateSummary":"Submitted"},
      "1":{"currentStateSummary":"DriverRequested"},"2":{"currentStateSummary":"DriverReady",
      "lastTransitionTime":"2026-05-12T10:00:02Z"},"3":{"currentStateSummary":"RunningHealthy"},
      "4":{"currentStateSummary":"Suspended"}}},"currentAttemptSummary":{"attemptInfo":{"id":1}})";
  auto resumed = [&](const std::vector<std::string>& states) {
    std::string status = Entries(states, 5);
    status.insert(status.size() - 1, "," + previous);
    return App(status);
  };
  absl::StatusOr<AppProjection> app = ProjectAppJson(resumed({"Submitted"}));
  REQUIRE(app.ok());
  CHECK(StatusView(*app).attempt_id() == 1);
  JobStatusInfo queued = MapAt(resumed({"Submitted"}), kLongAfter);
  CHECK(queued.status == JobStatus::kQueued);
  CHECK_FALSE(queued.started_at.has_value());  // the new attempt hasn't started

  JobStatusInfo started =
      MapAt(resumed({"Submitted", "DriverRequested", "DriverReady"}), kLongAfter);
  CHECK(started.status == JobStatus::kStarted);
  REQUIRE(started.started_at.has_value());
  CHECK(*started.started_at == T("2026-05-12T10:00:12Z"));

  JobStatusInfo succeeded =
      MapAt(resumed({"Submitted", "DriverRequested", "DriverReady", "RunningHealthy", "Succeeded",
                     "TerminatedWithoutReleaseResources"}),
            kLongAfter);
  CHECK(succeeded.status == JobStatus::kSucceeded);
  REQUIRE(succeeded.finished_at.has_value());
  CHECK(*succeeded.finished_at == T("2026-05-12T10:00:14Z"));
}

TEST_CASE("The app's driver container gives the times - and the sidecar doesn't keep it alive") {
  std::string app =
      HeldApp(Entries({"Submitted", "DriverRequested", "DriverReady", "RunningHealthy", "Failed"}),
              R"("sparkConf":{"spark.kubernetes.driver.podTemplateContainerName":"main"})");
  absl::StatusOr<AppProjection> projected = ProjectAppJson(app);
  REQUIRE(projected.ok());
  CHECK(projected->driver_container() == "main");
  rapidjson::Document pod_json;
  pod_json.Parse(Pod("d", "2026-05-12T10:00:01Z", "Running",
                     {{"main", Terminated("2026-05-12T10:00:03Z", "2026-05-12T10:00:09Z")},
                      {"log-shipper", Running("2026-05-12T10:00:03Z")}})
                     .c_str());
  absl::StatusOr<DriverPod> pod = ProjectDriverPod(pod_json);  // as the executor does today
  REQUIRE(pod.ok());
  JobStatusInfo info = MapAt(app, kLongAfter, &*pod);
  CHECK(info.status == JobStatus::kFailed);
  REQUIRE(info.started_at.has_value());
  CHECK(*info.started_at == T("2026-05-12T10:00:03Z"));
  REQUIRE(info.finished_at.has_value());
  CHECK(*info.finished_at == T("2026-05-12T10:00:09Z"));
  CHECK_FALSE(ShouldDeleteOrphanDriver(info, *pod,
                                       projected->driver_container()));  // its log stays readable

  // The Java executor's own case: a FAILED job whose driver container still runs is deleted.
  rapidjson::Document live_json;
  live_json.Parse(Pod("d", "2026-05-12T10:00:01Z", "Running",
                      {{"main", Running("2026-05-12T10:00:03Z")},
                       {"log-shipper", Running("2026-05-12T10:00:03Z")}})
                      .c_str());
  absl::StatusOr<DriverPod> live = ProjectDriverPod(live_json);
  REQUIRE(live.ok());
  CHECK(ShouldDeleteOrphanDriver(MapAt(app, kLongAfter, &*live), *live,
                                 projected->driver_container()));
}

// ---- Restarts: a failed attempt the operator restarts is not the end ----

// `app` with spec.applicationTolerations.restartConfig and the current attempt's counters.
std::string WithRestart(std::string app, const std::string& restart_config, int attempt) {
  const std::string spec = R"("spec":{)";
  app.replace(
      app.find(spec), spec.size(),
      absl::StrCat(spec, R"("applicationTolerations":{"restartConfig":)", restart_config, "},"));
  const std::string status = R"("status":{)";
  app.replace(app.find(status), status.size(),
              absl::StrCat(status, R"("currentAttemptSummary":{"attemptInfo":{"id":)", attempt,
                           R"(,"restartCounter":)", attempt, "}},"));
  return app;
}

TEST_CASE("A failed attempt with restarts left is STARTED, not final") {
  const std::string config =
      R"({"restartPolicy":"OnFailure","maxRestartAttempts":1,"restartBackoffMillis":5000})";
  const std::string failed =
      App(History({"Submitted", "DriverRequested", "DriverStarted", "DriverReady", "Failed"}));
  JobStatusInfo first = Map(WithRestart(failed, config, 0));
  CHECK(first.status == JobStatus::kStarted);
  CHECK_FALSE(first.finished_at.has_value());
  CHECK_FALSE(first.is_stopped);
  CHECK(RunDetailsOf(Project(WithRestart(failed, config, 0))).attempts() == 1);
  // The second attempt's failure used the one restart: FAILED.
  JobStatusInfo last = Map(WithRestart(failed, config, 1));
  CHECK(last.status == JobStatus::kFailed);
  CHECK(last.is_stopped);
  CHECK(RunDetailsOf(Project(WithRestart(failed, config, 1))).attempts() == 2);
  // Never (the default) and a success under OnFailure are final at once.
  CHECK(Map(failed).status == JobStatus::kFailed);
  const std::string succeeded =
      App(History({"Submitted", "DriverRequested", "DriverStarted", "DriverReady", "Succeeded"}));
  CHECK(Map(WithRestart(succeeded, config, 0)).status == JobStatus::kSucceeded);
  // Always restarts a success too, while restarts are left.
  CHECK(Map(WithRestart(succeeded, R"({"restartPolicy":"Always"})", 0)).status ==
        JobStatus::kStarted);
}

TEST_CASE("The operator's limits decide whether a failure restarts") {
  const std::string failed = App(History({"Submitted", "DriverRequested", "Failed"}));
  const std::string timed_out =
      App(History({"Submitted", "DriverRequested", "DriverStartTimedOut"}));
  // The default limit is 3 restarts.
  CHECK(Map(WithRestart(failed, R"({"restartPolicy":"OnFailure"})", 2)).status ==
        JobStatus::kStarted);
  CHECK(Map(WithRestart(failed, R"({"restartPolicy":"OnFailure"})", 3)).status ==
        JobStatus::kFailed);
  // OnInfrastructureFailure: only the scheduling failure and the timeouts restart.
  const std::string infra = R"({"restartPolicy":"OnInfrastructureFailure"})";
  CHECK(Map(WithRestart(failed, infra, 0)).status == JobStatus::kFailed);
  CHECK(Map(WithRestart(timed_out, infra, 0)).status == JobStatus::kStarted);
  // maxRestartOnFailure bounds consecutive failures.
  std::string app = WithRestart(
      failed, R"({"restartPolicy":"OnFailure","maxRestartAttempts":9,"maxRestartOnFailure":1})", 1);
  app.replace(app.find(R"("restartCounter":1)"), 18,
              R"("restartCounter":1,"failureRestartCounter":1)");
  CHECK(Map(app).status == JobStatus::kFailed);
}

TEST_CASE("The restart class survives the projection's packing") {
  ApacheStatus status;
  status.attempt_id = 2;
  status.suspend_reason = "SpecSuspend";
  status.queue = "team-a";
  for (Restart restart :
       {Restart::kNone, Restart::kOnFailure, Restart::kOnInfrastructureFailure, Restart::kAlways}) {
    status.restart = restart;
    AppFields fields;
    SetStatus(status, fields);
    ApacheStatus back = StatusOf(AppProjection(fields));
    CHECK(back.restart == restart);
    CHECK(back.suspend_reason == "SpecSuspend");
    CHECK(back.queue == "team-a");
    CHECK(back.attempt_id == 2);
  }
}

}  // namespace
}  // namespace kje::spark::apache
