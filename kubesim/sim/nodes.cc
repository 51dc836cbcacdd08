#include "kubesim/sim/nodes.h"

#include <algorithm>

#include "kubesim/sim/clock.h"
#include "kubesim/sim/events.h"

namespace kubesim::sim {

namespace json = boost::json;

const std::vector<Node>& Nodes() {
  static const std::vector<Node> kNodes = [] {
    std::vector<Node> nodes;
    const char* zones[] = {"us-east-1a", "us-east-1b", "us-east-1c"};
    for (int i = 0; i < 3; ++i) {
      Node n;
      n.name = "kubesim-node-" + std::to_string(i);
      n.ip = "10.0.0." + std::to_string(10 + i);
      n.labels = json::object{{"beta.kubernetes.io/arch", "amd64"},
                              {"beta.kubernetes.io/os", "linux"},
                              {"kubernetes.io/arch", "amd64"},
                              {"kubernetes.io/hostname", n.name},
                              {"kubernetes.io/os", "linux"},
                              {"node.kubernetes.io/instance-type", "m5.2xlarge"},
                              {"topology.kubernetes.io/region", "us-east-1"},
                              {"topology.kubernetes.io/zone", zones[i]}};
      nodes.push_back(std::move(n));
    }
    return nodes;
  }();
  return kNodes;
}

bool SelectorMatches(const json::object& selector, const Node& node) {
  for (const auto& kv : selector) {
    const json::value* have = node.labels.if_contains(kv.key());
    // The API server admits only string values; anything else matches no label.
    if (have == nullptr || !kv.value().is_string() || *have != kv.value()) return false;
  }
  return true;
}

std::optional<std::string> PlaceOnNode(const json::object* selector, uint64_t seed) {
  std::vector<const Node*> fit;
  for (const Node& n : Nodes()) {
    if (selector == nullptr || SelectorMatches(*selector, n)) fit.push_back(&n);
  }
  if (fit.empty()) return std::nullopt;
  return fit[seed % fit.size()]->name;
}

std::string NodeIp(const std::string& node) {
  for (const Node& n : Nodes()) {
    if (n.name == node) return n.ip;
  }
  return "";
}

std::string SelectorMismatchMessage() {
  const std::string n = std::to_string(Nodes().size());
  return "0/" + n + " nodes are available: " + n +
         " node(s) didn't match Pod's node affinity/selector. preemption: 0/" + n +
         " nodes are available: " + n + " Preemption is not helpful for scheduling.";
}

int64_t AppendFailedScheduling(const json::object& pod, int64_t created_ms, int64_t now_ms,
                               double time_scale, std::vector<json::object>* out) {
  const int64_t period = std::max<int64_t>(1, ScaledMs(kUnschedulableRetryMs, time_scale));
  const int64_t retries = std::max<int64_t>(0, now_ms - created_ms) / period;
  AppendFailedSchedulingEvent(pod, created_ms, created_ms + retries * period, retries + 1, out);
  return created_ms + (retries + 1) * period;
}

}  // namespace kubesim::sim
