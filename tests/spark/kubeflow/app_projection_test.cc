#include "spark/kubeflow/app_projection.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "spark/kubeflow/status_mapping.h"
#include "spark/time_util.h"

namespace kje::spark::kubeflow {
namespace {

constexpr char kApp[] = R"({
  "apiVersion": "sparkoperator.k8s.io/v1beta2", "kind": "SparkApplication",
  "metadata": {"name": "gravitino-job-7", "namespace": "team-a", "uid": "u-7",
    "resourceVersion": "99", "creationTimestamp": "2026-05-12T10:00:00Z",
    "labels": {"app.kubernetes.io/managed-by": "gravitino", "gravitino.apache.org/job-id": "7",
      "team": "etl"},
    "annotations": {"gravitino.apache.org/metalake": "ml",
      "gravitino.apache.org/cancel-requested": "true"}},
  "spec": {"type": "Python", "sparkVersion": "3.5.6", "mainApplicationFile": "local:///a.py",
    "suspend": true,
    "driver": {"template": {"spec": {"containers": [{"name": "main"}, {"name": "sidecar"}]}}},
    "executor": {}},
  "status": {"applicationState": {"state": "FAILED",
      "errorMessage": "driver container failed with ExitCode: 3, Reason: Error"},
    "driverInfo": {"podName": "gravitino-job-7-driver", "webUIPort": 4040},
    "submissionID": "5f0c", "lastSubmissionAttemptTime": "2026-05-12T10:00:02Z",
    "terminationTime": "2026-05-12T10:03:00Z", "executionAttempts": 2, "submissionAttempts": 2,
    "sparkApplicationId": "spark-abc", "executorState": {"x-exec-1": "FAILED"}}
})";

TEST_CASE("a v1beta2 application projects its metadata and status", "[kubeflow]") {
  absl::StatusOr<AppProjection> app = ProjectAppJson(kApp);
  REQUIRE(app.ok());
  CHECK(app->name() == "gravitino-job-7");
  CHECK(app->namespace_() == "team-a");
  CHECK(app->uid() == "u-7");
  CHECK(app->resource_version() == "99");
  CHECK(app->job_id() == "7");
  CHECK(app->metalake() == "ml");
  CHECK(app->managed_by_us());
  CHECK(app->cancel_requested());
  CHECK(app->suspend_requested());
  CHECK(app->labels().size() == 3);
  CHECK(app->has_status());
  CHECK(app->driver_container() == "main");
  CHECK(ViewOf(*app).state == State::kFailed);
  CHECK(OperatorState(*app) == "FAILED");
  CHECK(app->current_message() == "driver container failed with ExitCode: 3, Reason: Error");
  CHECK(ViewOf(*app).submission_id == "5f0c");
  CHECK(ViewOf(*app).driver_pod_name == "gravitino-job-7-driver");
  CHECK(ViewOf(*app).submission_time == 1778580002000);
  CHECK(ViewOf(*app).termination_time == 1778580180000);
  CHECK(ViewOf(*app).execution_attempts == 2);
  CHECK(HasState(*app));
  CHECK(IsStopped(*app));
  // The operator writes a status for a suspended app too: nothing is held without one.
  CHECK_FALSE(MapStatus(*app, nullptr, absl::Now(), absl::Minutes(10)).held);
  CHECK(app->ApproximateBytes() > sizeof(AppProjection));
}

TEST_CASE("a v1beta2 application without status, or with New, isn't stopped", "[kubeflow]") {
  absl::StatusOr<AppProjection> bare = ProjectAppJson(
      R"({"metadata":{"name":"a","namespace":"n"},"spec":{"sparkConf":{
          "spark.kubernetes.driver.podTemplateContainerName":" drv "}}})");
  REQUIRE(bare.ok());
  CHECK_FALSE(bare->has_status());
  CHECK_FALSE(HasState(*bare));
  CHECK(OperatorState(*bare).empty());
  CHECK(bare->driver_container() == "drv");
  absl::StatusOr<AppProjection> fresh = ProjectAppJson(
      R"({"metadata":{"name":"a","namespace":"n"},
          "status":{"applicationState":{"state":""},"driverInfo":{}}})");
  REQUIRE(fresh.ok());
  CHECK(HasState(*fresh));
  CHECK(ViewOf(*fresh).state == State::kNew);
  CHECK_FALSE(IsStopped(*fresh));
  CHECK(fresh->driver_container() == "spark-kubernetes-driver");
}

TEST_CASE("malformed v1beta2 fields read as absent; no name is an error", "[kubeflow]") {
  absl::StatusOr<AppProjection> odd = ProjectAppJson(
      R"({"metadata":{"name":"a","namespace":"n"},
          "status":{"applicationState":{"state":7,"errorMessage":[]},"driverInfo":"x",
                    "submissionID":1,"executionAttempts":"2","terminationTime":"soon"}})");
  REQUIRE(odd.ok());
  CHECK(ViewOf(*odd).state == State::kNew);
  CHECK(odd->current_message().empty());
  CHECK(ViewOf(*odd).submission_id.empty());
  CHECK(ViewOf(*odd).driver_pod_name.empty());
  CHECK(ViewOf(*odd).execution_attempts == 0);
  CHECK(ViewOf(*odd).termination_time == kNoTime);
  CHECK_FALSE(ProjectAppJson(R"({"metadata":{"namespace":"n"}})").ok());
  CHECK_FALSE(ProjectAppJson(R"({"metadata":{"name":"a","namespace":""}})").ok());
  CHECK_FALSE(ProjectAppJson("{").ok());
  std::string long_message(2000, 'x');
  absl::StatusOr<AppProjection> capped = ProjectAppJson(
      std::string(R"({"metadata":{"name":"a","namespace":"n"},"status":{"applicationState":)") +
      R"({"state":"FAILED","errorMessage":")" + long_message + R"("}}})");
  REQUIRE(capped.ok());
  CHECK(capped->current_message().size() <= kMaxMessageBytes + 3);
}

