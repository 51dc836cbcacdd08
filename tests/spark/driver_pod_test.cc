#include "spark/driver_pod.h"

#include <catch2/catch.hpp>
#include <string>

#include "test_json.h"

namespace kje::spark {
namespace {

using testing::Pod;
using testing::Running;
using testing::Terminated;

rapidjson::Document Parse(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.c_str());
  REQUIRE_FALSE(document.HasParseError());
  return document;
}

DriverPod Project(const std::string& json) {
  absl::StatusOr<DriverPod> pod = ProjectDriverPod(Parse(json));
  REQUIRE(pod.ok());
  return *std::move(pod);
}

TEST_CASE("A driver pod is projected with its driver container's times") {
  DriverPod pod = Project(Pod(
      "gravitino-job-1-0-driver", "2026-05-12T10:00:01Z", "Succeeded",
      {{"spark-kubernetes-driver", Terminated("2026-05-12T10:00:05Z", "2026-05-12T10:00:30Z")}}));
  CHECK(pod.name == "gravitino-job-1-0-driver");
  CHECK(pod.creation_time == ParseRfc3339Millis("2026-05-12T10:00:01Z"));
  CHECK(pod.phase == "Succeeded");
  CHECK(pod.container_names == std::vector<std::string>{"spark-kubernetes-driver"});
  CHECK(pod.driver.started == ParseRfc3339Millis("2026-05-12T10:00:05Z"));
  CHECK(pod.driver.finished == ParseRfc3339Millis("2026-05-12T10:00:30Z"));
  CHECK_FALSE(pod.IsAlive());
  CHECK_FALSE(pod.deleting);
}

TEST_CASE("A running driver has a start time and no finish time") {
  DriverPod pod = Project(Pod("d", "2026-05-12T10:00:01Z", "Running",
                              {{"spark-kubernetes-driver", Running("2026-05-12T10:00:03Z")}}));
  CHECK(pod.driver.started == ParseRfc3339Millis("2026-05-12T10:00:03Z"));
  CHECK(pod.driver.finished == kNoTime);
  CHECK(pod.IsAlive());
}

TEST_CASE("A single container is the driver even if renamed") {
  DriverPod pod =
      Project(Pod("d", "2026-05-12T10:00:01Z", "Succeeded",
                  {{"main", Terminated("2026-05-12T10:00:05Z", "2026-05-12T10:00:30Z")}}));
  CHECK(pod.driver.started == ParseRfc3339Millis("2026-05-12T10:00:05Z"));
  CHECK(pod.driver.finished == ParseRfc3339Millis("2026-05-12T10:00:30Z"));
}

TEST_CASE("With sidecars - the driver is the container named spark-kubernetes-driver") {
  DriverPod pod = Project(Pod(
      "d", "2026-05-12T10:00:01Z", "Running",
      {{"istio-proxy", Running("2026-05-12T10:00:02Z")},
       {"spark-kubernetes-driver", Terminated("2026-05-12T10:00:05Z", "2026-05-12T10:00:30Z")}}));
  CHECK(pod.driver.started == ParseRfc3339Millis("2026-05-12T10:00:05Z"));
  CHECK(pod.driver.finished == ParseRfc3339Millis("2026-05-12T10:00:30Z"));
}

TEST_CASE("With sidecars and no container of the driver's name - the times are unknown") {
  DriverPod pod =
      Project(Pod("d", "2026-05-12T10:00:01Z", "Running",
                  {{"istio-proxy", Running("2026-05-12T10:00:02Z")},
                   {"main", Terminated("2026-05-12T10:00:05Z", "2026-05-12T10:00:30Z")}}));
  CHECK(pod.driver.started == kNoTime);
  CHECK(pod.driver.finished == kNoTime);
}

TEST_CASE("A waiting container has no times") {
  DriverPod pod =
      Project(Pod("d", "2026-05-12T10:00:01Z", "Pending",
                  {{"spark-kubernetes-driver", R"({"waiting":{"reason":"ImagePullBackOff"}})"}}));
  CHECK(pod.driver.started == kNoTime);
  CHECK(pod.driver.finished == kNoTime);
  CHECK(pod.IsAlive());
}

TEST_CASE("Pods without a phase or with Pending/Running/Unknown are alive") {
  for (const char* phase : {"Pending", "Running", "Unknown", ""}) {
    DriverPod pod;
    pod.phase = phase;
    INFO(phase);
    CHECK(pod.IsAlive());
  }
  DriverPod failed;
  failed.phase = "Failed";
  CHECK_FALSE(failed.IsAlive());
}

TEST_CASE("Malformed pods") {
  CHECK(ProjectDriverPod(Parse(R"({"metadata":{}})")).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(ProjectDriverPod(Parse("[]")).status().code() == absl::StatusCode::kInvalidArgument);
  DriverPod pod = Project(R"({"metadata":{"name":"d","creationTimestamp":5,
      "deletionTimestamp":"2026-05-12T10:00:01Z"},"spec":{"containers":"x"},
      "status":{"phase":3,"containerStatuses":{}}})");
  CHECK(pod.name == "d");
  CHECK(pod.creation_time == kNoTime);
  CHECK(pod.deleting);
  CHECK(pod.phase.empty());
  CHECK(pod.container_names.empty());
}

