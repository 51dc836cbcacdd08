// Why a Kubeflow run's pods wait, as the simulated scheduler and kubelet report it through the
// store: an image no one can pull, a Secret missing from env or a volume (until it is created),
// a node selector no node matches, for the driver and for the executors.

#include <catch2/catch.hpp>

#include "kubesim/kubeflow/controller.h"
#include "tests/kubesim/kubeflow/store_fixture.h"

namespace kubesim::kubeflow {
namespace {

struct Waiting : Fixture {
  std::unique_ptr<Controller> controller;

  void Start(json::object app, double time_scale = 1.0) {
    REQUIRE(store->Create(app_type, "jobs", app, {}).ok());
    Options options;
    options.time_scale = time_scale;
    controller = NewController(*store, app_type, {"jobs"}, options, [this] { return now; });
  }

  void Advance(int64_t ms) {
    for (int64_t end = now + ms; now < end; now += 50) controller->RunOnce();
    controller->RunOnce();
  }

  json::object Pod(const std::string& name) {
    auto got = store->Get(PodType(), "jobs", name);
    REQUIRE(got.ok());
    return got.value();
  }

  std::string ExecutorName() {
    std::vector<std::string> pods = Pods("spark-role=executor");
    REQUIRE(pods.size() == 1);
    return pods[0];
  }

  static json::object Waiting_(const json::object& pod) {
    return pod.at("status").at("containerStatuses").at(0).at("state").at("waiting").as_object();
  }

  static std::string Condition(const json::object& pod, const std::string& type,
                               const std::string& field) {
    for (const json::value& c : pod.at("status").at("conditions").as_array()) {
      if (c.at("type") == type.c_str()) return std::string(c.at(field).as_string());
    }
    return "<none>";
  }

  const json::object* Event(const std::string& involved, const std::string& reason,
                            const std::string& message) {
    events_ = EventsOf(involved);
    for (const json::object& e : events_) {
      if (e.at("reason") == reason.c_str() && e.at("message") == message.c_str()) return &e;
    }
    return nullptr;
  }

  void CreateSecret(const std::string& name, const std::string& key) {
    json::object secret{{"metadata", json::object{{"name", name}}},
                        {"data", json::object{{key, "c2VjcmV0"}}}};
    REQUIRE(store->Create(*store->FindType("", "v1", "secrets"), "jobs", secret, {}).ok());
  }