AppProjection Kubeflow(const std::string& json) {
  absl::StatusOr<AppProjection> app = ProjectAppJson(json);
  REQUIRE(app.ok());
  return *std::move(app);
}

RunDetails Details(const AppProjection& app) { return RunDetailsOf(app).ToDetails(); }

TEST_CASE("Kubeflow: what the status reports, the UI address preferred to the service",
          "[run_details]") {
  RunDetails none = Details(Kubeflow(R"({"metadata":{"name":"pi","namespace":"n"}})"));
  CHECK(none == RunDetails{});
  RunDetails reported = Details(Kubeflow(R"({"metadata":{"name":"pi","namespace":"n"},
      "status":{"applicationState":{"state":"RUNNING"},"sparkApplicationId":"spark-1f2e",
      "executionAttempts":2,"driverInfo":{"podName":"pi-driver","webUIServiceName":"pi-ui-svc",
      "webUIPort":4040,"webUIAddress":"10.96.12.7:4040"}}})"));
  CHECK(reported.spark_app_id == "spark-1f2e");
  CHECK(reported.attempts == 2);
  CHECK(reported.driver_ui_address == "10.96.12.7:4040");
  RunDetails service = Details(Kubeflow(R"({"metadata":{"name":"pi","namespace":"team-a"},
      "status":{"applicationState":{"state":"SUBMITTED"},"executionAttempts":1,
      "driverInfo":{"webUIServiceName":"pi-ui-svc","webUIPort":4040}}})"));
  CHECK(service.spark_app_id.empty());
  CHECK(service.attempts == 1);
  CHECK(service.driver_ui_address == "pi-ui-svc.team-a.svc:4040");
  for (const char* port : {"0", "-1", "70000", "\"4040\""}) {
    INFO(port);
    RunDetails bad = Details(Kubeflow(absl::StrCat(
        R"({"metadata":{"name":"pi","namespace":"n"},"status":{"driverInfo":{
        "webUIServiceName":"pi-ui-svc","webUIPort":)",
        port, "}}}")));
    CHECK(bad.driver_ui_address.empty());
  }
}

TEST_CASE("Packed: the status reads back as it was given") {
  KubeflowStatus status;
  status.state = State::kFailing;
  status.submission_id = "5f0c2c1e-sub";
  status.driver_pod_name = "gravitino-job-1-driver";
  status.submission_time = 1778580000100;
  status.termination_time = kNoTime;
  status.execution_attempts = 2;
  status.web_ui_address = "10.96.0.17:4040";
  status.retries = true;
  AppFields fields;
  fields.name = "a";
  fields.namespace_ = "n";
  fields.has_status = true;
  SetStatus(status, fields);
  const AppProjection app(fields);
  const KubeflowStatus back = StatusOf(app);
  CHECK(back.state == State::kFailing);
  CHECK(back.submission_id == status.submission_id);
  CHECK(back.driver_pod_name == status.driver_pod_name);
  CHECK(back.submission_time == 1778580000100);
  CHECK(back.termination_time == kNoTime);
  CHECK(back.execution_attempts == 2);
  CHECK(back.web_ui_address == status.web_ui_address);
  CHECK(back.retries);
  CHECK(OperatorState(app) == "FAILING");
  CHECK_FALSE(IsStopped(app));
  // A projection made without SetStatus reads as New with nothing reported.
  CHECK(ViewOf(AppProjection()).state == State::kNew);
  CHECK(ViewOf(AppProjection()).submission_id.empty());
}

TEST_CASE("a running v1beta2 application with executors pending says how many", "[kubeflow]") {
  absl::StatusOr<AppProjection> app = ProjectAppJson(R"({
    "metadata": {"name": "pi", "namespace": "jobs"},
    "status": {"applicationState": {"state": "RUNNING"},
      "executorState": {"pi-exec-1": "RUNNING", "pi-exec-2": "PENDING", "pi-exec-3": "PENDING",
                        "pi-exec-4": 7}}})");
  REQUIRE(app.ok());
  CHECK(ViewOf(*app).executors == 4);
  CHECK(ViewOf(*app).executors_pending == 2);
  CHECK(StatusOf(*app).executors_pending == 2);
  const JobStatusInfo info = MapStatus(*app, nullptr, absl::Now(), absl::Minutes(10));
  CHECK(info.status == JobStatus::kStarted);
  CHECK(info.executors_pending == "2 of 4 executors are pending");
  // None pending: nothing packed, nothing said.
  absl::StatusOr<AppProjection> running = ProjectAppJson(R"({
    "metadata": {"name": "pi", "namespace": "jobs"},
    "status": {"applicationState": {"state": "RUNNING"}, "executorState": {"e": "RUNNING"}}})");
  REQUIRE(running.ok());
  CHECK(ViewOf(*running).executors == 0);
  CHECK(MapStatus(*running, nullptr, absl::Now(), absl::Minutes(10)).executors_pending.empty());
}

}  // namespace
}  // namespace kje::spark::kubeflow
