#pragma once

// The operator's ApplicationStateSummary values (apache/spark-kubernetes-operator 0.8.0 to 1.1.0)
// and the classification the Java k8s executor applies to them.

#include <cstdint>
#include <string_view>

namespace kje::spark::apache {

enum class AppState : uint8_t {
  kUnknown = 0,  // A state this build does not know (a newer operator).
  kSubmitted,
  kScheduledToRestart,
  kDriverRequested,
  kDriverStarted,
  kDriverReady,
  kInitializedBelowThresholdExecutors,
  kRunningHealthy,
  kRunningWithPartialCapacity,
  kRunningWithBelowThresholdExecutors,
  kDriverStartTimedOut,
  kExecutorsStartTimedOut,
  kDriverReadyTimedOut,
  kSucceeded,
  kFailed,
  kSchedulingFailure,
  kDriverEvicted,
  kResourceReleased,
  kTerminatedWithoutReleaseResources,
  // 1.1.0: held by spec.suspend or evicted by Kueue. Neither an outcome nor stopped: the operator
  // removes the driver itself and a resume starts a new attempt.
  kSuspended,
};

// Exact, case-sensitive match of the operator's spelling; anything else is kUnknown.
AppState ParseAppState(std::string_view name);
// The operator's spelling; "" for kUnknown.
std::string_view AppStateName(AppState state);

// The driver has not started yet: reported as QUEUED.
bool IsQueuedState(AppState state);
// The driver is up: reported as STARTED.
bool IsStartedState(AppState state);
bool IsFailedState(AppState state);
// Succeeded or one of the failed states: the outcome of the run.
bool IsOutcomeState(AppState state);
// The last states of every application, which don't tell success from failure.
bool IsStoppedState(AppState state);
// Suspended (operator 1.1): known, not terminal, not stopped.
bool IsSuspendedState(AppState state);

// status.currentState.suspendReason of a Suspended state (operator 1.1); absent means
// kSuspendReasonSpec (spark/job_status.h).
inline constexpr std::string_view kSuspendReasonKueue = "KueueEviction";

}  // namespace kje::spark::apache
