#include "spark/kubeflow/status_mapping.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "spark/kubeflow/app_projection.h"
#include "test_json.h"

namespace kje::spark::kubeflow {
namespace {

using testing::Quoted;
using testing::T;

const absl::Duration kTimeout = absl::Minutes(10);
const absl::Time kNow = T("2026-05-12T10:05:00Z");  // 5 min after the apps' creation

struct Meta {
  std::string deletion;
  bool cancel_requested = false;
  std::string creation = "2026-05-12T10:00:00Z";
  std::string restart_policy;  // spec.restartPolicy.type; "" leaves it out (the operator's Never)
  std::string restart_counts;  // more of spec.restartPolicy, e.g. `,"onFailureRetries":1`
};

// A v1beta2 status as the operator writes it (driverInfo is always there).
std::string Status(const std::string& state, const std::string& error = "",
                   int execution_attempts = 1, const std::string& submission_id = "sub-2",
                   const std::string& termination = "") {
  std::string out = absl::StrCat(R"({"applicationState":{"state":)", Quoted(state));
  if (!error.empty()) absl::StrAppend(&out, R"(,"errorMessage":)", Quoted(error));
  absl::StrAppend(&out, R"(},"driverInfo":{"podName":"gravitino-job-1-driver","webUIPort":4040})",
                  R"(,"submissionID":)", Quoted(submission_id),
                  R"(,"lastSubmissionAttemptTime":"2026-05-12T10:00:02Z")",
                  R"(,"executionAttempts":)", execution_attempts,
                  R"(,"submissionAttempts":1,"sparkApplicationId":"spark-0123")");
  if (!termination.empty()) absl::StrAppend(&out, R"(,"terminationTime":)", Quoted(termination));
  return out + "}";
}

std::string App(const std::string& status, const Meta& meta = {}) {
  std::string metadata = absl::StrCat(
      R"({"name":"gravitino-job-1","namespace":"spark-jobs","uid":"u-1","resourceVersion":"42")",
      R"(,"creationTimestamp":)", Quoted(meta.creation),
      R"(,"labels":{"app.kubernetes.io/managed-by":"gravitino","gravitino.apache.org/job-id":"1"})",
      R"(,"annotations":{"gravitino.apache.org/metalake":"ml")");
  if (meta.cancel_requested) {
    absl::StrAppend(&metadata, R"(,"gravitino.apache.org/cancel-requested":"true")");
  }
  absl::StrAppend(&metadata, "}");
  if (!meta.deletion.empty()) {
    absl::StrAppend(&metadata, R"(,"deletionTimestamp":)", Quoted(meta.deletion));
  }
  absl::StrAppend(&metadata, "}");
  std::string out = absl::StrCat(
      R"({"apiVersion":"sparkoperator.k8s.io/v1beta2","kind":"SparkApplication","metadata":)",
      metadata,
      R"(,"spec":{"type":"Java","sparkVersion":"3.5.6","mainApplicationFile":"local:///x.jar")",
      R"(,"driver":{},"executor":{})",
      meta.restart_policy.empty()
          ? std::string()
          : absl::StrCat(R"(,"restartPolicy":{"type":)", Quoted(meta.restart_policy),
                         meta.restart_counts, "}"),
      "}");
  if (!status.empty()) absl::StrAppend(&out, R"(,"status":)", status);
  return out + "}";
}

AppProjection Project(const std::string& json) {
  absl::StatusOr<AppProjection> app = ProjectAppJson(json);
  REQUIRE(app.ok());
  return *std::move(app);
}

JobStatusInfo Map(const std::string& json, const DriverPod* driver = nullptr,
                  absl::Time now = kNow) {
  return kubeflow::MapStatus(Project(json), driver, now, kTimeout);
}

DriverPod PodWithLabels(const std::string& name, const std::string& submission_id,
                        const std::string& creation = "2026-05-12T10:00:03Z") {
  std::string json = absl::StrCat(
      R"({"metadata":{"name":)", Quoted(name), R"(,"creationTimestamp":)", Quoted(creation),
      R"(,"labels":{"spark-role":"driver","sparkoperator.k8s.io/app-name":"gravitino-job-1")",
      R"(,"sparkoperator.k8s.io/submission-id":)", Quoted(submission_id),
      R"(}},"spec":{"containers":[{"name":"spark-kubernetes-driver"}]},)",
      R"("status":{"phase":"Succeeded","containerStatuses":[{"name":"spark-kubernetes-driver",)",
      R"("state":{"terminated":{"exitCode":0,"startedAt":"2026-05-12T10:00:04Z",)",
      R"("finishedAt":"2026-05-12T10:01:04Z"}}}]}})");
  rapidjson::Document document;
  document.Parse(json.c_str());
  absl::StatusOr<DriverPod> pod = ProjectDriverPod(document);
  REQUIRE(pod.ok());
  return *std::move(pod);
}

// ---- The mapping table: every one of the 14 v1beta2 states, and one this build doesn't know --

TEST_CASE("every v1beta2 state maps to one job status", "[kubeflow]") {
  struct Row {
    std::string state;
    JobStatus status;
    bool terminal;             // the operator's own end
    bool finished = terminal;  // the job's end, which may come before the operator's
  };
  const std::vector<Row> rows = {
      {"", JobStatus::kQueued, false},
      {"SUBMITTED", JobStatus::kQueued, false},
      {"RUNNING", JobStatus::kStarted, false},
      {"SUCCEEDING", JobStatus::kStarted, false},
      {"COMPLETED", JobStatus::kSucceeded, true},
      {"FAILING", JobStatus::kStarted, false},
      {"FAILED", JobStatus::kFailed, true},
      // Under the default restart policy, Never, nothing submits it again.
      {"SUBMISSION_FAILED", JobStatus::kFailed, false, true},
      {"PENDING_RERUN", JobStatus::kQueued, false},
      {"INVALIDATING", JobStatus::kQueued, false},
      {"UNKNOWN", JobStatus::kStarted, false},
      {"SUSPENDING", JobStatus::kStarted, false},  // after a successful submission
      {"SUSPENDED", JobStatus::kStarted, false},
      {"RESUMING", JobStatus::kQueued, false},
  };
  REQUIRE(rows.size() == 14);
  for (const Row& row : rows) {
    INFO("state " << row.state);
    JobStatusInfo info = Map(App(Status(row.state, "", 1, "sub-2", "2026-05-12T10:01:30Z")));
    CHECK(info.status == row.status);
    CHECK(info.operator_state == row.state);
    CHECK(info.is_stopped == row.terminal);
    CHECK(info.finished_at.has_value() == row.finished);
    CHECK_FALSE(info.unknown_state);
    CHECK_FALSE(info.no_status_timed_out);
    CHECK(ParseState(row.state) != State::kUnrecognized);
    CHECK(StateName(ParseState(row.state)) == row.state);
  }
}

TEST_CASE("a suspended app that never ran is QUEUED, with the suspension in the message",
          "[kubeflow]") {
  for (const std::string state : {"SUSPENDING", "SUSPENDED"}) {
    JobStatusInfo info = Map(App(Status(state, "", /*execution_attempts=*/0)));
    CHECK(info.status == JobStatus::kQueued);
    CHECK(info.suspended);
    CHECK(info.suspend_reason == "SpecSuspend");
    CHECK(info.message == state + " (spec.suspend)");
    CHECK_FALSE(info.started_at.has_value());
  }
}

TEST_CASE("a state this build doesn't know maps conservatively and says so", "[kubeflow]") {
  JobStatusInfo ran = Map(App(Status("ARCHIVED", "moved away", 1)));
  CHECK(ran.status == JobStatus::kStarted);
  CHECK(ran.unknown_state);
  CHECK(ran.operator_state == "ARCHIVED");
  CHECK_FALSE(ran.finished_at.has_value());
  CHECK(ran.message ==
        "The operator reports state \"ARCHIVED\", which this executor doesn't know: it can't be "
        "told whether the job is over: moved away");
  JobStatusInfo never_ran = Map(App(Status("ARCHIVED", "", 0)));
  CHECK(never_ran.status == JobStatus::kQueued);
  // Case matters, as in the operator's Go constants.
  CHECK(Map(App(Status("completed"))).unknown_state);
}

TEST_CASE("errorMessage becomes the message", "[kubeflow]") {
  JobStatusInfo info = Map(App(Status("FAILED",
                                      "driver container failed with ExitCode: 1, Reason: "
                                      "Error")));
  CHECK(info.status == JobStatus::kFailed);
  CHECK(info.message == "driver container failed with ExitCode: 1, Reason: Error");
  JobStatusInfo submission = Map(App(Status("SUBMISSION_FAILED", "spark-submit: exit 1", 0)));
  CHECK(submission.status == JobStatus::kFailed);
  CHECK(submission.message == "spark-submit: exit 1");
}

TEST_CASE("a failed submission is the end under Never, and waits for the retry otherwise",
          "[kubeflow]") {
  for (const char* policy : {"", "Never"}) {
    Meta meta;
    meta.restart_policy = policy;
    INFO("restartPolicy " << policy);
    JobStatusInfo info = Map(App(Status("SUBMISSION_FAILED", "spark-submit: exit 1", 0), meta));
    CHECK(info.status == JobStatus::kFailed);
    CHECK(info.finished_at == T("2026-05-12T10:00:02Z"));  // lastSubmissionAttemptTime
    CHECK_FALSE(info.is_stopped);                          // the operator's FAILED is still to come
  }
  // submissionAttempts is 1: OnFailure resubmits while it is within onSubmissionFailureRetries.
  for (const auto& [policy, counts] : std::vector<std::pair<std::string, std::string>>{
           {"OnFailure", R"(,"onSubmissionFailureRetries":1)"},
           {"OnFailure", R"(,"onSubmissionFailureRetries":3,"onFailureRetries":0)"},
           {"Always", ""}}) {
    Meta meta;
    meta.restart_policy = policy;
    meta.restart_counts = counts;
    INFO("restartPolicy " << policy << counts);
    JobStatusInfo info = Map(App(Status("SUBMISSION_FAILED", "spark-submit: exit 1", 0), meta));
    CHECK(info.status == JobStatus::kQueued);
    CHECK_FALSE(info.finished_at.has_value());
  }
  // Its submission retries used up (or never given), OnFailure fails it as Never does.
  for (std::string counts : {"", R"(,"onSubmissionFailureRetries":0,"onFailureRetries":5)"}) {
    Meta meta;
    meta.restart_policy = "OnFailure";
    meta.restart_counts = counts;
    INFO("OnFailure" << counts);
    JobStatusInfo info = Map(App(Status("SUBMISSION_FAILED", "spark-submit: exit 1", 0), meta));
    CHECK(info.status == JobStatus::kFailed);
  }
}

TEST_CASE("a failed attempt the operator retries is not the end", "[kubeflow]") {
  Meta meta;
  meta.restart_policy = "OnFailure";
  meta.restart_counts = R"(,"onFailureRetries":1,"onFailureRetryInterval":5)";
  // FAILING, then PENDING_RERUN: neither is final, whatever the policy decides next.
  JobStatusInfo failing = Map(App(Status("FAILING", "driver container failed", 1), meta));
  CHECK(failing.status == JobStatus::kStarted);
  CHECK_FALSE(failing.finished_at.has_value());
  CHECK_FALSE(failing.is_stopped);
  JobStatusInfo rerun = Map(App(Status("PENDING_RERUN", "", 1), meta));
  CHECK(rerun.status == JobStatus::kQueued);
  CHECK_FALSE(rerun.is_stopped);
  // The second attempt: its own driver (by submission id), attempts 2.
  JobStatusInfo second = Map(App(Status("RUNNING", "", 2, "sub-3"), meta));
  CHECK(second.status == JobStatus::kStarted);
  CHECK(kubeflow::RunDetailsOf(Project(App(Status("RUNNING", "", 2, "sub-3"), meta))).attempts() ==
        2);
  JobStatusInfo failed = Map(App(Status("FAILED", "driver container failed", 2), meta));
  CHECK(failed.status == JobStatus::kFailed);
  CHECK(failed.is_stopped);
}

TEST_CASE("times: the driver container first, then the operator's", "[kubeflow]") {
  JobStatusInfo without_pod = Map(App(Status("COMPLETED", "", 1, "sub-2", "2026-05-12T10:01:30Z")));
  CHECK(without_pod.started_at == T("2026-05-12T10:00:02Z"));   // lastSubmissionAttemptTime
  CHECK(without_pod.finished_at == T("2026-05-12T10:01:30Z"));  // terminationTime
  DriverPod pod = PodWithLabels("gravitino-job-1-driver", "sub-2");
  JobStatusInfo with_pod =
      Map(App(Status("COMPLETED", "", 1, "sub-2", "2026-05-12T10:01:30Z")), &pod);
  CHECK(with_pod.started_at == T("2026-05-12T10:00:04Z"));
  CHECK(with_pod.finished_at == T("2026-05-12T10:01:04Z"));
  // Queued: nothing started yet, whatever the submission time.
  CHECK_FALSE(Map(App(Status("SUBMITTED"))).started_at.has_value());
  // A submission that never succeeded has no start, even once FAILED.
  CHECK_FALSE(Map(App(Status("FAILED", "spark-submit failed", 0))).started_at.has_value());
}

TEST_CASE("no status: QUEUED until the timeout, then FAILED for the caller to delete",
          "[kubeflow]") {
  JobStatusInfo fresh = Map(App(""));
  CHECK(fresh.status == JobStatus::kQueued);
  CHECK(fresh.operator_state.empty());
  CHECK_FALSE(fresh.held);
  JobStatusInfo late = Map(App(""), nullptr, kNow + absl::Minutes(6));
  CHECK(late.status == JobStatus::kFailed);
  CHECK(late.no_status_timed_out);
  // An app created suspended gets a status from this operator: spec.suspend holds nothing.
  std::string suspended = App("");
  suspended.replace(suspended.find(R"("driver":{})"), 11, R"("suspend":true,"driver":{})");
  AppProjection app = Project(suspended);
  CHECK(app.suspend_requested());
  CHECK(kubeflow::MapStatus(app, nullptr, kNow + absl::Minutes(6), kTimeout).no_status_timed_out);
}

TEST_CASE("deletion and cancellation", "[kubeflow]") {
  Meta deleting;
  deleting.deletion = "2026-05-12T10:04:00Z";
  CHECK(Map(App(Status("RUNNING"), deleting)).status == JobStatus::kFailed);
  CHECK(Map(App(Status("RUNNING"), deleting)).finished_at == T("2026-05-12T10:04:00Z"));
  CHECK(Map(App(Status("COMPLETED"), deleting)).status == JobStatus::kSucceeded);
  Meta cancelled = deleting;
  cancelled.cancel_requested = true;
  CHECK(Map(App(Status("RUNNING"), cancelled)).status == JobStatus::kCancelled);
  Meta cancelling;
  cancelling.cancel_requested = true;
  CHECK(Map(App(Status("RUNNING"), cancelling)).status == JobStatus::kCancelling);
  CHECK(Map(App(Status("SUBMITTED"), cancelling)).status == JobStatus::kCancelling);
  // A cancel that came after the end keeps the end visible only once deleted; stopped and
  // annotated is CANCELLED as for the Apache operator.
  CHECK(Map(App(Status("FAILED"), cancelling)).status == JobStatus::kCancelled);
}

TEST_CASE("a driver not started within the driver start timeout fails the job", "[kubeflow]") {
  // Submitted at 10:00:02; now is 10:05:00.
  AppProjection submitted = Project(App(Status("SUBMITTED")));
  JobStatusInfo waiting = kubeflow::MapStatus(submitted, nullptr, kNow, kTimeout, absl::Minutes(5));
  CHECK(waiting.status == JobStatus::kQueued);
  CHECK_FALSE(waiting.start_timed_out);
  JobStatusInfo late =
      kubeflow::MapStatus(submitted, nullptr, kNow, kTimeout, absl::Minutes(4) + absl::Seconds(57));
  CHECK(late.status == JobStatus::kFailed);
  CHECK(late.start_timed_out);
  CHECK_FALSE(late.finished_at.has_value());
  CHECK(late.message ==
        "The driver didn't start within 4m57s of its submission (spark.driverStartTimeoutMs); "
        "the application is deleted so that it can't start later");
  // Without a timeout (the default), it waits as the operator does.
  CHECK(Map(App(Status("SUBMITTED"))).status == JobStatus::kQueued);
  // Only a requested driver times out: a running one, a rerun pending or a cancelled job don't.
  for (const std::string state : {"RUNNING", "PENDING_RERUN", "SUBMISSION_FAILED", ""}) {
    INFO(state);
    CHECK_FALSE(
        kubeflow::MapStatus(Project(App(Status(state))), nullptr, kNow, kTimeout, absl::Seconds(1))
            .start_timed_out);
  }
  Meta cancelling;
  cancelling.cancel_requested = true;
  JobStatusInfo cancelled = kubeflow::MapStatus(Project(App(Status("SUBMITTED"), cancelling)),
                                                nullptr, kNow, kTimeout, absl::Seconds(1));
  CHECK(cancelled.status == JobStatus::kCancelling);
}

TEST_CASE("this operator's drivers are never deleted as orphans", "[kubeflow]") {
  JobStatusInfo failed = Map(App(Status("FAILED")));
  CHECK(failed.operator_removes_driver);
  DriverPod live = PodWithLabels("gravitino-job-1-driver", "sub-2");
  live.phase = "Running";
  live.containers.clear();  // no container status: alive as far as can be told
  REQUIRE(live.IsAlive());
  CHECK_FALSE(ShouldDeleteOrphanDriver(failed, live, ""));
}

TEST_CASE("the driver is the current attempt's pod, never an earlier attempt's", "[kubeflow]") {
  AppProjection app = Project(App(Status("RUNNING", "", 2, "sub-2")));
  std::vector<DriverPod> pods = {PodWithLabels("gravitino-job-1-driver", "sub-1"),
                                 PodWithLabels("gravitino-job-1-driver", "sub-2")};
  const DriverPod* picked = PickDriver(&app, pods);
  REQUIRE(picked != nullptr);
  CHECK(picked->LabelValue("sparkoperator.k8s.io/submission-id") == "sub-2");
  // Only the earlier attempt's pod left (the new one not created yet): no driver.
  std::vector<DriverPod> old_only = {PodWithLabels("gravitino-job-1-driver", "sub-1")};
  CHECK(PickDriver(&app, old_only) == nullptr);
  // A pod of the same attempt under another name isn't the one the status names.
  std::vector<DriverPod> renamed = {PodWithLabels("other-driver", "sub-2")};
  CHECK(PickDriver(&app, renamed) == nullptr);
  // Not submitted (no submissionID): nothing is its driver.
  AppProjection unsubmitted = Project(App(Status("", "", 0, "")));
  CHECK(PickDriver(&unsubmitted, pods) == nullptr);
  // Without the app, the newest pod (nothing to check it against).
  std::vector<DriverPod> two = {PodWithLabels("a", "sub-1", "2026-05-12T10:00:01Z"),
                                PodWithLabels("b", "sub-2", "2026-05-12T10:00:09Z")};
  REQUIRE(PickDriver(nullptr, two) != nullptr);
  CHECK(PickDriver(nullptr, two)->name == "b");
}

}  // namespace
}  // namespace kje::spark::kubeflow
