#include "spark/status_mapping.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/strings.h"

namespace kje::spark {
namespace {

std::optional<absl::Time> StartedAt(const AppProjection& app, const ContainerTimes* driver) {
  if (driver != nullptr && driver->started != kNoTime) {
    return ToOptionalTime(driver->started);
  }
  return ToOptionalTime(app.history_started());
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

std::string_view JobStatusName(JobStatus status) {
  switch (status) {
    case JobStatus::kQueued:
      return "QUEUED";
    case JobStatus::kStarted:
      return "STARTED";
    case JobStatus::kSucceeded:
      return "SUCCEEDED";
    case JobStatus::kFailed:
      return "FAILED";
    case JobStatus::kCancelling:
      return "CANCELLING";
    case JobStatus::kCancelled:
      return "CANCELLED";
  }
  return "UNKNOWN";
}

bool IsTerminal(JobStatus status) {
  return status == JobStatus::kSucceeded || status == JobStatus::kFailed ||
         status == JobStatus::kCancelled;
}

bool MarkNoStatusTimeout(const AppProjection& app, absl::Time now, absl::Duration no_status_timeout,
                         JobStatusInfo& info) {
  if (app.creation_time() == kNoTime ||
      absl::FromUnixMillis(app.creation_time()) + no_status_timeout >= now) {
    return false;
  }
  info.status = JobStatus::kFailed;
  info.no_status_timed_out = true;
  info.message = absl::StrCat("The SparkApplication has had no status for more than ",
                              absl::FormatDuration(no_status_timeout),
                              ": is its namespace watched by the Spark operator?");
  return true;
}

std::optional<StateEntry> LastOutcome(const AppProjection& app) {
  std::optional<StateEntry> outcome;
  for (const StateEntry& entry : app.history()) {
    if (IsOutcomeState(entry.state)) outcome = entry;
  }
  return outcome;
}

JobStatusInfo MapStatus(const AppProjection& app, const DriverPod* driver_pod, absl::Time now,
                        absl::Duration no_status_timeout) {
  JobStatusInfo info;
  info.operator_state = app.OperatorState();
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
  const bool stopped_state = has_state && IsStoppedState(app.current_state());

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
    const AppState current = app.current_state();
    if (IsQueuedState(current)) {  // 4
      info.status = JobStatus::kQueued;
    } else if (IsOutcomeState(current)) {  // 5
      info.status = OutcomeStatus(current);
      info.finished_at = FinishedAt(app.history().back(), driver);
      return info;
    } else if (IsStartedState(current)) {  // 6
      info.status = JobStatus::kStarted;
    } else {  // 7. Suspended, or a newer operator's state: it can't be told whether it is final.
      if (IsSuspendedState(current)) {
        info.suspended = true;
        info.suspend_reason =
            app.suspend_reason().empty() ? std::string(kSuspendReasonSpec) : app.suspend_reason();
        info.message =
            info.message.empty()
                ? absl::StrCat("Suspended (suspendReason ", info.suspend_reason, ")")
                : absl::StrCat(info.message, " (suspendReason ", info.suspend_reason, ")");
      } else {
        info.unknown_state = true;
      }
      bool started = std::any_of(app.history().begin(), app.history().end(),
                                 [](const StateEntry& e) { return IsStartedState(e.state); });
      info.status = started ? JobStatus::kStarted : JobStatus::kQueued;
    }
  }
  // Reported where the Java executor leaves it to JobManager to keep the job CANCELLING.
  if (app.cancel_requested()) info.status = JobStatus::kCancelling;
  return info;
}

bool ShouldDeleteOrphanDriver(const JobStatusInfo& info, const DriverPod& driver,
                              std::string_view driver_container) {
  return info.status == JobStatus::kFailed && !info.suspended && !info.operator_removes_driver &&
         info.operator_state != AppStateName(AppState::kSuspended) &&
         driver.IsAlive(driver_container) && !driver.deleting;
}

absl::Status CheckAdoption(const AppProjection& existing, std::string_view job_id) {
  if (existing.deleting()) {
    return absl::AlreadyExistsError(absl::StrCat(
        "SparkApplication ", ToAbsl(existing.namespace_()), "/", ToAbsl(existing.name()),
        " is being deleted and can't be used for job ", ToAbsl(job_id), " until it is gone"));
  }
  if (existing.job_id() != job_id) {
    return absl::AlreadyExistsError(absl::StrCat(
        "SparkApplication ", ToAbsl(existing.namespace_()), "/", ToAbsl(existing.name()),
        " already exists and can't be used for job ", ToAbsl(job_id),
        ". If it belongs to another Gravitino deployment sharing the namespace, use a different "
        "namePrefix for each of them"));
  }
  return absl::OkStatus();
}

}  // namespace kje::spark
