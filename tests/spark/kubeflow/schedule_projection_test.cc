#include "spark/kubeflow/schedule_projection.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "spark/app_projection.h"
#include "test_json.h"

namespace kje::spark::kubeflow {
namespace {

constexpr char kScheduled[] = R"({
  "apiVersion": "sparkoperator.k8s.io/v1beta2", "kind": "ScheduledSparkApplication",
  "metadata": {"name": "nightly-pi", "namespace": "spark-jobs", "uid": "3f1c-77",
    "resourceVersion": "812", "creationTimestamp": "2026-05-12T10:00:00Z",
    "labels": {"app.kubernetes.io/managed-by": "gravitino", "gravitino.apache.org/job-id": "77"}},
  "spec": {"schedule": "30 2 * * *", "timeZone": "Europe/Berlin", "concurrencyPolicy": "Forbid",
    "successfulRunHistoryLimit": 3, "failedRunHistoryLimit": 0, "suspend": true,
    "template": {"type": "Scala", "sparkVersion": "3.5.6"}},
  "status": {"scheduleState": "Scheduled", "reason": "",
    "lastRun": "2026-05-13T00:30:00Z", "nextRun": "2026-05-14T00:30:00Z",
    "lastRunName": "nightly-pi-1778632200000000000",
    "pastSuccessfulRunNames": ["nightly-pi-1778632200000000000", "nightly-pi-1778545800000000000"],
    "pastFailedRunNames": ["nightly-pi-1778459400000000000"]}
})";

