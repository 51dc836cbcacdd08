#pragma once

// A compact projection of a SparkApplication: the little the executor needs to answer Status,
// Cancel and Submit's adoption check. The informer cache holds one per application instead of
// its JSON (a status with stack traces and pod statuses is easily 20 KB).

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "rapidjson/document.h"
#include "spark/app_state.h"
#include "spark/kubeflow/app_state.h"
#include "spark/time_util.h"

namespace kje::spark {

// The id given to status.currentState when it is appended behind a trimmed history.
inline constexpr int64_t kCurrentStateId = std::numeric_limits<int64_t>::max();
// The message of the current state is kept up to this many bytes (cut on a UTF-8 boundary):
// SchedulingFailure carries whole Java stack traces.
inline constexpr size_t kMaxMessageBytes = 512;

// One entry of status.stateTransitionHistory.
struct StateEntry {
  int64_t id = 0;
  EpochMillis transition_time = kNoTime;  // lastTransitionTime
  // The driver container's times from lastObservedDriverStatus, when the entry has one.
  EpochMillis driver_started = kNoTime;
  EpochMillis driver_finished = kNoTime;
  AppState state = AppState::kUnknown;
};

// Whose SparkApplication this is: the status fields read differ.
enum class OperatorKind : uint8_t {
  kApache,    // spark.apache.org/v1: `history` and the fields after it
  kKubeflow,  // sparkoperator.k8s.io/v1beta2: `kubeflow`
};

struct AppProjection {
  OperatorKind kind = OperatorKind::kApache;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string job_id;    // label gravitino.apache.org/job-id, "" when absent
  std::string metalake;  // annotation gravitino.apache.org/metalake, "" when absent
  EpochMillis creation_time = kNoTime;
  // metadata.deletionTimestamp; kNoTime when absent or unparsable (`deleting` still tells).
  EpochMillis deletion_time = kNoTime;
  bool deleting = false;          // metadata.deletionTimestamp is set
  bool managed_by_us = false;     // label app.kubernetes.io/managed-by=gravitino
  bool cancel_requested = false;  // annotation cancel-requested is exactly "true"
  // The history sorted numerically by id, with status.currentState appended (id
  // kCurrentStateId) when the history doesn't end with it. Empty: no state yet.
  std::vector<StateEntry> history;
  // The spelling of the current state when this build doesn't know it (history.back() is
  // kUnknown, or kubeflow.state is kUnrecognized); empty otherwise, as AppStateName and
  // kubeflow::StateName give the known ones.
  std::string unknown_current_state;
  std::string current_message;  // status.currentState.message, capped at kMaxMessageBytes
  // metadata.labels in the object's order, for label selectors answered from memory.
  std::vector<std::pair<std::string, std::string>> labels;
  // A .status is there (a non-empty object, or anything else but null) even when no state in it
  // can be read: the operator wrote something this build doesn't understand.
  bool has_status = false;
  // Operator 1.1 holds these without a .status: spec.suspend is true, or the app waits for Kueue
  // admission (label kueue.x-k8s.io/queue-name).
  bool suspend_requested = false;
  bool kueue_queued = false;
  // status.currentState.suspendReason when the current state is Suspended (SpecSuspend when the
  // operator left it out); "" otherwise.
  std::string suspend_reason;
  // status.currentAttemptSummary.attemptInfo.id: a resume or a restart counts it up.
  int64_t attempt_id = 0;
  // The container the driver runs in: spark.kubernetes.driver.podTemplateContainerName, else the
  // name of the driver pod template's first container, else spark-kubernetes-driver.
  std::string driver_container;
  // The Spark application id as the operator reports or fixes it: kubeflow's
  // status.sparkApplicationId; for the Apache operator only spec.sparkConf's spark.app.id, which
  // it keeps (otherwise it derives the id from the name and the attempt: RunDetailsOf).
  std::string spark_app_id;
  // kubeflow/spark-operator's status (kind kKubeflow); its errorMessage is current_message and a
  // status that is there at all is has_status.
  kubeflow::KubeflowStatus kubeflow;

  // The operator's name of the current state; "" when there is no state.
  std::string OperatorState() const;
  // Approximate heap and inline bytes, for memory accounting in the cache.
  size_t ApproximateBytes() const;
};

// The fields every operator's SparkApplication has alike: metadata (names, uid, times, labels,
// the executor's labels and annotations) and whether a .status is there. INVALID_ARGUMENT when
// the value isn't an object with a non-empty metadata.name and metadata.namespace; every other
// field is optional and a malformed one reads as absent.
absl::StatusOr<AppProjection> ProjectMetadata(const rapidjson::Value& app);

// A message as the projection keeps it: at most kMaxMessageBytes, cut on a UTF-8 boundary.
std::string CapMessage(std::string_view message);

// An apache/spark-kubernetes-operator SparkApplication; errors as ProjectMetadata's.
absl::StatusOr<AppProjection> ProjectApp(const rapidjson::Value& app);
absl::StatusOr<AppProjection> ProjectAppJson(std::string_view json);

// Parses `json` and projects the value with `project` (either operator's ProjectApp);
// INVALID_ARGUMENT when the text isn't JSON.
absl::StatusOr<AppProjection> ProjectJsonWith(
    std::string_view json,
    absl::FunctionRef<absl::StatusOr<AppProjection>(const rapidjson::Value&)> project);

// Whether the application has any state: no status means the operator hasn't reconciled it.
// These three answer for either operator's projection (AppProjection::kind).
bool HasState(const AppProjection& app);
// Whether a missing state is a hold rather than a loss: spec.suspend or a Kueue queue label (an
// operator 1.1 writes no status for either until it lets the app run).
bool IsHeldWithoutStatus(const AppProjection& app);
// Whether the current state is an outcome (Succeeded or a failure) or a stopped state.
bool IsStopped(const AppProjection& app);

}  // namespace kje::spark
