#pragma once

// The mapping from an apache/spark-kubernetes-operator SparkApplication (and its driver pod) to a
// job status with times, rule for rule as the Java k8s executor's SparkApplicationStatusUtils,
// plus CANCELLING.

#include <optional>

#include "absl/time/time.h"
#include "spark/apache/app_projection.h"
#include "spark/app_projection.h"
#include "spark/driver_pod.h"
#include "spark/job_status.h"
#include "spark/waiting.h"

namespace kje::spark::apache {

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
// then neither deleting nor stopped). A Suspended app's driver is the operator's to remove
// (operator_removes_driver).
// `driver` is the newest driver pod, or nullptr; its container times win over the operator's.
JobStatusInfo MapStatus(const AppProjection& app, const DriverPod* driver, absl::Time now,
                        absl::Duration no_status_timeout);

// What the operator's own Events say about a job that waits: its Kueue integration waiting for
// admission or failing to ask for it, or turned off while the app is labelled for a queue.
// SuspendHeld is not among them: the app's own state (held, and why) says it better.
WaitingReason WaitingEventReason(std::string_view reason);

// The newest outcome (Succeeded or a failure) in the history; nullopt when there is none.
std::optional<StateEntry> LastOutcome(const AppProjection& app);

}  // namespace kje::spark::apache
