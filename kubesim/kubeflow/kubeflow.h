#pragma once

// The Kubeflow Spark operator (kubeflow/spark-operator v2.5.2, sparkoperator.k8s.io/v1beta2
// SparkApplication) as a pure reconciler: given an application, the pods it owns and the time,
// it returns what the operator (and, for the simulated driver, spark-submit, the Spark driver and
// the kubelet) would change. It keeps no state between calls: everything it needs to resume is in
// the application's status, its annotations and the pods.
//
// The job decides its own fate through sparkConf: `kubesim.outcome` = succeed (default) | fail |
// submission-fail | unschedulable | hang | driver-deleted, and `kubesim.durationMs` (the driver's
// run time, default 3000 ms of operator time). An unknown outcome counts as succeed.
//
// One state per call (each call is at most one status write clients can watch), with
// requeue_at_ms asking for the next call; a call before that time changes nothing that is not
// due. Pods with a deletionTimestamp count as gone. The simulated kubelet moves the driver
// Pending → Running (1.5 s after its creation) → Succeeded/Failed (durationMs later), appending
// the driver's log when it starts and ends; the simulated driver creates its executors when it
// runs and deletes them when it ends (spec.executor.deleteOnTermination, default true).
//
// A spec change is found statelessly: the operator records a hash of the spec (without suspend
// and timeToLiveSeconds) in the annotation kSpecHashAnnotation; a differing hash is a change
// (the real operator compares its informer's old and new objects instead).

#include <cstdint>

#include "kubesim/sim/actions.h"

namespace kubesim::kubeflow {

inline constexpr const char* kSpecHashAnnotation = "kubesim.dev/kubeflow-spec-hash";

// Which owners an executor pod gets. kApp is v2.5.2: the driver pod (controller) and the
// application (not controller), so deleting only the driver, or suspending, leaves the executors
// until the application goes. kDriverOnly is the unreleased fix (master after v2.5.2): the driver
// pod alone, so executors go with it.
enum class ExecutorOwner { kApp, kDriverOnly };

struct Options {
  // The operator's own clock runs this many times faster than the wall clock. 1 = real time.
  double time_scale = 1.0;
  ExecutorOwner executor_owner = ExecutorOwner::kApp;
  // --driver-pod-creation-grace-period, operator time.
  int64_t driver_pod_creation_grace_ms = 10000;
};

sim::Actions Reconcile(const sim::AppView& view, const Options& options);

}  // namespace kubesim::kubeflow
