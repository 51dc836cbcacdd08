// The events of the simulated scheduler and kubelet, in the shape `kubectl get events` and
// `kubectl describe pod` read.

#include "kubesim/sim/events.h"

#include <catch2/catch.hpp>

namespace kubesim::sim {
namespace {

namespace json = boost::json;

constexpr int64_t kT = 1764552000000;  // 2025-12-01T01:20:00Z

json::object Pod(bool bound, const json::object& status = {}) {
  json::object spec{
      {"containers", json::array{json::object{{"name", "spark-kubernetes-driver"},
                                              {"image", "apache/spark:4.0.1"}},
                                 json::object{{"name", "sidecar"}, {"image", "busybox:1.36"}}}}};
  if (bound) spec["nodeName"] = "kubesim-node-1";
  return json::object{{"metadata", json::object{{"name", "pi-0-driver"},
                                                {"namespace", "jobs"},
                                                {"uid", "u-1"},
                                                {"resourceVersion", "42"},
                                                {"creationTimestamp", "2025-12-01T01:20:00Z"}}},
                      {"spec", std::move(spec)},
                      {"status", status}};
}

std::vector<std::string> Field(const std::vector<json::object>& events, const char* key) {
  std::vector<std::string> out;
  for (const json::object& e : events) out.emplace_back(e.at(key).as_string());
  return out;
}

TEST_CASE("an event has the core/v1 shape, named after its involved object", "[sim]") {
  Involved app{"spark.apache.org/v1", "SparkApplication", "jobs", "pi", "u-9", "", ""};
  EventSpec spec;
  spec.reason = "SuspendHeld";
  spec.message = "held";
  spec.source = {"spark-kubernetes-operator", ""};
  spec.key = "k";
  spec.first_ms = kT;
  spec.last_ms = kT + 61000;
  spec.count = 3;
  json::object e = MakeEvent(app, spec);
  std::string name(e.at("metadata").at("name").as_string());
  CHECK(name.size() == std::string("pi.").size() + 16);
  CHECK(name.starts_with("pi."));
  CHECK(e.at("metadata").at("namespace") == "jobs");
  CHECK(e.at("involvedObject") == json::parse(R"({"apiVersion":"spark.apache.org/v1",
      "kind":"SparkApplication","name":"pi","namespace":"jobs","uid":"u-9"})"));
  CHECK(e.at("type") == "Normal");
  CHECK(e.at("count") == 3);
  CHECK(e.at("firstTimestamp") == "2025-12-01T01:20:00Z");
  CHECK(e.at("lastTimestamp") == "2025-12-01T01:21:01Z");
  CHECK(e.at("eventTime").is_null());
  CHECK(e.at("source") == json::parse(R"({"component":"spark-kubernetes-operator"})"));
  CHECK(e.at("reportingComponent") == "spark-kubernetes-operator");
  // The same occurrence, published again, has the same name; another occurrence does not.
  CHECK(MakeEvent(app, spec).at("metadata") == e.at("metadata"));
  spec.key = "other";
  CHECK(MakeEvent(app, spec).at("metadata") != e.at("metadata"));
}

TEST_CASE("the scheduler: Scheduled to the pod's node, else FailedScheduling", "[sim]") {
  std::vector<json::object> events;
  AppendScheduleEvents(Pod(true), kT, &events);
  REQUIRE(events.size() == 1);
  CHECK(events[0].at("reason") == "Scheduled");
  CHECK(events[0].at("message") == "Successfully assigned jobs/pi-0-driver to kubesim-node-1");
  CHECK(events[0].at("source") == json::parse(R"({"component":"default-scheduler"})"));
  CHECK(events[0].at("involvedObject") ==
        json::parse(R"({"apiVersion":"v1","kind":"Pod","name":"pi-0-driver","namespace":"jobs",
            "uid":"u-1","resourceVersion":"42"})"));

  events.clear();
  json::object pending =
      Pod(false, json::object{{"conditions",
                               json::array{json::object{{"type", "PodScheduled"},
                                                        {"status", "False"},
                                                        {"message", "0/3 nodes are available"}}}}});
  AppendScheduleEvents(pending, kT, &events);
  REQUIRE(events.size() == 1);
  CHECK(events[0].at("reason") == "FailedScheduling");
  CHECK(events[0].at("type") == "Warning");
  CHECK(events[0].at("message") == "0/3 nodes are available");
}

TEST_CASE("the kubelet starts each container: Pulling, Pulled, Created, Started", "[sim]") {
  std::vector<json::object> events;
  AppendStartEvents(Pod(true), kT, kT + 1500, false, &events);
  CHECK(Field(events, "reason") == std::vector<std::string>{"Pulling", "Pulled", "Pulling",
                                                            "Pulled", "Created", "Started",
                                                            "Created", "Started"});
  CHECK(events[0].at("message") == "Pulling image \"apache/spark:4.0.1\"");
  CHECK_THAT(std::string(events[1].at("message").as_string()),
             Catch::Matches("Successfully pulled image \"apache/spark:4\\.0\\.1\" in 750ms "
                            "\\(750ms including waiting\\)\\. Image size: [0-9]+ bytes\\."));
  CHECK(events[4].at("message") == "Created container: spark-kubernetes-driver");
  CHECK(events[5].at("message") == "Started container spark-kubernetes-driver");
  CHECK(events[5].at("lastTimestamp") == "2025-12-01T01:20:01Z");
  CHECK(events[0].at("involvedObject").at("fieldPath") ==
        "spec.containers{spark-kubernetes-driver}");
  CHECK(events[7].at("involvedObject").at("fieldPath") == "spec.containers{sidecar}");
  CHECK(events[0].at("source") ==
        json::parse(R"({"component":"kubelet","host":"kubesim-node-1"})"));
  CHECK(events[0].at("reportingInstance") == "kubesim-node-1");

  events.clear();
  AppendStartEvents(Pod(true), kT, kT + 1500, true, &events);
  CHECK(Field(events, "reason") ==
        std::vector<std::string>{"Pulled", "Pulled", "Created", "Started", "Created", "Started"});
  CHECK(events[0].at("message") ==
        "Container image \"apache/spark:4.0.1\" already present on machine");
}

TEST_CASE("the kubelet stops only running containers; an eviction is a Warning", "[sim]") {
  json::object status{
      {"containerStatuses",
       json::array{json::object{{"name", "spark-kubernetes-driver"},
                                {"state", {{"terminated", json::object{{"exitCode", 0}}}}}},
                   json::object{{"name", "sidecar"}, {"state", {{"running", json::object()}}}}}}};
  std::vector<json::object> events;
  AppendKillingEvents(Pod(true, status), kT, &events);
  REQUIRE(events.size() == 1);
  CHECK(events[0].at("reason") == "Killing");
  CHECK(events[0].at("message") == "Stopping container sidecar");
  CHECK(events[0].at("involvedObject").at("fieldPath") == "spec.containers{sidecar}");

  events.clear();
  AppendEvictedEvent(Pod(true), "The node was low on resource: memory. ", kT, &events);
  REQUIRE(events.size() == 1);
  CHECK(events[0].at("reason") == "Evicted");
  CHECK(events[0].at("type") == "Warning");
  CHECK_FALSE(events[0].at("involvedObject").as_object().contains("fieldPath"));
}

TEST_CASE("durations read as Go prints them", "[sim]") {
  CHECK(GoDuration(15) == "15ms");
  CHECK(GoDuration(1000) == "1s");
  CHECK(GoDuration(1500) == "1.5s");
  CHECK(GoDuration(2345) == "2.345s");
}

}  // namespace
}  // namespace kubesim::sim
