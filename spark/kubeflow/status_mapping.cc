#include "spark/kubeflow/status_mapping.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "spark/kubeflow/app_projection.h"
#include "spark/kubeflow/names.h"

namespace kje::spark::kubeflow {
namespace {

enum class Class { kQueued, kStarted, kFinal, kSuspended, kUnrecognized };

Class Classify(State state) {
  switch (state) {
    case State::kCompleted:
    case State::kFailed:
      return Class::kFinal;
    case State::kRunning:
    case State::kSucceeding:
    case State::kFailing:
    case State::kUnknown:
      return Class::kStarted;
    case State::kNew:
    case State::kSubmitted:
    case State::kSubmissionFailed:
    case State::kPendingRerun:
    case State::kInvalidating:
    case State::kResuming:
      return Class::kQueued;
    case State::kSuspending:
    case State::kSuspended:
      return Class::kSuspended;
    case State::kUnrecognized:
      return Class::kUnrecognized;
  }
  return Class::kUnrecognized;
}

std::optional<absl::Time> FinishedAt(const AppProjection& app, const ContainerTimes* driver) {
  if (driver != nullptr && driver->finished != kNoTime) return ToOptionalTime(driver->finished);
  if (ViewOf(app).termination_time != kNoTime) {
    return ToOptionalTime(ViewOf(app).termination_time);
  }
  return ToOptionalTime(app.deletion_time());
}

}  // namespace

JobStatusInfo MapStatus(const AppProjection& app, const DriverPod* driver_pod, absl::Time now,
                        absl::Duration no_status_timeout, absl::Duration driver_start_timeout) {
  const KubeflowView status = ViewOf(app);
  JobStatusInfo info;
  info.operator_state = OperatorState(app);
  info.message = app.current_message();
  info.is_stopped = IsStopped(app);
  info.deleting = app.deleting();
  // Its driver's lifetime is the operator's: it deletes a failed or missing run's driver itself
  // and owns it, so Kubernetes deletes it with the app.
  info.operator_removes_driver = true;
  std::optional<ContainerTimes> driver_times;
  if (driver_pod != nullptr) driver_times = driver_pod->DriverTimes(app.driver_container());
  const ContainerTimes* driver = driver_times ? &*driver_times : nullptr;
  const Class cls = app.has_status() ? Classify(status.state) : Class::kQueued;
  const bool submitted = status.execution_attempts > 0;
  if (driver != nullptr && driver->started != kNoTime) {
    info.started_at = ToOptionalTime(driver->started);
  } else if (submitted && (cls == Class::kStarted || cls == Class::kFinal)) {
    info.started_at = ToOptionalTime(status.submission_time);
  }

  if (app.deleting() || (app.cancel_requested() && info.is_stopped)) {  // 1 and 2
    if (app.cancel_requested()) {
      info.status = JobStatus::kCancelled;
    } else {
      info.status = app.has_status() && status.state == State::kCompleted ? JobStatus::kSucceeded
                                                                          : JobStatus::kFailed;
    }
    info.finished_at = FinishedAt(app, driver);
    return info;
  }
  if (!app.has_status()) {  // 3
    if (MarkNoStatusTimeout(app, now, no_status_timeout, info)) return info;
    info.status = JobStatus::kQueued;
  } else {
    switch (cls) {
      case Class::kFinal:  // 4
        info.status =
            status.state == State::kCompleted ? JobStatus::kSucceeded : JobStatus::kFailed;
        info.finished_at = FinishedAt(app, driver);
        return info;
      case Class::kStarted:  // 5
        info.status = JobStatus::kStarted;
        if (status.state == State::kRunning && status.executors_pending > 0) {
          info.executors_pending = absl::StrCat(status.executors_pending, " of ", status.executors,
                                                " executors are pending");
        }
        break;
      case Class::kQueued:  // 6
        info.status = JobStatus::kQueued;
        if (status.state == State::kSubmissionFailed && !status.retries) {
          // Nothing submits it again: the operator's next pass marks it FAILED (and may be
          // stuck before it does).
          info.status = JobStatus::kFailed;
          info.finished_at = FinishedAt(app, driver);
          if (!info.finished_at) info.finished_at = ToOptionalTime(status.submission_time);
          break;
        }
        if (status.state == State::kSubmitted && !app.cancel_requested() &&
            status.submission_time != kNoTime &&
            absl::FromUnixMillis(status.submission_time) + driver_start_timeout < now) {
          info.status = JobStatus::kFailed;
          info.start_timed_out = true;
          info.message = absl::StrCat(
              "The driver didn't start within ", absl::FormatDuration(driver_start_timeout),
              " of its submission (spark.driverStartTimeoutMs); the application is deleted so "
              "that it can't start later");
          return info;
        }
        break;
      case Class::kSuspended:  // 7
        info.suspended = true;
        info.suspend_reason = std::string(kSuspendReasonSpec);
        info.message = info.message.empty()
                           ? absl::StrCat(info.operator_state, " (spec.suspend)")
                           : absl::StrCat(info.message, " (", info.operator_state, ")");
        info.status = submitted ? JobStatus::kStarted : JobStatus::kQueued;
        break;
      case Class::kUnrecognized:
        info.unknown_state = true;
        info.message = absl::StrCat(
            "The operator reports state ", QuoteBounded(info.operator_state),
            ", which this executor doesn't know: it can't be told whether the job is over",
            info.message.empty() ? "" : ": ", info.message);
        info.status = submitted ? JobStatus::kStarted : JobStatus::kQueued;
        break;
    }
  }
  if (app.cancel_requested()) info.status = JobStatus::kCancelling;
  return info;
}

const DriverPod* PickDriver(const AppProjection* app, const std::vector<DriverPod>& pods) {
  if (app == nullptr) return PickNewestDriver(pods);
  const KubeflowView status = ViewOf(*app);
  if (status.submission_id.empty()) return nullptr;
  for (const DriverPod& pod : pods) {
    if (!status.driver_pod_name.empty() && pod.name != status.driver_pod_name) continue;
    if (pod.LabelValue(kLabelSubmissionId) == status.submission_id) return &pod;
  }
  return nullptr;
}

}  // namespace kje::spark::kubeflow
