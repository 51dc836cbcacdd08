#include "spark/apache/app_state.h"

#include <array>
#include <utility>

namespace kje::spark::apache {
namespace {

constexpr std::array<std::pair<AppState, std::string_view>, 19> kNames = {{
    {AppState::kSubmitted, "Submitted"},
    {AppState::kScheduledToRestart, "ScheduledToRestart"},
    {AppState::kDriverRequested, "DriverRequested"},
    {AppState::kDriverStarted, "DriverStarted"},
    {AppState::kDriverReady, "DriverReady"},
    {AppState::kInitializedBelowThresholdExecutors, "InitializedBelowThresholdExecutors"},
    {AppState::kRunningHealthy, "RunningHealthy"},
    {AppState::kRunningWithPartialCapacity, "RunningWithPartialCapacity"},
    {AppState::kRunningWithBelowThresholdExecutors, "RunningWithBelowThresholdExecutors"},
    {AppState::kDriverStartTimedOut, "DriverStartTimedOut"},
    {AppState::kExecutorsStartTimedOut, "ExecutorsStartTimedOut"},
    {AppState::kDriverReadyTimedOut, "DriverReadyTimedOut"},
    {AppState::kSucceeded, "Succeeded"},
    {AppState::kFailed, "Failed"},
    {AppState::kSchedulingFailure, "SchedulingFailure"},
    {AppState::kDriverEvicted, "DriverEvicted"},
    {AppState::kResourceReleased, "ResourceReleased"},
    {AppState::kTerminatedWithoutReleaseResources, "TerminatedWithoutReleaseResources"},
    {AppState::kSuspended, "Suspended"},
}};

}  // namespace

AppState ParseAppState(std::string_view name) {
  for (const auto& [state, state_name] : kNames) {
    if (state_name == name) return state;
  }
  return AppState::kUnknown;
}

std::string_view AppStateName(AppState state) {
  for (const auto& [known, state_name] : kNames) {
    if (known == state) return state_name;
  }
  return "";
}

bool IsQueuedState(AppState state) {
  switch (state) {
    case AppState::kSubmitted:
    case AppState::kScheduledToRestart:
    case AppState::kDriverRequested:
    case AppState::kDriverStarted:
      return true;
    default:
      return false;
  }
}

bool IsStartedState(AppState state) {
  switch (state) {
    case AppState::kDriverReady:
    case AppState::kInitializedBelowThresholdExecutors:
    case AppState::kRunningHealthy:
    case AppState::kRunningWithPartialCapacity:
    case AppState::kRunningWithBelowThresholdExecutors:
      return true;
    default:
      return false;
  }
}

bool IsFailedState(AppState state) {
  switch (state) {
    case AppState::kFailed:
    case AppState::kSchedulingFailure:
    case AppState::kDriverEvicted:
    case AppState::kDriverStartTimedOut:
    case AppState::kExecutorsStartTimedOut:
    case AppState::kDriverReadyTimedOut:
      return true;
    default:
      return false;
  }
}

bool IsOutcomeState(AppState state) {
  return state == AppState::kSucceeded || IsFailedState(state);
}

bool IsStoppedState(AppState state) {
  return state == AppState::kResourceReleased ||
         state == AppState::kTerminatedWithoutReleaseResources;
}

bool IsSuspendedState(AppState state) { return state == AppState::kSuspended; }

}  // namespace kje::spark::apache
