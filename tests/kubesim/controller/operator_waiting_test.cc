// Why an Apache operator's driver waits, as the simulated scheduler and kubelet report it through
// the store, and what the operator makes of it: it stays DriverRequested until its driver start
// timeout.

#include <catch2/catch.hpp>

#include "tests/kubesim/controller/operator_world.h"

namespace kubesim {
namespace {

struct Waiting : OperatorWorld {
  void Advance(int64_t ms) {
    for (int64_t end = now + ms; now < end; now += 100) controller->RunOnce();
    controller->RunOnce();
  }

  json::object Driver() {
    auto got = store->Get(PodType(), "default", "pi-0-driver");
    REQUIRE(got.ok());
    return got.value();
  }

  json::object DriverWaiting() {
    return Driver()
        .at("status")
        .at("containerStatuses")
        .at(0)
        .at("state")
        .at("waiting")
        .as_object();
  }

  std::string DriverCondition(const std::string& type, const std::string& field) {
    const json::object driver = Driver();  // held: the loop would outlive a temporary
    for (const json::value& c : driver.at("status").at("conditions").as_array()) {
      if (c.at("type") == type.c_str()) return std::string(c.at(field).as_string());
    }
    return "<none>";
  }

  std::optional<json::object> Event(const std::string& reason, const std::string& message) {
    for (const json::object& e : EventsOf("pi-0-driver")) {
      if (e.at("reason") == reason.c_str() && e.at("message") == message.c_str()) return e;
    }
    return std::nullopt;
  }

