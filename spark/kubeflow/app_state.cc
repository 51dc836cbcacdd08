#include "spark/kubeflow/app_state.h"

#include <array>
#include <utility>

namespace kje::spark::kubeflow {
namespace {

constexpr std::array<std::pair<State, std::string_view>, 14> kNames = {{
    {State::kNew, ""},
    {State::kSubmitted, "SUBMITTED"},
    {State::kRunning, "RUNNING"},
    {State::kSucceeding, "SUCCEEDING"},
    {State::kCompleted, "COMPLETED"},
    {State::kFailing, "FAILING"},
    {State::kFailed, "FAILED"},
    {State::kSubmissionFailed, "SUBMISSION_FAILED"},
    {State::kPendingRerun, "PENDING_RERUN"},
    {State::kInvalidating, "INVALIDATING"},
    {State::kUnknown, "UNKNOWN"},
    {State::kSuspending, "SUSPENDING"},
    {State::kSuspended, "SUSPENDED"},
    {State::kResuming, "RESUMING"},
}};

}  // namespace

State ParseState(std::string_view name) {
  for (const auto& [state, spelling] : kNames) {
    if (spelling == name) return state;
  }
  return State::kUnrecognized;
}

std::string_view StateName(State state) {
  for (const auto& [known, spelling] : kNames) {
    if (known == state) return spelling;
  }
  return "";
}

bool IsTerminated(State state) { return state == State::kCompleted || state == State::kFailed; }

}  // namespace kje::spark::kubeflow