TEST_CASE("The newest driver wins: pods without a creation time count as oldest") {
  std::string list =
      std::string(R"({"items":[)") +
      Pod("old", "2026-05-12T10:00:01Z", "Failed", {{"spark-kubernetes-driver", ""}}) + "," +
      Pod("new", "2026-05-12T10:05:00Z", "Running", {}) + "," +
      Pod("newer-name-same-time", "2026-05-12T10:05:00Z", "Running", {}) + "," +
      R"({"metadata":{"name":"no-time"}},{"metadata":{}}]})";
  std::vector<DriverPod> pods = ProjectDriverPods(Parse(list));
  REQUIRE(pods.size() == 4);
  const DriverPod* newest = PickNewestDriver(pods);
  REQUIRE(newest != nullptr);
  CHECK(newest->name == "new");
  CHECK(PickNewestDriver({}) == nullptr);
  std::vector<DriverPod> only_untimed(1);
  only_untimed[0].name = "x";
  REQUIRE(PickNewestDriver(only_untimed) != nullptr);
  CHECK(PickNewestDriver(only_untimed)->name == "x");
}

TEST_CASE("The log container is named only when there are sidecars") {
  DriverPod single;
  single.container_names = {"spark-kubernetes-driver"};
  CHECK_FALSE(LogContainer(single).has_value());
  DriverPod renamed;
  renamed.container_names = {"main"};
  CHECK_FALSE(LogContainer(renamed).has_value());
  DriverPod sidecars;
  sidecars.container_names = {"istio-proxy", "spark-kubernetes-driver"};
  REQUIRE(LogContainer(sidecars).has_value());
  CHECK(*LogContainer(sidecars) == "spark-kubernetes-driver");
  DriverPod sidecars_renamed;
  sidecars_renamed.container_names = {"istio-proxy", "main"};
  CHECK_FALSE(LogContainer(sidecars_renamed).has_value());
  DriverPod none;
  CHECK_FALSE(LogContainer(none).has_value());
}

}  // namespace
}  // namespace kje::spark

