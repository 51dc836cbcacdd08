#pragma once

// Runs the simulated Kubeflow ScheduledSparkApplication controller (schedule.h) over the Store on
// a thread of its own: watches sparkoperator.k8s.io/v1beta2 ScheduledSparkApplications of its
// namespaces, reconciles one when it is created or updated or when its requeue time arrives,
// lists its runs by label, and applies the actions as an API client would (run creation,
// deletions with grace period 0, status Update with optimistic concurrency). A failed reconcile
// is retried with controller-runtime's backoff (5 ms doubling to 1000 s, operator time).
//
// Like v2.5.2 it drops Delete events and, by default, does not watch the runs: a run that
// finishes does not wake it (wake_on_runs changes that, for a client that wants Forbid to start
// the overdue run as soon as the previous one ends).
//
// The operator's clock runs `time_scale` times faster than the wall clock from the moment the
// controller is made: cron times, status times and run names are in that clock, so a
// once-a-minute schedule fires every 60/time_scale wall seconds.

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "kubesim/controller/loop.h"
#include "kubesim/schedule/schedule.h"
#include "kubesim/store/store.h"

namespace kubesim::schedule {

struct ControllerOptions {
  Options reconcile;
  double time_scale = 1.0;
  bool wake_on_runs = false;
};

// `scheduled_type` and `app_type` are the registered sparkoperator.k8s.io/v1beta2
// scheduledsparkapplications and sparkapplications types. An empty `namespaces` means every
// namespace. `now_ms` is the wall clock.
std::unique_ptr<Controller> NewController(Store& store, ResourceType scheduled_type,
                                          ResourceType app_type, std::set<std::string> namespaces,
                                          ControllerOptions options,
                                          std::function<int64_t()> now_ms);

}  // namespace kubesim::schedule