std::string Message(const absl::StatusOr<Schedule>& projection) {
  REQUIRE_FALSE(projection.ok());
  CHECK(projection.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(projection.status().message());
}

// A schedule with `spec` and `status` members (JSON text, "" for none).
std::string With(const std::string& spec, const std::string& status = "") {
  std::string out = R"({"metadata":{"name":"s","namespace":"n"})";
  if (!spec.empty()) absl::StrAppend(&out, R"(,"spec":)", spec);
  if (!status.empty()) absl::StrAppend(&out, R"(,"status":)", status);
  return out + "}";
}

TEST_CASE("a scheduled application projects its spec and status", "[kubeflow][schedule]") {
  absl::StatusOr<Schedule> s = ProjectScheduleJson(kScheduled);
  REQUIRE(s.ok());
  CHECK(s->name == "nightly-pi");
  CHECK(s->namespace_ == "spark-jobs");
  CHECK(s->uid == "3f1c-77");
  CHECK(s->resource_version == "812");
  CHECK(s->creation_time == 1778580000000);
  REQUIRE(s->labels.size() == 2);
  CHECK(s->labels[0].first == "app.kubernetes.io/managed-by");
  CHECK(s->labels[0].second == "gravitino");
  CHECK(s->labels[1].second == "77");
  CHECK(s->spec.cron == "30 2 * * *");
  CHECK(s->spec.time_zone == "Europe/Berlin");
  CHECK(s->spec.concurrency_policy == ConcurrencyPolicy::kForbid);
  CHECK(s->unrecognized_policy.empty());
  CHECK(s->spec.successful_run_history_limit == 3);
  CHECK(s->spec.failed_run_history_limit == 0);
  CHECK(s->spec.suspended);
  CHECK(CheckScheduleSpec(s->spec).ok());
  CHECK(s->state == "Scheduled");
  CHECK_FALSE(s->refused);
  CHECK(s->reason.empty());
  CHECK(s->last_run == 1778632200000);
  CHECK(s->next_run == 1778718600000);
  CHECK(s->last_run_name == "nightly-pi-1778632200000000000");
  CHECK(s->past_successful_run_names.size() == 2);
  CHECK(s->past_successful_run_names[1] == "nightly-pi-1778545800000000000");
  REQUIRE(s->past_failed_run_names.size() == 1);
  CHECK(s->past_failed_run_names[0] == "nightly-pi-1778459400000000000");
}

TEST_CASE("the operator's example schedule projects with the defaults", "[kubeflow][schedule]") {
  absl::StatusOr<Schedule> s =
      ProjectScheduleJson(testing::ReadTestData("kubeflow-spark-pi-scheduled.json"));
  REQUIRE(s.ok());
  CHECK(s->name == "spark-pi-scheduled");
  CHECK(s->namespace_ == "default");
  CHECK(s->uid.empty());
  CHECK(s->creation_time == kNoTime);
  CHECK(s->labels.empty());
  CHECK(s->spec.cron == "@every 3m");
  CHECK(s->spec.time_zone.empty());
  CHECK(s->spec.concurrency_policy == ConcurrencyPolicy::kAllow);
  CHECK(s->spec.successful_run_history_limit == kDefaultRunHistoryLimit);
  CHECK(s->spec.failed_run_history_limit == kDefaultRunHistoryLimit);
  CHECK_FALSE(s->spec.suspended);
  CHECK(CheckScheduleSpec(s->spec).ok());
  CHECK(s->state.empty());
  CHECK(s->last_run == kNoTime);
  CHECK(s->next_run == kNoTime);
  CHECK(s->last_run_name.empty());
  CHECK(s->past_successful_run_names.empty());
  CHECK(s->past_failed_run_names.empty());
}

TEST_CASE("stored policies and states outside the known ones are explicit",
          "[kubeflow][schedule]") {
  absl::StatusOr<Schedule> s = ProjectScheduleJson(With(R"({"schedule":"@daily"})"));
  REQUIRE(s.ok());
  CHECK(s->spec.concurrency_policy == ConcurrencyPolicy::kUnset);
  CHECK_FALSE(CheckScheduleSpec(s->spec).ok());

  s = ProjectScheduleJson(With(R"({"concurrencyPolicy":""})"));
  REQUIRE(s.ok());
  CHECK(s->spec.concurrency_policy == ConcurrencyPolicy::kUnset);

  s = ProjectScheduleJson(With(R"({"concurrencyPolicy":"MaybeSometimes",
      "successfulRunHistoryLimit":-2})",
                               R"({"scheduleState":"Paused","reason":"who knows"})"));
  REQUIRE(s.ok());
  CHECK(s->spec.concurrency_policy == ConcurrencyPolicy::kUnrecognized);
  CHECK(s->unrecognized_policy == "MaybeSometimes");
  CHECK(s->spec.successful_run_history_limit == -2);  // as stored, though the operator fails
  CHECK(s->state == "Paused");                        // as stored: a state this build doesn't know
  CHECK_FALSE(s->refused);
  CHECK(s->reason == "who knows");

  s = ProjectScheduleJson(
      With("", R"({"scheduleState":"FailedValidation","reason":"Invalid timezone: x"})"));
  REQUIRE(s.ok());
  CHECK(s->state == "FailedValidation");
  CHECK(s->refused);
  CHECK(s->reason == "Invalid timezone: x");
  s = ProjectScheduleJson(With("", R"({"scheduleState":"Validating"})"));
  REQUIRE(s.ok());
  CHECK(s->state == "Validating");
  CHECK_FALSE(s->refused);
  s = ProjectScheduleJson(With("", R"({"scheduleState":""})"));
  REQUIRE(s.ok());
  CHECK(s->state.empty());
}

TEST_CASE("missing and null fields are defaults", "[kubeflow][schedule]") {
  absl::StatusOr<Schedule> s = ProjectScheduleJson(R"({"metadata":{"name":"s",
      "namespace":"n","labels":null,"creationTimestamp":null},"spec":null,"status":{
      "lastRun":null,"nextRun":"","pastSuccessfulRunNames":null,"suspend":null}})");
  REQUIRE(s.ok());
  CHECK(s->labels.empty());
  CHECK(s->creation_time == kNoTime);
  CHECK(s->spec.cron.empty());
  CHECK(s->last_run == kNoTime);
  CHECK(s->next_run == kNoTime);
  CHECK(s->past_successful_run_names.empty());
}

