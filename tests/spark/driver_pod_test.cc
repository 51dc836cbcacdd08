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
