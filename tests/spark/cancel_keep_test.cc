#include "spark/cancel_keep.h"

#include <catch2/catch.hpp>
#include <string>

#include "rapidjson/document.h"
#include "spark/deadline.h"
#include "spark/names.h"
#include "spark/operators.h"

namespace kje::spark {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1778580000);  // 2026-05-12T10:00:00Z

TEST_CASE("cancel keep: the mode is delete or keep, nothing else", "[cancel_keep]") {
  CHECK(*ParseCancelMode("delete", "cancelMode") == CancelMode::kDelete);
  CHECK(*ParseCancelMode("keep", "cancelMode") == CancelMode::kKeep);
  auto bad = ParseCancelMode("Keep", "cancelMode");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(bad.status().message() == "cancelMode must be \"delete\" or \"keep\", not \"Keep\"");
  CHECK(CancelModeName(CancelMode::kKeep) == "keep");
}

TEST_CASE("cancel keep: a reason is at most 1024 bytes, stored masked and escaped",
          "[cancel_keep]") {
  CHECK(CheckCancelReason(std::string(1024, 'x')).ok());
  const absl::Status long_reason = CheckCancelReason(std::string(1025, 'x'));
  CHECK(long_reason.code() == absl::StatusCode::kInvalidArgument);
  CHECK(long_reason.message() == "the cancel reason is 1025 bytes long; at most 1024 are kept");
  CHECK(StoredCancelReason("wrong input table") == "wrong input table");
  // A line break can't forge a log line; a secret typed into the reason isn't kept.
  CHECK(StoredCancelReason("a\nb") == "a\\x0Ab");
  const std::string masked = StoredCancelReason("spark.hadoop.fs.s3a.secret.key=hunter2");
  CHECK(masked.find("hunter2") == std::string::npos);
  // The longest reason, all escapes, is kept whole.
  const std::string worst = StoredCancelReason(std::string(1024, '\x01'));
  CHECK(worst.find("bytes") == std::string::npos);
  CHECK(worst.size() == 4 * 1024);
}

rapidjson::Document Parse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str());
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

TEST_CASE("cancel keep: the mark is one merge patch valid at the version judged", "[cancel_keep]") {
  KeptStop stop;
  stop.resource_version = "42";
  stop.cancel = true;
  stop.reason = "too slow";
  stop.at = kNow;
  stop.spec_patch = R"({"suspend":true})";
  rapidjson::Document patch = Parse(KeptStopPatch(stop));
  CHECK(std::string(patch["metadata"]["resourceVersion"].GetString()) == "42");
  const rapidjson::Value& annotations = patch["metadata"]["annotations"];
  CHECK(std::string(annotations[std::string(kAnnotationCancelRequested).c_str()].GetString()) ==
        "true");
  CHECK(std::string(annotations[std::string(kAnnotationCancelReason).c_str()].GetString()) ==
        "too slow");
  CHECK(std::string(annotations[std::string(kAnnotationStopKeptAt).c_str()].GetString()) ==
        "2026-05-12T10:00:00Z");
  CHECK(patch["spec"]["suspend"].GetBool());
  // A deadline's stop marks the deadline and no cancel.
  stop = KeptStop{};
  stop.resource_version = "7";
  stop.deadline = DeadlineKind::kRun;
  stop.at = kNow;
  patch = Parse(KeptStopPatch(stop));
  const rapidjson::Value& marks = patch["metadata"]["annotations"];
  CHECK_FALSE(marks.HasMember(std::string(kAnnotationCancelRequested).c_str()));
  CHECK(std::string(marks[std::string(kAnnotationDeadlineExceeded).c_str()].GetString()) == "run");
  CHECK_FALSE(patch.HasMember("spec"));
}

