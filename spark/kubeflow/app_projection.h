#pragma once

// The projection of a kubeflow/spark-operator SparkApplication (sparkoperator.k8s.io/v1beta2):
// its status packed into the operator's part of the neutral AppProjection, and the questions
// about it that only this operator's rules answer.

#include <string_view>

#include "absl/status/statusor.h"
#include "rapidjson/document.h"
#include "spark/app_projection.h"
#include "spark/kubeflow/app_state.h"
#include "spark/run_details.h"

namespace kje::spark::kubeflow {

// ProjectMetadata's fields and errors, plus status.applicationState (its errorMessage as
// current_message), submissionID, driverInfo.podName, lastSubmissionAttemptTime,
// terminationTime and executionAttempts; spec.suspend and spec.batchSchedulerOptions.queue; and
// the driver container:
// spark.kubernetes.driver.podTemplateContainerName, else the first container of
// spec.driver.template, else spark-kubernetes-driver.
absl::StatusOr<AppProjection> ProjectApp(const rapidjson::Value& app);
absl::StatusOr<AppProjection> ProjectAppJson(std::string_view json);

// Packs `status` into the operator's part of `fields`.
void SetStatus(const KubeflowStatus& status, AppFields& fields);

// KubeflowStatus as the projection keeps it, read in place; lives as long as the projection.
struct KubeflowView {
  State state = State::kNew;
  std::string_view submission_id;
  std::string_view driver_pod_name;
  EpochMillis submission_time = kNoTime;
  EpochMillis termination_time = kNoTime;
  int64_t execution_attempts = 0;
  std::string_view web_ui_address;
  bool retries = false;
  std::string_view queue;  // spec.batchSchedulerOptions.queue; "" for none
  int64_t executors = 0;   // status.executorState's entries
  int64_t executors_pending = 0;  // those PENDING
};
KubeflowView ViewOf(const AppProjection& app);
// The status back, unpacked (tests, and the round trip of a projection).
KubeflowStatus StatusOf(const AppProjection& app);

// The operator's spelling of the current state; "" without a status.
std::string_view OperatorState(const AppProjection& app);
// A v1beta2 status always carries a state ("" is the operator's New): any status is one.
bool HasState(const AppProjection& app);
// COMPLETED or FAILED.
bool IsStopped(const AppProjection& app);
// RUNNING, SUCCEEDING, FAILING or UNKNOWN: a driver pod of this submission has run.
bool IsStarted(const AppProjection& app);
// status.sparkApplicationId, executionAttempts, the UI address and driverInfo.podName, as the
// status reports them, and the queue: Kueue's label, else spec.batchSchedulerOptions.queue.
RunDetailsRef RunDetailsOf(const AppProjection& app);

}  // namespace kje::spark::kubeflow
