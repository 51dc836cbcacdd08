#pragma once

// The mapping from a SparkApplication (and its driver pod) to a job status with times, rule for
// rule as the Java k8s executor's SparkApplicationStatusUtils, plus CANCELLING.

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
  bool is_stopped = false;  // IsStopped(app): the driver pod is worth fetching.
  bool deleting = false;    // The app has a deletionTimestamp.
  // The current state is Suspended (operator 1.1): the operator removes the driver itself.
  bool suspended = false;
  std::string suspend_reason;  // SpecSuspend or KueueEviction when suspended; "" otherwise
  // No status yet, and none is owed: the app is held by spec.suspend or waits for Kueue.
  bool held = false;
  // The operator removes the driver itself whatever the state (kubeflow/spark-operator): never
  // an orphan for us to delete.
  bool operator_removes_driver = false;
};

// Evaluation order (first match wins):
//  1. cancel requested and (deleting or stopped): CANCELLED;
//  2. deleting or the current state is ResourceReleased/TerminatedWithoutReleaseResources: the
//     last outcome in the history (newest first), else FAILED;
//  3. no state: with a .status the operator wrote but this build can't read, QUEUED for good
//     (Java #13700); without a .status, QUEUED while held (spec.suspend, a Kueue queue label),
//     else FAILED once creationTimestamp + no_status_timeout < now, else QUEUED;
//  4. a queued state: QUEUED;  5. an outcome: SUCCEEDED or FAILED;  6. a started state: STARTED;
//  7. Suspended, or unknown: STARTED if the history has a started state, else QUEUED (the
//     suspendReason goes into the message; only an unknown state sets unknown_state).
// The driver container's times come from the container the app names (driver_container).
// A QUEUED or STARTED result becomes CANCELLING while the cancel annotation is set (the app is
// then neither deleting nor stopped).
// `driver` is the newest driver pod, or nullptr; its container times win over the operator's.
JobStatusInfo MapStatus(const AppProjection& app, const DriverPod* driver, absl::Time now,
                        absl::Duration no_status_timeout);

// Rule 3's timeout, for either operator: when `app` (which has no .status) was created more than
// `no_status_timeout` before `now`, sets `info` FAILED with no_status_timed_out and the message
// that says so, and returns true; else changes nothing.
bool MarkNoStatusTimeout(const AppProjection& app, absl::Time now, absl::Duration no_status_timeout,
                         JobStatusInfo& info);

// The newest outcome (Succeeded or a failure) in the history; nullopt when there is none.
std::optional<StateEntry> LastOutcome(const AppProjection& app);

// A FAILED job whose driver pod is alive (e.g. after DriverStartTimedOut) could still run the
// job: the caller deletes that pod. A terminated driver is kept so its log stays readable (its
// container decides, whatever a sidecar does: DriverPod::IsAlive with the app's
// `driver_container`, AppProjection::driver_container), a pod already being deleted needs nothing
// more, and a Suspended app's driver is the operator's.
bool ShouldDeleteOrphanDriver(const JobStatusInfo& info, const DriverPod& driver,
                              std::string_view driver_container);

// Submit's answer to 409 Conflict: the existing app is adopted (OK: same execution id) only if
// it isn't being deleted and its job-id label equals `job_id`; ALREADY_EXISTS otherwise.
absl::Status CheckAdoption(const AppProjection& existing, std::string_view job_id);

}  // namespace kje::spark
