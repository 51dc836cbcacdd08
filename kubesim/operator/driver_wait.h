#pragma once

// The simulated scheduler and kubelet on a driver pod that can't start yet: unbound (no node
// fits), or held by the kubelet (sim/kubelet.h). Internal to kubesim/operator.

#include <boost/json.hpp>
#include <cstdint>
#include <optional>

#include "kubesim/operator/driver.h"
#include "kubesim/sim/actions.h"

namespace kubesim::op::internal {

struct DriverWait {
  bool held = false;                          // the driver can't start now
  int64_t delay_ms = 0;                       // not held: how long it was held before it started
  std::optional<int64_t> next_ms;             // when the scheduler or kubelet looks again
  std::optional<boost::json::object> status;  // the pod's status as the hold now shows it
};

// For the attempt's driver pod `driver`, requested at `requested_ms`: while it is pending, the
// scheduler re-reports FailedScheduling and the kubelet shows its hold (status and events, into
// `actions`). A driver that has started is never held again.
DriverWait CheckDriverWait(const JobConf& conf, int64_t attempt, const boost::json::object& driver,
                           int64_t requested_ms, int64_t now_ms, const sim::ObjectLookup& lookup,
                           double time_scale, sim::Actions* actions);

}  // namespace kubesim::op::internal
