#include "spark/kubeflow/app_projection.h"

#include <catch2/catch.hpp>
#include <string>

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
  CHECK(app->kind() == OperatorKind::kKubeflow);
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
  CHECK(app->kubeflow().state == State::kFailed);
  CHECK(app->OperatorState() == "FAILED");
  CHECK(app->current_message() == "driver container failed with ExitCode: 3, Reason: Error");
  CHECK(app->kubeflow().submission_id == "5f0c");
  CHECK(app->kubeflow().driver_pod_name == "gravitino-job-7-driver");
  CHECK(app->kubeflow().submission_time == 1778580002000);
  CHECK(app->kubeflow().termination_time == 1778580180000);
  CHECK(app->kubeflow().execution_attempts == 2);
  CHECK(HasState(*app));
  CHECK(IsStopped(*app));
  CHECK_FALSE(IsHeldWithoutStatus(*app));
  CHECK(app->ApproximateBytes() > sizeof(AppProjection));
}

TEST_CASE("a v1beta2 application without status, or with New, isn't stopped", "[kubeflow]") {
  absl::StatusOr<AppProjection> bare = ProjectAppJson(
      R"({"metadata":{"name":"a","namespace":"n"},"spec":{"sparkConf":{
          "spark.kubernetes.driver.podTemplateContainerName":" drv "}}})");
  REQUIRE(bare.ok());
  CHECK_FALSE(bare->has_status());
  CHECK_FALSE(HasState(*bare));
  CHECK(bare->OperatorState().empty());
  CHECK(bare->driver_container() == "drv");
  absl::StatusOr<AppProjection> fresh = ProjectAppJson(
      R"({"metadata":{"name":"a","namespace":"n"},
          "status":{"applicationState":{"state":""},"driverInfo":{}}})");
  REQUIRE(fresh.ok());
  CHECK(HasState(*fresh));
  CHECK(fresh->kubeflow().state == State::kNew);
  CHECK_FALSE(IsStopped(*fresh));
  CHECK(fresh->driver_container() == "spark-kubernetes-driver");
}

TEST_CASE("malformed v1beta2 fields read as absent; no name is an error", "[kubeflow]") {
  absl::StatusOr<AppProjection> odd = ProjectAppJson(
      R"({"metadata":{"name":"a","namespace":"n"},
          "status":{"applicationState":{"state":7,"errorMessage":[]},"driverInfo":"x",
                    "submissionID":1,"executionAttempts":"2","terminationTime":"soon"}})");
  REQUIRE(odd.ok());
  CHECK(odd->kubeflow().state == State::kNew);
  CHECK(odd->current_message().empty());
  CHECK(odd->kubeflow().submission_id.empty());
  CHECK(odd->kubeflow().driver_pod_name.empty());
  CHECK(odd->kubeflow().execution_attempts == 0);
  CHECK(odd->kubeflow().termination_time == kNoTime);
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

}  // namespace
}  // namespace kje::spark::kubeflow
