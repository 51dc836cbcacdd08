#pragma once

// The executors the Spark driver of an Apache-operator app creates, when its sparkConf asks for
// them (spark.executor.instances >= 1, static allocation), and the simulated scheduler and
// kubelet on them. Without spark.executor.instances they are not simulated (the operator takes the
// requested executors to be up), as before. Internal to kubesim/operator.

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kubesim/operator/driver.h"
#include "kubesim/sim/actions.h"

namespace kubesim::op::internal {

inline constexpr const char* kExecutorContainer = "spark-kubernetes-executor";

// Whether a pod is an executor (Spark's spark-role label).
bool IsExecutorPod(const boost::json::object& pod);

// The executors can never start (no node fits them, or their image can't be pulled): the driver
// waits for them.
bool ExecutorsNeverStart(const JobConf& conf);

// An executor pod as the driver creates it (status Pending): <appId>-exec-<n>, owned by the
// driver pod.
boost::json::object BuildExecutorPod(const JobConf& conf, int64_t attempt,
                                     const boost::json::object& driver, int64_t n,
                                     int64_t created_ms);

struct ExecutorsPass {
  int64_t ready = 0;  // executors Running
  std::optional<int64_t> next_ms;
};

// One pass of the driver and the kubelet over the attempt's executors (`executors`): a running
// driver creates the missing ones; pending ones are scheduled, held (sim/kubelet.h) or started a
// second after their creation; a terminated driver deletes them, or with
// spark.kubernetes.executor.deleteOnTermination=false leaves them Succeeded.
ExecutorsPass RunExecutors(const JobConf& conf, int64_t attempt, const boost::json::object& driver,
                           PodStage driver_stage,
                           const std::vector<const boost::json::object*>& executors, int64_t now_ms,
                           const sim::ObjectLookup& lookup, double time_scale,
                           sim::Actions* actions);

}  // namespace kubesim::op::internal