  void CreateSecret(const std::string& name, const std::string& key) {
    json::object secret{{"metadata", json::object{{"name", name}}},
                        {"data", json::object{{key, "c2VjcmV0"}}}};
    REQUIRE(store->Create(*store->FindType("", "v1", "secrets"), "default", secret, {}).ok());
  }
};

TEST_CASE_METHOD(Waiting, "operator: a driver image under .invalid waits until the start timeout",
                 "[controller][operator][waiting]") {
  Create("", json::object{{"spark.kubernetes.container.image", "registry.invalid/spark:4.0.1"}},
         json::object{
             {"applicationTimeoutConfig", json::object{{"driverStartTimeoutMillis", 60000}}}});
  RunUntil("DriverRequested");
  Advance(300);
  CHECK(DriverWaiting().at("reason") == "ErrImagePull");
  Advance(2000);
  CHECK(DriverWaiting() == json::parse(R"({"reason":"ImagePullBackOff",
                        "message":"Back-off pulling image \"registry.invalid/spark:4.0.1\""})"));
  CHECK(DriverCondition("Ready", "reason") == "ContainersNotReady");
  CHECK(DriverCondition("PodReadyToStartContainers", "status") == "True");
  Advance(30000);
  CHECK(State() == "DriverRequested");
  auto failed = Event("Failed", "Error: ImagePullBackOff");
  REQUIRE(failed);
  CHECK(failed->at("count") == 3);
  CHECK(failed->at("involvedObject").at("fieldPath") == "spec.containers{spark-kubernetes-driver}");
  auto pull = Event("Failed",
                    "Failed to pull image \"registry.invalid/spark:4.0.1\": rpc error: "
                    "code = Unknown desc = failed to pull and unpack image "
                    "\"registry.invalid/spark:4.0.1\": failed to resolve reference "
                    "\"registry.invalid/spark:4.0.1\": failed to do request: Head "
                    "\"https://registry.invalid/v2/spark/manifests/4.0.1\": dial tcp: "
                    "lookup registry.invalid: no such host");
  REQUIRE(pull);
  CHECK(pull->at("type") == "Warning");
  // The operator gives up on its own clock, not the kubelet's.
  RunUntil("DriverStartTimedOut");
}

TEST_CASE_METHOD(Waiting, "operator: a missing Secret in the driver's env, then created",
                 "[controller][operator][waiting]") {
  Create("", json::object{{"spark.kubernetes.driver.secretKeyRef.DB_PASSWORD", "db:password"}});
  RunUntil("DriverRequested");
  Advance(3000);
  CHECK(DriverWaiting() == json::parse(R"({"reason":"CreateContainerConfigError",
                                           "message":"secret \"db\" not found"})"));
  REQUIRE(Event("Failed", "Error: secret \"db\" not found"));
  CHECK(State() == "DriverRequested");
  CreateSecret("db", "password");
  RunUntil("ResourceReleased");
  CHECK(Event("Started", "Started container spark-kubernetes-driver"));
}

TEST_CASE_METHOD(Waiting, "operator: a missing Secret volume: FailedMount until created",
                 "[controller][operator][waiting]") {
  Create("", json::object{{"spark.kubernetes.driver.secrets.tls", "/etc/tls"}});
  RunUntil("DriverRequested");
  Advance(4000);
  CHECK(DriverWaiting().at("reason") == "ContainerCreating");
  auto mount =
      Event("FailedMount",
            "MountVolume.SetUp failed for volume \"tls-volume\" : secret \"tls\" not found");
  REQUIRE(mount);
  CHECK(mount->at("type") == "Warning");
  CreateSecret("tls", "tls.crt");
  RunUntil("ResourceReleased");
  CHECK(Event("Started", "Started container spark-kubernetes-driver"));
}

TEST_CASE_METHOD(Waiting, "operator: a node selector no node matches: Unschedulable",
                 "[controller][operator][waiting]") {
  Create("", json::object{{"spark.kubernetes.node.selector.kubernetes.io/arch", "arm64"}});
  RunUntil("DriverRequested");
  Advance(1000);
  CHECK(Driver().at("spec").at("nodeSelector") == json::parse(R"({"kubernetes.io/arch":"arm64"})"));
  CHECK(DriverCondition("PodScheduled", "reason") == "Unschedulable");
  const std::string message =
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: "
      "0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
  CHECK(DriverCondition("PodScheduled", "message") == message);
  auto failed = Event("FailedScheduling", message);
  REQUIRE(failed);
  CHECK(failed->at("count") == 1);
  CHECK(State() == "DriverRequested");
}

TEST_CASE("operator: FailedScheduling is re-reported on the scheduler's retry",
          "[controller][operator][waiting]") {
  op::Options options;
  options.time_scale = 100;  // the 5-minute retry every 3 s
  Waiting w;
  w.controller = NewController(*w.store, w.spark, {"default"}, options, [&w] { return w.now; });
  // The default start timeout (300 s) would pass in 3 s: give it an hour.
  w.Create("", json::object{{"spark.kubernetes.driver.node.selector.pool", "gpu"}},
           json::object{
               {"applicationTimeoutConfig", json::object{{"driverStartTimeoutMillis", 3600000}}}});
  w.RunUntil("DriverRequested");
  w.Advance(6500);
  auto failed = w.Event("FailedScheduling", w.DriverCondition("PodScheduled", "message"));
  REQUIRE(failed);
  CHECK(failed->at("count") == 3);
}

std::vector<std::string> ExecutorPods(Waiting& w) {
  ListOptions options;
  options.label_selector = "spark-role=executor";
  std::vector<std::string> out;
  const auto listed = w.store->List(PodType(), "default", options);
  REQUIRE(listed.ok());
  for (const json::value& p : listed.value().at("items").as_array()) {
    out.emplace_back(p.at("metadata").at("name").as_string());
  }
  return out;
}

json::object PodOf(Waiting& w, const std::string& name) {
  auto got = w.store->Get(PodType(), "default", name);
  REQUIRE(got.ok());
  return got.value();
}

TEST_CASE_METHOD(Waiting, "operator: spark.executor.instances: the driver's executors run",
                 "[controller][operator][waiting]") {
  Create("", json::object{{"spark.executor.instances", "2"}});
  RunUntil("RunningHealthy");
  Advance(2000);
  CHECK(ExecutorPods(*this) == std::vector<std::string>{"pi-0-exec-1", "pi-0-exec-2"});
  json::object e = PodOf(*this, "pi-0-exec-1");
  CHECK(e.at("status").at("phase") == "Running");
  CHECK(e.at("metadata").at("ownerReferences").at(0).at("name") == "pi-0-driver");
  CHECK(e.at("metadata").at("labels").at("spark-app-selector") == "pi-0");
  std::vector<std::string> reasons;
  for (const json::object& ev : EventsOf("pi-0-exec-1"))
    reasons.emplace_back(ev.at("reason").as_string());
  CHECK(reasons == std::vector<std::string>{"Scheduled", "Pulled", "Created", "Started"});
  // The restart policy is Never: the operator keeps executors past the driver's end
  // (deleteOnTermination false); they finish, and go when the app's pods are released.
  RunUntil("ResourceReleased");
  CHECK(ExecutorPods(*this).empty());
}

TEST_CASE_METHOD(Waiting, "operator: unschedulable executors: running, the driver waits",
                 "[controller][operator][waiting]") {
  Create("", json::object{{"spark.executor.instances", "1"},
                          {"spark.kubernetes.executor.node.selector.pool", "spot"}});
  RunUntil("RunningHealthy");
  Advance(30000);  // far past the run's 3 s
  CHECK(State() == "RunningHealthy");
  json::object e = PodOf(*this, "pi-0-exec-1");
  CHECK(e.at("status").at("phase") == "Pending");
  CHECK(e.at("spec").at("nodeSelector") == json::parse(R"({"pool":"spot"})"));
  CHECK(e.at("status").at("conditions").at(0).at("reason") == "Unschedulable");
  CHECK(EventsOf("pi-0-exec-1").at(0).at("reason") == "FailedScheduling");
  CHECK(Driver().at("status").at("phase") == "Running");
}

TEST_CASE_METHOD(Waiting, "operator: executors that can't pull hold the app until the timeout",
                 "[controller][operator][waiting]") {
  Create(
      "",
      json::object{{"spark.executor.instances", "1"},
                   {"spark.kubernetes.executor.container.image", "registry.invalid/spark:4.0.1"}},
      json::object{
          {"instanceConfig", json::object{{"initExecutors", 1}}},
          {"applicationTimeoutConfig", json::object{{"executorStartTimeoutMillis", 20000}}}});
  RunUntil("DriverReady");
  Advance(5000);
  CHECK(State() == "DriverReady");
  json::object e = PodOf(*this, "pi-0-exec-1");
  CHECK(e.at("spec").at("containers").at(0).at("image") == "registry.invalid/spark:4.0.1");
  CHECK(e.at("status").at("containerStatuses").at(0).at("state").at("waiting").at("reason") ==
        "ImagePullBackOff");
  RunUntil("ExecutorsStartTimedOut");
}

}  // namespace
}  // namespace kubesim
