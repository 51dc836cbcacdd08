// kubesim's nodes and the scheduler's verdict on node selectors.

#include "kubesim/sim/nodes.h"

#include <catch2/catch.hpp>

#include "kubesim/sim/clock.h"

namespace kubesim::sim {
namespace {

namespace json = boost::json;

constexpr int64_t kT = 1764552000000;

TEST_CASE("three nodes with a cloud node's labels", "[sim]") {
  REQUIRE(Nodes().size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    const Node& n = Nodes()[i];
    CHECK(n.name == "kubesim-node-" + std::to_string(i));
    CHECK(n.labels.at("kubernetes.io/hostname") == n.name.c_str());
    CHECK(n.labels.at("kubernetes.io/os") == "linux");
    CHECK(n.labels.at("kubernetes.io/arch") == "amd64");
    CHECK(n.labels.contains("node.kubernetes.io/instance-type"));
    CHECK(n.labels.contains("topology.kubernetes.io/zone"));
    CHECK(NodeIp(n.name) == n.ip);
  }
}

TEST_CASE("a selector places the pod on a node it matches, or nowhere", "[sim]") {
  // No selector: the seed's node, as before selectors.
  for (uint64_t seed : {0u, 1u, 2u, 7u}) {
    CHECK(PlaceOnNode(nullptr, seed) == "kubesim-node-" + std::to_string(seed % 3));
  }
  json::object zone{{"topology.kubernetes.io/zone", "us-east-1b"}};
  for (uint64_t seed : {0u, 1u, 2u}) CHECK(PlaceOnNode(&zone, seed) == "kubesim-node-1");
  json::object os{{"kubernetes.io/os", "linux"}, {"kubernetes.io/arch", "amd64"}};
  CHECK(PlaceOnNode(&os, 2) == "kubesim-node-2");
  json::object gpu{{"kubernetes.io/os", "linux"}, {"nvidia.com/gpu.present", "true"}};
  CHECK_FALSE(PlaceOnNode(&gpu, 0).has_value());
  json::object wrong{{"kubernetes.io/arch", "arm64"}};
  CHECK_FALSE(PlaceOnNode(&wrong, 0).has_value());
  CHECK(SelectorMismatchMessage() ==
        "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
}

TEST_CASE("FailedScheduling is re-reported as the scheduler retries", "[sim]") {
  json::object pod{
      {"metadata", json::object{{"name", "p"}, {"namespace", "ns"}, {"uid", "u"}}},
      {"spec", json::object{{"containers", json::array()}}},
      {"status", json::object{{"conditions", json::array{json::object{
                                                 {"type", "PodScheduled"},
                                                 {"status", "False"},
                                                 {"reason", "Unschedulable"},
                                                 {"message", SelectorMismatchMessage()}}}}}}};
  std::vector<json::object> first;
  CHECK(AppendFailedScheduling(pod, kT, kT + 1000, 1.0, &first) == kT + 300'000);
  REQUIRE(first.size() == 1);
  CHECK(first[0].at("count") == 1);
  CHECK(first[0].at("type") == "Warning");
  CHECK(first[0].at("source").at("component") == "default-scheduler");
  CHECK(first[0].at("message") == SelectorMismatchMessage().c_str());
  std::vector<json::object> later;
  CHECK(AppendFailedScheduling(pod, kT, kT + 650'000, 1.0, &later) == kT + 900'000);
  CHECK(later[0].at("count") == 3);
  CHECK(later[0].at("metadata").at("name") == first[0].at("metadata").at("name"));
  CHECK(later[0].at("lastTimestamp") == FormatTime(kT + 600'000, false).c_str());
  // Operator time.
  std::vector<json::object> fast;
  CHECK(AppendFailedScheduling(pod, kT, kT + 31'000, 20.0, &fast) == kT + 45'000);
  CHECK(fast[0].at("count") == 3);
}

}  // namespace
}  // namespace kubesim::sim