  std::vector<json::object> events_;
};

json::object Conf(json::object app, const std::string& key, const std::string& value) {
  json::value& conf = app["spec"].as_object()["sparkConf"];
  if (!conf.is_object()) conf = json::object();
  conf.as_object()[key] = value;
  return app;
}

TEST_CASE_METHOD(Waiting,
                 "a driver image under .invalid: ErrImagePull, ImagePullBackOff, SUBMITTED",
                 "[kubeflow][waiting]") {
  json::object app = Example();
  app["spec"].as_object()["image"] = "registry.invalid/spark:4.0.1";
  Start(app);
  Advance(500);
  json::object driver = Pod("spark-pi-driver");
  CHECK(driver.at("status").at("phase") == "Pending");
  CHECK(Waiting_(driver).at("reason") == "ErrImagePull");
  CHECK_THAT(std::string(Waiting_(driver).at("message").as_string()),
             Catch::EndsWith("dial tcp: lookup registry.invalid: no such host"));
  CHECK(Condition(driver, "Ready", "reason") == "ContainersNotReady");
  Advance(2000);
  driver = Pod("spark-pi-driver");
  CHECK(Waiting_(driver) == json::parse(R"({"reason":"ImagePullBackOff",
                        "message":"Back-off pulling image \"registry.invalid/spark:4.0.1\""})"));
  // Pulled again at 10 s and 30 s: the events recur with a growing count.
  Advance(30'000);
  CHECK(State() == "SUBMITTED");
  const json::object* pulling =
      Event("spark-pi-driver", "Pulling", "Pulling image \"registry.invalid/spark:4.0.1\"");
  REQUIRE(pulling != nullptr);
  CHECK(pulling->at("count") == 3);
  CHECK(pulling->at("involvedObject").at("fieldPath") ==
        "spec.containers{spark-kubernetes-driver}");
  CHECK(pulling->at("involvedObject").at("uid") == driver.at("metadata").at("uid"));
  for (const char* message : {"Error: ErrImagePull", "Error: ImagePullBackOff"}) {
    const json::object* e = Event("spark-pi-driver", "Failed", message);
    REQUIRE(e != nullptr);
    CHECK(e->at("type") == "Warning");
    CHECK(e->at("count") == 3);
  }
  const json::object* backoff = Event("spark-pi-driver", "BackOff",
                                      "Back-off pulling image \"registry.invalid/spark:4.0.1\"");
  REQUIRE(backoff != nullptr);
  CHECK(backoff->at("type") == "Normal");
  CHECK(Event("spark-pi-driver", "Started", "Started container spark-kubernetes-driver") ==
        nullptr);
}

TEST_CASE_METHOD(Waiting, "a missing Secret in the driver's env, then created: the run proceeds",
                 "[kubeflow][waiting]") {
  Start(Conf(Example(), "spark.kubernetes.driver.secretKeyRef.DB_PASSWORD", "db:password"));
  Advance(3000);
  json::object driver = Pod("spark-pi-driver");
  // Spark put the reference into the pod.
  CHECK(driver.at("spec").at("containers").at(0).at("env").as_array().back() ==
        json::parse(R"({"name":"DB_PASSWORD",
                        "valueFrom":{"secretKeyRef":{"name":"db","key":"password"}}})"));
  CHECK(Waiting_(driver) ==
        json::parse(
            R"({"reason":"CreateContainerConfigError","message":"secret \"db\" not found"})"));
  const json::object* failed = Event("spark-pi-driver", "Failed", "Error: secret \"db\" not found");
  REQUIRE(failed != nullptr);
  CHECK(failed->at("type") == "Warning");
  CHECK(State() == "SUBMITTED");
  CreateSecret("db", "password");
  std::vector<std::string> states = RunUntil(*controller, [&] { return State() == "COMPLETED"; });
  CHECK(Event("spark-pi-driver", "Started", "Started container spark-kubernetes-driver") !=
        nullptr);
}

TEST_CASE_METHOD(Waiting,
                 "a missing Secret volume: ContainerCreating and FailedMount until created",
                 "[kubeflow][waiting]") {
  Start(Conf(Example(), "spark.kubernetes.driver.secrets.tls", "/etc/tls"));
  Advance(4000);
  json::object driver = Pod("spark-pi-driver");
  CHECK(Waiting_(driver).at("reason") == "ContainerCreating");
  CHECK(driver.at("spec").at("volumes").as_array().back() ==
        json::parse(R"({"name":"tls-volume","secret":{"secretName":"tls","defaultMode":420}})"));
  const json::object* mount =
      Event("spark-pi-driver", "FailedMount",
            "MountVolume.SetUp failed for volume \"tls-volume\" : secret \"tls\" not found");
  REQUIRE(mount != nullptr);
  CHECK(mount->at("count").as_int64() >= 3);
  CHECK(State() == "SUBMITTED");
  CreateSecret("tls", "tls.crt");
  RunUntil(*controller, [&] { return State() == "COMPLETED"; });
}

TEST_CASE_METHOD(Waiting, "a driver node selector no node matches: Unschedulable, re-reported",
                 "[kubeflow][waiting]") {
  // Operator time 100x: the scheduler's 5-minute retry comes every 3 s.
  Start(Conf(Example(), "spark.kubernetes.driver.node.selector.nvidia.com/gpu.present", "true"),
        100.0);
  Advance(7000);
  json::object driver = Pod("spark-pi-driver");
  CHECK(driver.at("spec").at("nodeSelector") ==
        json::parse(R"({"nvidia.com/gpu.present":"true"})"));
  CHECK_FALSE(driver.at("spec").as_object().contains("nodeName"));
  CHECK(Condition(driver, "PodScheduled", "reason") == "Unschedulable");
  const std::string message =
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: "
      "0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
  CHECK(Condition(driver, "PodScheduled", "message") == message);
  const json::object* failed = Event("spark-pi-driver", "FailedScheduling", message);
  REQUIRE(failed != nullptr);
  CHECK(failed->at("count") == 3);
  CHECK(failed->at("source").at("component") == "default-scheduler");
  CHECK(State() == "SUBMITTED");
}

TEST_CASE_METHOD(Waiting, "a node selector a node matches: placed there", "[kubeflow][waiting]") {
  Start(
      Conf(Example(), "spark.kubernetes.node.selector.topology.kubernetes.io/zone", "us-east-1c"));
  RunUntil(*controller, [&] { return State() == "RUNNING"; });
  CHECK(Pod("spark-pi-driver").at("spec").at("nodeName") == "kubesim-node-2");
  CHECK(Pod("spark-pi-driver").at("status").at("hostIP") == "10.0.0.12");
  RunUntil(*controller, [&] { return State() == "COMPLETED"; });
}

TEST_CASE_METHOD(Waiting, "unschedulable executors: the driver runs and waits for them",
                 "[kubeflow][waiting]") {
  Start(Conf(Example(), "spark.kubernetes.executor.node.selector.pool", "spot"));
  RunUntil(*controller,
           [&] { return State() == "RUNNING" && !Pods("spark-role=executor").empty(); });
  Advance(60'000);  // far past the run's 3 s
  CHECK(State() == "RUNNING");
  const std::string executor = ExecutorName();
  json::object pod = Pod(executor);
  CHECK(pod.at("status").at("phase") == "Pending");
  CHECK(Condition(pod, "PodScheduled", "reason") == "Unschedulable");
  CHECK(Event(executor, "FailedScheduling", Condition(pod, "PodScheduled", "message")) != nullptr);
  auto app = store->Get(app_type, "jobs", "spark-pi");
  CHECK(app.value().at("status").at("executorState").at(executor) == "PENDING");
  CHECK(Pod("spark-pi-driver").at("status").at("phase") == "Running");
}

TEST_CASE_METHOD(Waiting,
                 "an executor image under .invalid: ImagePullBackOff while the driver runs",
                 "[kubeflow][waiting]") {
  json::object app = Example();
  app["spec"].as_object()["executor"].as_object()["image"] = "registry.invalid/spark:4.0.1";
  Start(app);
  RunUntil(*controller,
           [&] { return State() == "RUNNING" && !Pods("spark-role=executor").empty(); });
  Advance(5000);
  const std::string executor = ExecutorName();
  CHECK(Waiting_(Pod(executor)).at("reason") == "ImagePullBackOff");
  CHECK(Event(executor, "Failed", "Error: ErrImagePull") != nullptr);
  CHECK(State() == "RUNNING");
}

}  // namespace
}  // namespace kubesim::kubeflow
