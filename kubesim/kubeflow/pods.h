#pragma once

// The pods of a Kubeflow-submitted run: the driver pod spark-submit creates, the executor pods
// the driver creates, their statuses over time, the driver's log, and one pass of the simulated
// kubelet and Spark driver over them. Internal to kubesim/kubeflow.

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kubesim/kubeflow/app.h"
#include "kubesim/kubeflow/kubeflow.h"
#include "kubesim/sim/actions.h"

namespace kubesim::kubeflow::internal {

// When the simulated kubelet moves a driver, in wall-clock ms.
struct Timeline {
  int64_t created_ms = 0;
  std::optional<int64_t> started_ms;  // never, when unschedulable
  std::optional<int64_t> ended_ms;    // never, when unschedulable or hanging
};

// A JVM container's memory request as Spark computes it: the heap plus max(384 MiB, 10 %).
std::string PodMemory(const std::string& memory);

Timeline DriverTimeline(const Job& job, int64_t created_ms, double time_scale,
                        int64_t delay_ms = 0);

enum class Stage { kPending = 0, kRunning = 1, kTerminated = 2 };

// A pod's stage by its phase (Unknown and others: nullopt).
std::optional<Stage> StageOf(const boost::json::object& pod);
int64_t CreatedMs(const boost::json::object& pod);
bool IsDeleting(const boost::json::object& pod);
std::string Label(const boost::json::object& pod, std::string_view key);

// The driver pod of a submission, as spark-submit creates it (status Pending).
boost::json::object BuildDriverPod(const Job& job, const std::string& submission_id,
                                   int64_t created_ms, double time_scale);

// An executor pod, as the driver creates it (status Pending).
boost::json::object BuildExecutorPod(const Job& job, const boost::json::object& driver, int64_t n,
                                     int64_t created_ms, const Options& options);

boost::json::object DriverPodStatus(const Job& job, const Timeline& timeline, Stage stage);

// The driver's log from container start until the job runs, and from then until it ends.
std::string DriverLogStart(const Job& job, const std::string& app_id, const Timeline& timeline);
std::string DriverLogEnd(const Job& job, const std::string& app_id, const Timeline& timeline);

// One pass of the simulated kubelet (driver and executor phases, the driver's log) and Spark
// driver (creating its executors, deleting them when it ends) for the status's submission.
// `pods` is the app's pods, changed in place as the pass changes them; the pass's writes go to
// `actions`. Returns the next time something is due.
// `lookup` finds the Secrets and ConfigMaps the pods refer to (sim/kubelet.h); `fetch` fetches
// the job's dependencies as its driver starts (sim/fetch.h).
std::optional<int64_t> RunKubelet(const Job& job, const Status& status, const Options& options,
                                  int64_t now_ms, const sim::ObjectLookup& lookup,
                                  std::vector<boost::json::object>* pods, sim::Actions* actions,
                                  const sim::DependencyFetch& fetch = {});

}  // namespace kubesim::kubeflow::internal
