#pragma once

// The ApplicationStateType values of kubeflow/spark-operator's v1beta2 SparkApplication
// (status.applicationState.state) and what the executor reads from its status.

#include <cstdint>
#include <string>
#include <string_view>

#include "spark/time_util.h"

namespace kje::spark::kubeflow {

enum class State : uint8_t {
  kNew = 0,  // "": created, not yet submitted
  kSubmitted,
  kRunning,
  kSucceeding,
  kCompleted,
  kFailing,
  kFailed,
  kSubmissionFailed,
  kPendingRerun,
  kInvalidating,
  kUnknown,  // the operator's UNKNOWN: the driver pod's phase is Unknown (e.g. a lost node)
  kSuspending,
  kSuspended,
  kResuming,
  kUnrecognized,  // a state this build doesn't know (a newer operator)
};

// Exact, case-sensitive match of the operator's spelling ("" is kNew); else kUnrecognized.
State ParseState(std::string_view name);
// The operator's spelling; "" for kNew and kUnrecognized.
std::string_view StateName(State state);
// COMPLETED or FAILED: the operator's own terminal states (every other one may still move,
// SUBMISSION_FAILED and FAILING included, which a restart policy retries).
bool IsTerminated(State state);

// What the projection keeps of a v1beta2 status.
struct KubeflowStatus {
  State state = State::kNew;
  // status.submissionID: one per submission attempt, also the current driver pod's
  // sparkoperator.k8s.io/submission-id label.
  std::string submission_id;
  std::string driver_pod_name;             // status.driverInfo.podName
  EpochMillis submission_time = kNoTime;   // status.lastSubmissionAttemptTime
  EpochMillis termination_time = kNoTime;  // status.terminationTime
  int64_t execution_attempts = 0;          // successful submissions of this spec
  // status.driverInfo.webUIAddress, else the UI service's in-cluster address
  // (`<webUIServiceName>.<namespace>.svc:<webUIPort>`); "" when the operator reports neither.
  std::string web_ui_address;
  // spec.restartPolicy.type is OnFailure or Always: the operator submits again after a failed
  // submission. Under Never (the service's, and the default) SUBMISSION_FAILED is the end.
  bool retries = false;
  // spec.batchSchedulerOptions.queue (YuniKorn, Volcano); "" for none.
  std::string queue;
  // status.executorState: the executors it lists, and those PENDING.
  int64_t executors = 0;
  int64_t executors_pending = 0;
};

}  // namespace kje::spark::kubeflow
