#pragma once

// The Spark operator (apache/spark-kubernetes-operator 0.9/1.0 behaviour, 1.1 by Options) as a pure
// reconciler: given a SparkApplication, the pods it owns and the time, it returns what the operator
// (and, for the simulated driver, the kubelet) would change. It keeps no state between calls: like
// the real operator, everything it needs to resume is in the application's status and the pods, so
// a restart of kubesim or of the controller loses nothing.
//
// The job decides its own fate through sparkConf: `kubesim.outcome` = succeed (default) | fail |
// evict | unschedulable | hang | evict-before-start, `kubesim.durationMs` (the driver's run time,
// default 3000 ms of operator time; an unknown outcome counts as succeed), and `kubesim.sidecars`
// (comma-separated sidecar containers that start with the driver and keep running, as a pod
// template's other containers do).
//
// Like the real operator it moves an application by one state per call (each call is one status
// write clients can watch) and asks to be called again through requeue_at_ms; a call before
// that time, e.g. on a watch event, changes nothing. Pods with a deletionTimestamp count as gone.
// The simulated kubelet moves the driver Pending → Running (1.5 s after the request) →
// Succeeded/Failed (durationMs later), appending the driver's log when it starts and ends.
// Executor pods are simulated only when sparkConf sets spark.executor.instances (executors.h);
// otherwise the requested executors are taken to be up. Not simulated: the driver's
// ConfigMap and Service, and 1.0.0's 60 s grace before a vanished driver fails the app (0.9.0:
// at once).

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kubesim/sim/actions.h"

namespace kubesim::op {

// The operator release whose behaviour is simulated. 1.1 adds spec.suspend (held apps without a
// status, SuspendHeld events, Suspended with suspendReason, resume as a new attempt), Kueue holds
// (see v1_1/suspend.h for kubesim's admission control) and immediate failure of a driver that
// fails before any container starts (SPARK-59729). It needs the 1.1 CRD (--crd-overlay).
enum class OperatorVersion { k1_0, k1_1 };

struct Options {
  // The operator's own clock runs this many times faster than the wall clock (tests compress
  // minutes into milliseconds). 1 = real time.
  double time_scale = 1.0;
  OperatorVersion version = OperatorVersion::k1_0;
  std::map<std::string, OperatorVersion> namespace_versions;  // overrides `version` per namespace

  OperatorVersion VersionFor(const std::string& ns) const {
    auto it = namespace_versions.find(ns);
    return it != namespace_versions.end() ? it->second : version;
  }
};

// The view and actions are the ones every simulated operator shares (kubesim/sim/actions.h);
// add_finalizer/remove_finalizer mean sparkapplications.spark.apache.org/finalizer.
using AppView = sim::AppView;
using PodStatusUpdate = sim::PodStatusUpdate;
using LogAppend = sim::LogAppend;
using Actions = sim::Actions;

Actions Reconcile(const AppView& view, const Options& options);

}  // namespace kubesim::op
