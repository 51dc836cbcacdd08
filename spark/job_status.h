#pragma once

// A job's status as every operator's mapping reports it (each operator's folder maps its own
// SparkApplication to one), and the rules that read it the same way for every operator.

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "spark/app_projection.h"
#include "spark/driver_pod.h"

namespace kje::spark {

enum class JobStatus { kQueued, kStarted, kSucceeded, kFailed, kCancelling, kCancelled };

std::string_view JobStatusName(JobStatus status);  // "QUEUED", "STARTED", ...
bool IsTerminal(JobStatus status);                 // SUCCEEDED, FAILED or CANCELLED

// The suspend reason of an app held by its own spec.suspend.
inline constexpr std::string_view kSuspendReasonSpec = "SpecSuspend";

struct JobStatusInfo {
  JobStatus status = JobStatus::kQueued;
  // When the driver started, whatever the status (the Java executor reports it on QUEUED too;
  // absent until something started): whole seconds from the driver container when known, else
  // the first started state's transition time (millisecond precision).
  std::optional<absl::Time> started_at;
  std::optional<absl::Time> finished_at;  // Set on terminal statuses only (and may be absent).
  std::string operator_state;             // The current operator state; "" when none.
  std::string message;                    // The current state's message (capped).
  // FAILED because the app has had no status for longer than the no-status timeout. The caller
  // must re-read the app (a cached copy may be stale), map a fresh copy that has a state, and
  // otherwise delete the app before reporting FAILED, or the operator would still run it once
  // it comes back.
  bool no_status_timed_out = false;
  // FAILED because the driver hasn't started within the executor's driver start timeout, on an
  // operator that has none of its own (kubeflow/spark-operator): the caller re-reads and deletes
  // the app as for no_status_timed_out, or the driver could still start once it is scheduled.
  bool start_timed_out = false;
  // The current state is unknown to this build: the caller should log a warning.
  bool unknown_state = false;
  bool is_stopped = false;  // the backend's IsStopped(app): the driver pod is worth fetching.
  bool deleting = false;    // The app has a deletionTimestamp.
  // The operator holds the app suspended (spec.suspend, or evicted by a queue).
  bool suspended = false;
  std::string suspend_reason;  // why, in the operator's words, when suspended; "" otherwise
  // No status yet, and none is owed: the app is held by spec.suspend or waits for Kueue.
  bool held = false;
  // The operator removes the driver itself (in every state for some operators, in a suspended
  // one for others): never an orphan for us to delete.
  bool operator_removes_driver = false;
  // When the job's deadline falls due (the queued one before it starts, the run one after);
  // absent without one, or once it stopped.
  std::optional<absl::Time> deadline_at;
  // The deadline that stopped the job (which is then FAILED); kNone otherwise.
  DeadlineKind deadline_exceeded = DeadlineKind::kNone;
  // The driver runs but executors don't all run yet: what the operator says of them ("" when
  // they do, or it can't be told).
  std::string executors_pending;
  // The deadline has passed and nobody has stopped the job yet: the caller stops it.
  DeadlineKind deadline_due = DeadlineKind::kNone;
  // The reason given with the job's Cancel (spark/cancel_keep.h); "" without one.
  std::string cancel_reason;
};

// Rule 3's timeout, for either operator: when `app` (which has no .status) was created more than
// `no_status_timeout` before `now`, sets `info` FAILED with no_status_timed_out and the message
// that says so, and returns true; else changes nothing.
bool MarkNoStatusTimeout(const AppProjection& app, absl::Time now, absl::Duration no_status_timeout,
                         JobStatusInfo& info);

// A FAILED job whose driver pod is alive (e.g. after a driver start timeout) could still run the
// job: the caller deletes that pod. A terminated driver is kept so its log stays readable (its
// container decides, whatever a sidecar does: DriverPod::IsAlive with the app's
// `driver_container`, AppProjection::driver_container), a pod already being deleted needs nothing
// more, and a driver the operator removes itself is the operator's.
bool ShouldDeleteOrphanDriver(const JobStatusInfo& info, const DriverPod& driver,
                              std::string_view driver_container);

// Submit's answer to 409 Conflict: the existing app is adopted (OK: same execution id) only if
// it isn't being deleted and its job-id label equals `job_id`; ALREADY_EXISTS otherwise.
absl::Status CheckAdoption(const AppProjection& existing, std::string_view job_id);

}  // namespace kje::spark