TEST_CASE("a long reason is capped", "[kubeflow][schedule]") {
  const std::string reason(5000, 'r');
  absl::StatusOr<Schedule> s =
      ProjectScheduleJson(With("", absl::StrCat(R"({"reason":")", reason, R"("})")));
  REQUIRE(s.ok());
  CHECK(s->reason.size() <= kMaxMessageBytes + 3);
}

TEST_CASE("hostile schedules are errors naming the field", "[kubeflow][schedule]") {
  CHECK(absl::StrContains(Message(ProjectScheduleJson("{")), "isn't JSON"));
  CHECK(absl::StrContains(Message(ProjectScheduleJson("")), "isn't JSON"));
  CHECK(absl::StrContains(Message(ProjectScheduleJson("[]")), "JSON object"));
  CHECK(absl::StrContains(Message(ProjectScheduleJson("\"x\"")), "JSON object"));
  CHECK(absl::StrContains(Message(ProjectScheduleJson("{}")), "metadata.name"));
  CHECK(absl::StrContains(Message(ProjectScheduleJson(R"({"metadata":{"name":"s"}})")),
                          "metadata.namespace"));
  CHECK(absl::StrContains(Message(ProjectScheduleJson(R"({"metadata":"s"})")),
                          "field metadata isn't an object"));
  struct Case {
    std::string json;
    std::string field;
  };
  const std::string meta = R"({"metadata":{"name":"s","namespace":"n")";
  for (const Case& c : std::vector<Case>{
           {R"({"metadata":{"name":1,"namespace":"n"}})", "metadata.name"},
           {R"({"metadata":{"name":"s","namespace":["n"]}})", "metadata.namespace"},
           {meta + R"(,"uid":{}}})", "metadata.uid"},
           {meta + R"(,"resourceVersion":5}})", "metadata.resourceVersion"},
           {meta + R"(,"creationTimestamp":5}})", "metadata.creationTimestamp"},
           {meta + R"(,"creationTimestamp":"yesterday"}})", "metadata.creationTimestamp"},
           {meta + R"(,"labels":[]}})", "metadata.labels"},
           {meta + R"(,"labels":{"a":true}}})", "metadata.labels.\"a\""},
           {With("[]"), "spec"},
           {With(R"({"schedule":5})"), "spec.schedule"},
           {With(R"({"timeZone":false})"), "spec.timeZone"},
           {With(R"({"concurrencyPolicy":{}})"), "spec.concurrencyPolicy"},
           {With(R"({"successfulRunHistoryLimit":"1"})"), "spec.successfulRunHistoryLimit"},
           {With(R"({"successfulRunHistoryLimit":1.5})"), "spec.successfulRunHistoryLimit"},
           {With(R"({"failedRunHistoryLimit":4294967296})"), "spec.failedRunHistoryLimit"},
           {With(R"({"suspend":"true"})"), "spec.suspend"},
           {With(R"({"template":[]})"), "spec.template"},
           {With("", "7"), "status"},
           {With("", R"({"scheduleState":1})"), "status.scheduleState"},
           {With("", R"({"reason":[]})"), "status.reason"},
           {With("", R"({"lastRun":1778632200})"), "status.lastRun"},
           {With("", R"({"nextRun":"soon"})"), "status.nextRun"},
           {With("", R"({"lastRunName":{}})"), "status.lastRunName"},
           {With("", R"({"pastSuccessfulRunNames":"a"})"), "status.pastSuccessfulRunNames"},
           {With("", R"({"pastFailedRunNames":["a",1]})"), "status.pastFailedRunNames"},
       }) {
    INFO(c.json);
    CHECK(absl::StrContains(Message(ProjectScheduleJson(c.json)),
                            absl::StrCat("field ", c.field, " isn't")));
  }
}

}  // namespace
}  // namespace kje::spark::kubeflow
