#include "spark/apache/status_mapping.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/strings.h"

namespace kje::spark::apache {

namespace {

std::optional<absl::Time> StartedAt(const AppProjection& app, const ContainerTimes* driver) {
  if (driver != nullptr && driver->started != kNoTime) {
    return ToOptionalTime(driver->started);
  }
  return ToOptionalTime(StatusView(app).history_started());
}

std::optional<absl::Time> FinishedAt(const StateEntry& outcome, const ContainerTimes* driver) {
  if (driver != nullptr && driver->finished != kNoTime) {
    return ToOptionalTime(driver->finished);
  }
  if (outcome.driver_finished != kNoTime) return ToOptionalTime(outcome.driver_finished);
  return ToOptionalTime(outcome.transition_time);
}

JobStatus OutcomeStatus(AppState state) {
  return state == AppState::kSucceeded ? JobStatus::kSucceeded : JobStatus::kFailed;
}

}  // namespace

std::optional<StateEntry> LastOutcome(const AppProjection& app) {
  std::optional<StateEntry> outcome;
  for (const StateEntry& entry : StatusView(app).history()) {
    if (IsOutcomeState(entry.state)) outcome = entry;
  }
  return outcome;
}

JobStatusInfo MapStatus(const AppProjection& app, const DriverPod* driver_pod, absl::Time now,
                        absl::Duration no_status_timeout) {
  const StatusView status(app);
  JobStatusInfo info;
  info.operator_state = OperatorState(app);
  info.message = app.current_message();
  info.is_stopped = IsStopped(app);
  info.deleting = app.deleting();
  // The pod was projected without knowing the app: its driver container is the app's.
  std::optional<ContainerTimes> driver_times;
  if (driver_pod != nullptr) driver_times = driver_pod->DriverTimes(app.driver_container());
  const ContainerTimes* driver = driver_times ? &*driver_times : nullptr;
  // As in the Java executor, whatever the status; JobManager drops it from a QUEUED report.
  info.started_at = StartedAt(app, driver);
  const bool has_state = HasState(app);
  const bool stopped_state = has_state && IsStoppedState(status.current_state());
  info.operator_removes_driver = has_state && IsSuspendedState(status.current_state());

  // 1 and 2: the app is over; its outcome, if any, is somewhere in the history.
  if ((app.cancel_requested() && (app.deleting() || info.is_stopped)) || app.deleting() ||
      stopped_state) {
    std::optional<StateEntry> outcome = LastOutcome(app);
    if (app.cancel_requested()) {
      info.status = JobStatus::kCancelled;
    } else {
      info.status = outcome.has_value() ? OutcomeStatus(outcome->state) : JobStatus::kFailed;
    }
    info.finished_at =
        outcome.has_value() ? FinishedAt(*outcome, driver) : ToOptionalTime(app.deletion_time());
    return info;
  }

  if (!has_state) {
    // 3. A status this build can't read is the operator's: the job stays unfinished rather than
    // failing. Without one, an app held by spec.suspend or by Kueue gets none until it may run.
    // Otherwise the operator hasn't seen the app: is its namespace watched?
    info.held = !app.has_status() && IsHeldWithoutStatus(app);
    if (!app.has_status() && !info.held && MarkNoStatusTimeout(app, now, no_status_timeout, info)) {
      return info;
    }
    info.status = JobStatus::kQueued;
  } else {
    const AppState current = status.current_state();
    if (IsQueuedState(current)) {  // 4
      info.status = JobStatus::kQueued;
    } else if (IsOutcomeState(current) && RestartsAfter(status.restart(), current)) {
      // 5a. The attempt ended, but the operator starts another (ScheduledToRestart next): the
      // job isn't over, and its next attempt counts up JobInfo.attempts.
      info.status = JobStatus::kStarted;
    } else if (IsOutcomeState(current)) {  // 5
      info.status = OutcomeStatus(current);
      info.finished_at = FinishedAt(status.history().back(), driver);
      return info;
    } else if (IsStartedState(current)) {  // 6
      info.status = JobStatus::kStarted;
      if (current == AppState::kDriverReady ||
          current == AppState::kInitializedBelowThresholdExecutors ||
          current == AppState::kRunningWithBelowThresholdExecutors) {
        info.executors_pending = absl::StrCat("the driver runs; not enough executors run yet (",
                                              ToAbsl(AppStateName(current)), ")");
      }
    } else {  // 7. Suspended, or a newer operator's state: it can't be told whether it is final.
      if (IsSuspendedState(current)) {
        info.suspended = true;
        info.suspend_reason = status.suspend_reason().empty()
                                  ? std::string(kSuspendReasonSpec)
                                  : std::string(status.suspend_reason());
        info.message =
            info.message.empty()
                ? absl::StrCat("Suspended (suspendReason ", info.suspend_reason, ")")
                : absl::StrCat(info.message, " (suspendReason ", info.suspend_reason, ")");
      } else {
        info.unknown_state = true;
      }
      const HistoryView history = status.history();
      bool started = std::any_of(history.begin(), history.end(),
                                 [](const StateEntry& e) { return IsStartedState(e.state); });
      info.status = started ? JobStatus::kStarted : JobStatus::kQueued;
    }
  }
  // Reported where the Java executor leaves it to JobManager to keep the job CANCELLING.
  if (app.cancel_requested()) info.status = JobStatus::kCancelling;
  return info;
}

WaitingReason WaitingEventReason(std::string_view reason) {
  if (reason == "KueueAdmissionPending" || reason == "KueueAdmissionRequestFailed" ||
      reason == "KueueResourceFlavorReadFailed") {
    return WaitingReason::kQueueAdmission;
  }
  if (reason == "KueueDisabled") return WaitingReason::kQueueDisabled;
  return WaitingReason::kNone;
}

}  // namespace kje::spark::apache
