#pragma once

// Kueue's Workload (kueue.x-k8s.io/v1beta1, the subset in crds/kueue/) for a queued job, as
// kubesim's Kueue stand-in shows it: pending for quota until the job's annotation
// kubesim.dev/kueue-admitted is "true", then QuotaReserved and Admitted in the ClusterQueue
// "cluster-queue" with the flavor "default-flavor". Both simulated operators' queued apps get one.

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "kubesim/sim/actions.h"

namespace kubesim::sim {

inline constexpr const char* kKueueClusterQueue = "cluster-queue";
inline constexpr const char* kKueueFlavor = "default-flavor";

struct WorkloadPodSet {
  std::string name;  // driver | executor
  int64_t count = 1;
  std::string container;
  int64_t cpu = 1;     // cores per pod
  std::string memory;  // per pod, a quantity
};

struct WorkloadOwner {
  std::string api_version;
  std::string kind;
  std::string ns;
  std::string name;
  std::string uid;
};

// kueue's name for a job's Workload: <kind, lower case>-<name>-<5 hex of the job>.
std::string WorkloadName(const WorkloadOwner& owner);

// The Workload's write (Actions::write_objects): labelled kueue.x-k8s.io/job-uid=<uid>, owned by
// the job, queued in `queue`, with the pod sets; its status as admitted or pending, conditions at
// `now_ms` (the loop keeps the time of a condition whose status didn't change).
ObjectWrite WorkloadWrite(const WorkloadOwner& owner, const std::string& queue,
                          const std::vector<WorkloadPodSet>& pod_sets, bool admitted,
                          int64_t now_ms);

}  // namespace kubesim::sim
