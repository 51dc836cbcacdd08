#pragma once

// The mapping from a kubeflow/spark-operator SparkApplication (and its driver pod) to a job
// status, with the same rules as the Apache mapping where the operators agree.

#include <vector>

#include "absl/time/time.h"
#include "spark/app_projection.h"
#include "spark/driver_pod.h"
#include "spark/job_status.h"

namespace kje::spark::kubeflow {

// Evaluation order (first match wins):
//  1. cancel requested and (deleting or COMPLETED/FAILED): CANCELLED;
//  2. deleting: SUCCEEDED if COMPLETED, else FAILED (the deletion ends the run);
//  3. no .status: FAILED once creationTimestamp + no_status_timeout < now (no_status_timed_out;
//     the operator writes a status even for a suspended app, so nothing holds one), else QUEUED;
//  4. COMPLETED: SUCCEEDED; FAILED: FAILED. Only these two are final: the operator retries
//     SUBMISSION_FAILED and FAILING under a restart policy, and reruns SUCCEEDING under Always;
//  5. RUNNING, SUCCEEDING, FAILING and UNKNOWN (a lost driver pod's phase): STARTED;
//  6. "" (New), SUBMITTED, SUBMISSION_FAILED, PENDING_RERUN, INVALIDATING and RESUMING: QUEUED,
//     but SUBMISSION_FAILED under a restart policy that doesn't retry (Never, the default) is
//     FAILED, finished at terminationTime else lastSubmissionAttemptTime;
//  7. SUSPENDING and SUSPENDED (spec.suspend; `suspended` set, "SpecSuspend" the reason), and a
//     state this build doesn't know (unknown_state, named in the message): STARTED if a
//     submission succeeded before (executionAttempts > 0), else QUEUED.
// SUBMITTED (the driver requested, not running) for longer than `driver_start_timeout` since
// lastSubmissionAttemptTime is FAILED with start_timed_out: this operator has no such timeout
// (a driver that can't be scheduled waits for ever), the executor's spark.driverStartTimeoutMs
// stands in for it.
// A QUEUED or STARTED result becomes CANCELLING while the cancel annotation is set.
// operator_removes_driver is always set: ShouldDeleteOrphanDriver never deletes this operator's
// drivers (nor does the Helm chart's Role for it allow pod deletion).
// The message is applicationState.errorMessage. started_at: the driver container's start when
// `driver` is known, else lastSubmissionAttemptTime in a STARTED or final state after a
// successful submission; finished_at (final statuses only): the driver container's end, else
// terminationTime, else the deletion time.
JobStatusInfo MapStatus(const AppProjection& app, const DriverPod* driver, absl::Time now,
                        absl::Duration no_status_timeout,
                        absl::Duration driver_start_timeout = absl::InfiniteDuration());

// The current attempt's driver among `pods` (the app's driver pods): the one named
// status.driverInfo.podName whose submission-id label is status.submissionID, so that a pod of
// an earlier attempt is never taken for it; nullptr when there is none. Without a known app
// (`app` null: gone, or unreadable) the newest pod, as for the Apache operator.
const DriverPod* PickDriver(const AppProjection* app, const std::vector<DriverPod>& pods);

}  // namespace kje::spark::kubeflow
