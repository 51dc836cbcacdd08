#pragma once

// Kueue's SparkApplication integration (kueue-job-controller and its mutating webhook) for
// sparkoperator.k8s.io/v1beta2 apps labelled kueue.x-k8s.io/queue-name, as a pure pass over the
// app that runs before the operator's.
//
// Kueue suspends a queued app (spec.suspend=true) and unsuspends it when it admits the app's
// Workload. kubesim has no Workloads: the app's annotation kubesim.dev/kueue-admitted="true"
// stands for the admission (as for the Apache operator 1.1), and taking it away for an eviction.
// The operator then goes SUSPENDING/SUSPENDED and RESUMING as for any spec.suspend change.

#include <boost/json.hpp>
#include <string>

#include "kubesim/sim/actions.h"

namespace kubesim::kubeflow {

inline constexpr const char* kKueueQueueLabel = "kueue.x-k8s.io/queue-name";
inline constexpr const char* kKueueAdmittedAnnotation = "kubesim.dev/kueue-admitted";
// The source of Kueue's events on the job.
inline constexpr const char* kKueueJobController = "kueue-job-controller";

// The Workload Kueue creates for the app: sparkapplication-<name>-<5 hex>.
std::string KueueWorkloadName(const boost::json::object& app);

// The app's Workload as Kueue keeps it (sim/kueue_workload.h): pod sets driver and executor,
// pending until admitted.
sim::ObjectWrite KueueWorkload(const boost::json::object& app, bool admitted, int64_t now_ms);

// Kueue's pass over the app. Returns true when it changed spec.suspend: `out` then holds only
// Kueue's write and events (the operator sees the new spec on the next pass). Otherwise the
// events it records, if any, were added to `out` and the operator's pass goes on.
bool KueuePass(const sim::AppView& view, sim::Actions* out);

}  // namespace kubesim::kubeflow