// An application of `operator_name` marked for a kept cancel, before (`stopped` false) and after
// the operator stopped its run, as each operator writes it.
std::string KeptApp(std::string_view operator_name, bool stopped, bool cancel = true) {
  std::string annotations = R"("gravitino.apache.org/stop-kept-at":"2026-05-12T10:00:00Z")";
  if (cancel) {
    annotations += R"(,"gravitino.apache.org/cancel-requested":"true",)"
                   R"("gravitino.apache.org/cancel-reason":"too slow")";
  } else {
    annotations += R"(,"gravitino.apache.org/deadline-exceeded":"run")";
  }
  const std::string metadata =
      R"("metadata":{"name":"gravitino-job-1","namespace":"jobs","uid":"u1","resourceVersion":"9",)"
      R"("creationTimestamp":"2026-05-12T09:50:00Z","labels":{"gravitino.apache.org/job-id":"1"},)"
      R"("annotations":{)" +
      annotations + "}}";
  if (operator_name == "apache") {
    std::string history =
        R"("0":{"currentStateSummary":"Submitted","lastTransitionTime":"2026-05-12T09:50:01Z"},)"
        R"("1":{"currentStateSummary":"DriverRequested","lastTransitionTime":"2026-05-12T09:50:02Z"},)"
        R"("2":{"currentStateSummary":"DriverStarted","lastTransitionTime":"2026-05-12T09:50:10Z"},)"
        R"("3":{"currentStateSummary":"DriverReady","lastTransitionTime":"2026-05-12T09:50:11Z"},)"
        R"("4":{"currentStateSummary":"RunningHealthy","lastTransitionTime":"2026-05-12T09:50:12Z"})";
    std::string current =
        R"({"currentStateSummary":"RunningHealthy","lastTransitionTime":"2026-05-12T09:50:12Z"})";
    if (stopped) {
      history +=
          R"(,"5":{"currentStateSummary":"Failed","lastTransitionTime":"2026-05-12T10:01:00Z",)"
          R"("message":"Driver removed."},)"
          R"("6":{"currentStateSummary":"ResourceReleased","lastTransitionTime":"2026-05-12T10:01:01Z"})";
      current =
          R"({"currentStateSummary":"ResourceReleased","lastTransitionTime":"2026-05-12T10:01:01Z"})";
    }
    return R"({"apiVersion":"spark.apache.org/v1","kind":"SparkApplication",)" + metadata +
           R"(,"spec":{"applicationTolerations":{"restartConfig":{"restartPolicy":"Never"}}},)"
           R"("status":{"currentState":)" +
           current + R"(,"stateTransitionHistory":{)" + history +
           R"(},"currentAttemptSummary":{"attemptInfo":{"id":0}}}})";
  }
  const std::string state = stopped ? "SUSPENDED" : "RUNNING";
  return R"({"apiVersion":"sparkoperator.k8s.io/v1beta2","kind":"SparkApplication",)" + metadata +
         R"(,"spec":{"suspend":true},"status":{"applicationState":{"state":")" + state +
         R"("},"submissionID":"s1","executionAttempts":1,)"
         R"("lastSubmissionAttemptTime":"2026-05-12T09:50:01Z",)"
         R"("driverInfo":{"podName":"gravitino-job-1-driver"}}})";
}

JobStatusInfo Mapped(const OperatorBackend& backend, const std::string& json) {
  auto app = backend.ProjectJson(json);
  REQUIRE(app.ok());
  JobStatusInfo info = backend.MapStatus(*app, nullptr, kNow + absl::Minutes(1), absl::Hours(1));
  ApplyDeadlines(*app, kNow + absl::Hours(1), info);
  ApplyKeptStop(*app, info);
  return info;
}

TEST_CASE(
    "cancel keep: CANCELLING until the operator stopped the run, then CANCELLED with the "
    "reason, on every operator",
    "[cancel_keep]") {
  const std::string_view name = GENERATE(from_range(OperatorNames()));
  INFO(name);
  auto backend = NewOperatorBackend(name);
  REQUIRE(backend.ok());
  const JobStatusInfo stopping = Mapped(**backend, KeptApp(name, false));
  CHECK(stopping.status == JobStatus::kCancelling);
  CHECK(stopping.cancel_reason == "too slow");
  CHECK_FALSE(stopping.finished_at);
  const JobStatusInfo stopped = Mapped(**backend, KeptApp(name, true));
  CHECK(stopped.status == JobStatus::kCancelled);
  CHECK(stopped.cancel_reason == "too slow");
  REQUIRE(stopped.finished_at);
  CHECK_FALSE(stopped.suspended);
  CHECK(*stopped.finished_at >= kNow);
}

TEST_CASE("cancel keep: a deadline's kept stop is FAILED with a finish time on every operator",
          "[cancel_keep]") {
  const std::string_view name = GENERATE(from_range(OperatorNames()));
  INFO(name);
  auto backend = NewOperatorBackend(name);
  REQUIRE(backend.ok());
  const JobStatusInfo stopped = Mapped(**backend, KeptApp(name, true, false));
  CHECK(stopped.status == JobStatus::kFailed);
  CHECK(stopped.deadline_exceeded == DeadlineKind::kRun);
  CHECK(stopped.cancel_reason.empty());
  REQUIRE(stopped.finished_at);
  CHECK_FALSE(stopped.suspended);
}

TEST_CASE("cancel keep: each operator stops the run its own way", "[cancel_keep]") {
  auto apache = NewOperatorBackend("apache");
  auto kubeflow = NewOperatorBackend("kubeflow");
  REQUIRE(apache.ok());
  REQUIRE(kubeflow.ok());
  // Apache: no suspend; the driver goes, and no restart follows.
  CHECK((*apache)->KeptStopSpecPatch().find("\"restartPolicy\":\"Never\"") != std::string::npos);
  CHECK((*apache)->KeptStopPodSelector("a") == (*apache)->DriverSelector("a"));
  // Kubeflow: suspended; the executors it leaves behind go by selector.
  CHECK((*kubeflow)->KeptStopSpecPatch() == R"({"suspend":true})");
  CHECK((*kubeflow)->KeptStopPodSelector("a") ==
        "sparkoperator.k8s.io/app-name=a,spark-role=executor");
}

}  // namespace
}  // namespace kje::spark
