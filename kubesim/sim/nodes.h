#pragma once

// kubesim's cluster: three worker nodes with the labels a cloud cluster's nodes carry, and the
// default scheduler's verdict on a pod's nodeSelector over them. Both simulated operators'
// pods are placed here.

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kubesim::sim {

struct Node {
  std::string name;
  std::string ip;
  boost::json::object labels;
};

// kubesim-node-0..2 (10.0.0.10-12): kubernetes.io/hostname, kubernetes.io/os=linux,
// kubernetes.io/arch=amd64, node.kubernetes.io/instance-type=m5.2xlarge,
// topology.kubernetes.io/region=us-east-1, topology.kubernetes.io/zone=us-east-1a/b/c.
const std::vector<Node>& Nodes();

// Whether every key of `selector` is a label of `node` with that value.
bool SelectorMatches(const boost::json::object& selector, const Node& node);

// The node the scheduler binds a pod with this nodeSelector (nullptr: none) to: of the nodes it
// matches, the one `seed` picks (seed % 3 without a selector, as before selectors existed);
// nullopt when no node matches.
std::optional<std::string> PlaceOnNode(const boost::json::object* selector, uint64_t seed);
std::string NodeIp(const std::string& node);

// The scheduler's PodScheduled message for a pod whose nodeSelector no node matches.
std::string SelectorMismatchMessage();

// The unschedulable queue's flush period (podMaxInUnschedulablePodsDuration): with no cluster
// change, an unschedulable pod is retried, and its FailedScheduling re-reported, this often.
inline constexpr int64_t kUnschedulableRetryMs = 5 * 60 * 1000;

// The scheduler's FailedScheduling event for a pending, unbound pod created at `created_ms`, as
// re-reported by `now_ms`: one event whose count is the number of scheduling attempts (one at
// creation, one per retry period, operator time under `time_scale`). Returns when the next
// attempt is due.
int64_t AppendFailedScheduling(const boost::json::object& pod, int64_t created_ms, int64_t now_ms,
                               double time_scale, std::vector<boost::json::object>* out);

}  // namespace kubesim::sim
