#include "spark/apache/app_state.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kje::spark::apache {
namespace {

const std::vector<std::string> kAllStates = {
    "Submitted",
    "ScheduledToRestart",
    "DriverRequested",
    "DriverStarted",
    "DriverReady",
    "InitializedBelowThresholdExecutors",
    "RunningHealthy",
    "RunningWithPartialCapacity",
    "RunningWithBelowThresholdExecutors",
    "DriverStartTimedOut",
    "ExecutorsStartTimedOut",
    "DriverReadyTimedOut",
    "Succeeded",
    "Failed",
    "SchedulingFailure",
    "DriverEvicted",
    "ResourceReleased",
    "TerminatedWithoutReleaseResources",
};

TEST_CASE("All 18 operator states parse and print back") {
  for (const std::string& name : kAllStates) {
    AppState state = ParseAppState(name);
    INFO(name);
    CHECK(state != AppState::kUnknown);
    CHECK(AppStateName(state) == name);
  }
}

TEST_CASE("Suspended (operator 1.1) is known - and in none of the four classes") {
  AppState state = ParseAppState("Suspended");
  CHECK(state == AppState::kSuspended);
  CHECK(AppStateName(state) == "Suspended");
  CHECK(IsSuspendedState(state));
  CHECK_FALSE(IsQueuedState(state));
  CHECK_FALSE(IsStartedState(state));
  CHECK_FALSE(IsOutcomeState(state));
  CHECK_FALSE(IsStoppedState(state));
  for (const std::string& name : kAllStates) CHECK_FALSE(IsSuspendedState(ParseAppState(name)));
  CHECK(ParseAppState("suspended") == AppState::kUnknown);
}

TEST_CASE("Other spellings are unknown states") {
  CHECK(ParseAppState("") == AppState::kUnknown);
  CHECK(ParseAppState("failed") == AppState::kUnknown);
  CHECK(ParseAppState("SparkSessionTimedOut") == AppState::kUnknown);
  CHECK(ParseAppState("RUNNING") == AppState::kUnknown);
  CHECK(AppStateName(AppState::kUnknown).empty());
}

TEST_CASE("Every state is in exactly one class of the reference's table") {
  int queued = 0, started = 0, outcome = 0, failed = 0, stopped = 0;
  for (const std::string& name : kAllStates) {
    AppState state = ParseAppState(name);
    int classes = IsQueuedState(state) + IsStartedState(state) + IsOutcomeState(state) +
                  IsStoppedState(state);
    INFO(name);
    CHECK(classes == 1);
    queued += IsQueuedState(state);
    started += IsStartedState(state);
    outcome += IsOutcomeState(state);
    failed += IsFailedState(state);
    stopped += IsStoppedState(state);
  }
  CHECK(queued == 4);
  CHECK(started == 5);
  CHECK(outcome == 7);
  CHECK(failed == 6);
  CHECK(stopped == 2);
  CHECK_FALSE(IsQueuedState(AppState::kUnknown));
  CHECK_FALSE(IsStartedState(AppState::kUnknown));
  CHECK_FALSE(IsOutcomeState(AppState::kUnknown));
  CHECK_FALSE(IsStoppedState(AppState::kUnknown));
}

TEST_CASE("The classes hold the states the reference lists") {
  for (const char* name : {"Submitted", "ScheduledToRestart", "DriverRequested", "DriverStarted"}) {
    CHECK(IsQueuedState(ParseAppState(name)));
  }
  for (const char* name : {"DriverReady", "InitializedBelowThresholdExecutors", "RunningHealthy",
                           "RunningWithPartialCapacity", "RunningWithBelowThresholdExecutors"}) {
    CHECK(IsStartedState(ParseAppState(name)));
  }
  for (const char* name : {"Failed", "SchedulingFailure", "DriverEvicted", "DriverStartTimedOut",
                           "ExecutorsStartTimedOut", "DriverReadyTimedOut"}) {
    CHECK(IsFailedState(ParseAppState(name)));
  }
  CHECK(IsOutcomeState(AppState::kSucceeded));
  CHECK_FALSE(IsFailedState(AppState::kSucceeded));
  CHECK(IsStoppedState(AppState::kResourceReleased));
  CHECK(IsStoppedState(AppState::kTerminatedWithoutReleaseResources));
}

}  // namespace
}  // namespace kje::spark::apache