namespace kje::spark {
namespace {

std::string NameOf(const std::string& spec) {
  rapidjson::Document document = Parse(spec);
  return DriverContainerName(&document);
}

const std::string kSidecarRunning = R"({"running":{"startedAt":"2026-05-12T10:00:02Z"}})";

TEST_CASE("#14230: phase Succeeded or Failed is terminated whatever the containers say") {
  for (const char* phase : {"Succeeded", "Failed"}) {
    INFO(phase);
    DriverPod pod = Project(Pod("d", "2026-05-12T10:00:01Z", phase,
                                {{"spark-kubernetes-driver", Running("2026-05-12T10:00:02Z")}}));
    CHECK_FALSE(pod.IsAlive());
  }
}

TEST_CASE("#14230: a finished driver with a running sidecar is not alive") {
  DriverPod pod = Project(
      Pod("d", "2026-05-12T10:00:01Z", "Running",
          {{"spark-kubernetes-driver", Terminated("2026-05-12T10:00:02Z", "2026-05-12T10:00:09Z")},
           {"log-shipper", kSidecarRunning}}));
  CHECK_FALSE(pod.IsAlive());
  CHECK(pod.driver.finished == ParseRfc3339Millis("2026-05-12T10:00:09Z"));
  // The driver still running, the sidecar done: alive.
  DriverPod running =
      Project(Pod("d", "2026-05-12T10:00:01Z", "Running",
                  {{"spark-kubernetes-driver", Running("2026-05-12T10:00:02Z")},
                   {"log-shipper", Terminated("2026-05-12T10:00:02Z", "2026-05-12T10:00:03Z")}}));
  CHECK(running.IsAlive());
}

TEST_CASE("#14230: a driver container that can't be told counts as running") {
  // Sidecars and no container of the driver's name; or no status for the driver container.
  DriverPod unnamed =
      Project(Pod("d", "2026-05-12T10:00:01Z", "Running",
                  {{"main", Terminated("2026-05-12T10:00:02Z", "2026-05-12T10:00:09Z")},
                   {"log-shipper", kSidecarRunning}}));
  CHECK(unnamed.IsAlive());
  DriverPod no_status = Project(Pod("d", "2026-05-12T10:00:01Z", "Pending",
                                    {{"spark-kubernetes-driver", ""}, {"log-shipper", ""}}));
  CHECK(no_status.IsAlive());
  DriverPod waiting = Project(Pod("d", "2026-05-12T10:00:01Z", "Pending",
                                  {{"spark-kubernetes-driver", R"({"waiting":{}})"}}));
  CHECK(waiting.IsAlive());
}

TEST_CASE("The app's driver container name decides liveness - times and the log container") {
  const std::string json =
      Pod("d", "2026-05-12T10:00:01Z", "Running",
          {{"main", Terminated("2026-05-12T10:00:02Z", "2026-05-12T10:00:09Z")},
           {"log-shipper", kSidecarRunning}});
  DriverPod by_default = Project(json);
  CHECK(by_default.driver.started == kNoTime);
  CHECK(by_default.IsAlive());
  CHECK(by_default.IsAlive("main") == false);
  CHECK(by_default.DriverTimes("main").finished == ParseRfc3339Millis("2026-05-12T10:00:09Z"));
  CHECK_FALSE(LogContainer(by_default).has_value());
  REQUIRE(LogContainer(by_default, "main").has_value());
  CHECK(*LogContainer(by_default, "main") == "main");

  absl::StatusOr<DriverPod> named = ProjectDriverPod(Parse(json), "main");
  REQUIRE(named.ok());
  CHECK(named->driver_container == "main");
  CHECK_FALSE(named->IsAlive());
  CHECK(named->driver.finished == ParseRfc3339Millis("2026-05-12T10:00:09Z"));
  REQUIRE(LogContainer(*named).has_value());
  CHECK(*LogContainer(*named) == "main");
  std::vector<DriverPod> listed =
      ProjectDriverPods(Parse(absl::StrCat(R"({"items":[)", json, "]}")), "main");
  REQUIRE(listed.size() == 1);
  CHECK_FALSE(listed[0].IsAlive());
}

TEST_CASE("The driver container name comes from the app's spec") {
  CHECK(DriverContainerName(nullptr) == "spark-kubernetes-driver");
  CHECK(NameOf((R"({"sparkConf":{}})")) == "spark-kubernetes-driver");
  CHECK(
      NameOf((R"({"sparkConf":{"spark.kubernetes.driver.podTemplateContainerName":" main "}})")) ==
      "main");
  // Spark makes the template's first container the driver, and keeps its name.
  CHECK(NameOf((R"({"driverSpec":{"podTemplateSpec":{"spec":{
      "containers":[{"name":"app"},{"name":"sidecar"}]}}}})")) == "app");
  CHECK(NameOf((R"({"driverSpec":{"podTemplateSpec":{"spec":{
      "containers":[{"image":"x"}]}}}})")) == "spark-kubernetes-driver");
  CHECK(NameOf((R"({"sparkConf":{
      "spark.kubernetes.driver.podTemplateContainerName":"sidecar"},
      "driverSpec":{"podTemplateSpec":{"spec":{"containers":[{"name":"app"},
      {"name":"sidecar"}]}}}})")) == "sidecar");
  CHECK(NameOf((R"({"sparkConf":{"spark.kubernetes.driver.podTemplateContainerName":"  "}})")) ==
        "spark-kubernetes-driver");
}

}  // namespace
}  // namespace kje::spark
