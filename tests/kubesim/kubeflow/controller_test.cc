// The Kubeflow operator through the store, over the real v2.5.2 CRD: spark-pi.yaml runs to
// COMPLETED, executors are found in both ownership modes, and a Foreground deletion takes every
// pod with the application.

#include "kubesim/kubeflow/controller.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>

#include "kubesim/schema/crd.h"
#include "kubesim/store/core_types.h"
#include "tests/kubesim/kubeflow/store_fixture.h"

namespace kubesim::kubeflow {
namespace {

namespace json = boost::json;

TEST_CASE_METHOD(Fixture, "spark-pi.yaml runs to COMPLETED through the store",
                 "[kubeflow][controller]") {
  REQUIRE(store->Create(app_type, "jobs", Example(), {}).ok());
  auto c = NewController(*store, app_type, {"jobs"}, Options{}, [this] { return now; });
  bool saw_executor = false;
  auto states = RunUntil(*c, [&] {
    saw_executor = saw_executor || !Pods("spark-role=executor").empty();
    return State() == "COMPLETED";
  });
  // The first pass submits: no moment without a status.
  CHECK(states == std::vector<std::string>{"SUBMITTED", "RUNNING", "SUCCEEDING", "COMPLETED"});
  CHECK(saw_executor);
  CHECK(Pods() == std::vector<std::string>{"spark-pi-driver"});
  auto log = store->ReadLog("jobs", "spark-pi-driver", {});
  REQUIRE(log.ok());
  CHECK(log.value().find("Pi is roughly 3.14") != std::string::npos);
  auto app = store->Get(app_type, "jobs", "spark-pi");
  REQUIRE(app.ok());
  CHECK(app.value().at("metadata").at("annotations").as_object().contains(kSpecHashAnnotation));
  auto events = store->List(*store->FindType("", "v1", "events"), "jobs", {});
  REQUIRE(events.ok());
  CHECK(events.value().at("items").as_array().size() >= 8);
}

TEST_CASE_METHOD(Fixture, "a Foreground deletion takes the driver and executors with the app",
                 "[kubeflow][controller]") {
  json::object app = Example();
  app["spec"].as_object()["sparkConf"] = json::object{{"kubesim.outcome", "hang"}};
  app["spec"].as_object()["executor"].as_object()["instances"] = 2;
  REQUIRE(store->Create(app_type, "jobs", app, {}).ok());
  auto c = NewController(*store, app_type, {"jobs"}, Options{}, [this] { return now; });
  RunUntil(*c, [&] { return Pods().size() == 3 && State() == "RUNNING"; });
  DeleteOptions del;
  del.propagation_policy = "Foreground";
  REQUIRE(store->Delete(app_type, "jobs", "spark-pi", del).ok());
  RunUntil(*c, [&] { return State() == "<gone>"; });
  CHECK(Pods().empty());
}

TEST_CASE_METHOD(Fixture, "driver-only executors are found by their labels",
                 "[kubeflow][controller]") {
  json::object app = Example();
  app["spec"].as_object()["sparkConf"] = json::object{{"kubesim.outcome", "hang"}};
  REQUIRE(store->Create(app_type, "jobs", app, {}).ok());
  Options options;
  options.executor_owner = ExecutorOwner::kDriverOnly;
  auto c = NewController(*store, app_type, {"jobs"}, options, [this] { return now; });
  auto running = [&] {
    auto got = store->Get(app_type, "jobs", "spark-pi");
    const json::value* s = got.value().if_contains("status");
    if (s == nullptr || !s->as_object().contains("executorState")) return false;
    return s->at("executorState").as_object().begin()->value() == "RUNNING";
  };
  RunUntil(*c, running);
  // Deleting the driver takes its executors (garbage collection) and fails the run.
  REQUIRE(store->Delete(PodType(), "jobs", "spark-pi-driver", {}).ok());
  RunUntil(*c, [&] { return State() == "FAILED"; });
  CHECK(Pods().empty());
}

using Strings = std::vector<std::string>;

TEST_CASE_METHOD(Fixture, "a succeeding run: the pods' scheduler and kubelet events",
                 "[kubeflow][controller][events]") {
  REQUIRE(store->Create(app_type, "jobs", Example(), {}).ok());
  auto c = NewController(*store, app_type, {"jobs"}, Options{}, [this] { return now; });
  std::string executor;
  RunUntil(*c, [&] {
    for (const std::string& p : Pods("spark-role=executor")) executor = p;
    return State() == "COMPLETED";
  });
  CHECK(ReasonsOf("spark-pi-driver") ==
        Strings{"Scheduled", "Pulling", "Pulled", "Created", "Started"});
  auto driver = store->Get(PodType(), "jobs", "spark-pi-driver");
  REQUIRE(driver.ok());
  for (const json::object& e : EventsOf("spark-pi-driver")) {
    // The loop filled in the uid of the pod created in the same pass.
    CHECK(e.at("involvedObject").at("uid") == driver.value().at("metadata").at("uid"));
    CHECK(e.at("involvedObject").at("kind") == "Pod");
    CHECK(e.at("count") == 1);
  }
  const std::vector<json::object> events = EventsOf("spark-pi-driver");
  CHECK(std::string(events[0].at("message").as_string()) ==
        "Successfully assigned jobs/spark-pi-driver to " +
            std::string(driver.value().at("spec").at("nodeName").as_string()));
  CHECK(events[0].at("source").at("component") == "default-scheduler");
  CHECK(events[1].at("message") == "Pulling image \"docker.io/apache/spark:4.0.4\"");
  CHECK(events[3].at("involvedObject").at("fieldPath") ==
        "spec.containers{spark-kubernetes-driver}");
  CHECK(events[4].at("message") == "Started container spark-kubernetes-driver");
  CHECK(events[4].at("source").at("component") == "kubelet");
  // The executor shares the driver's image and node: no second pull. The driver stopped it
  // while it ran.
  REQUIRE_FALSE(executor.empty());
  CHECK(ReasonsOf(executor) == Strings{"Scheduled", "Pulled", "Created", "Started", "Killing"});
  CHECK(EventsOf(executor).back().at("message") == "Stopping container spark-kubernetes-executor");
  const Strings app = ReasonsOf("spark-pi");
  CHECK(app.front() == "SparkApplicationAdded");
  CHECK(app.back() == "SparkApplicationCompleted");
}

TEST_CASE_METHOD(Fixture, "a failing run: the driver's events end with its start",
                 "[kubeflow][controller][events]") {
  json::object app = Example();
  app["spec"].as_object()["sparkConf"] = json::object{{"kubesim.outcome", "fail"}};
  REQUIRE(store->Create(app_type, "jobs", app, {}).ok());
  auto c = NewController(*store, app_type, {"jobs"}, Options{}, [this] { return now; });
  RunUntil(*c, [&] { return State() == "FAILED"; });
  // A container that exits non-zero under restartPolicy Never earns no kubelet event.
  CHECK(ReasonsOf("spark-pi-driver") ==
        Strings{"Scheduled", "Pulling", "Pulled", "Created", "Started"});
  const Strings reasons = ReasonsOf("spark-pi");
  CHECK(std::find(reasons.begin(), reasons.end(), "SparkDriverFailed") != reasons.end());
  CHECK(reasons.back() == "SparkApplicationFailed");
}

TEST_CASE_METHOD(Fixture, "an unschedulable driver: FailedScheduling only",
                 "[kubeflow][controller][events]") {
  json::object app = Example();
  app["spec"].as_object()["sparkConf"] = json::object{{"kubesim.outcome", "unschedulable"}};
  REQUIRE(store->Create(app_type, "jobs", app, {}).ok());
  auto c = NewController(*store, app_type, {"jobs"}, Options{}, [this] { return now; });
  for (int i = 0; i < 100; ++i, now += 50) c->RunOnce();
  const std::vector<json::object> events = EventsOf("spark-pi-driver");
  REQUIRE(events.size() == 1);
  CHECK(events[0].at("reason") == "FailedScheduling");
  CHECK(events[0].at("type") == "Warning");
  CHECK_THAT(std::string(events[0].at("message").as_string()),
             Catch::StartsWith("0/3 nodes are available"));
}

TEST_CASE_METHOD(Fixture, "a running driver deleted by hand: Killing",
                 "[kubeflow][controller][events]") {
  json::object app = Example();
  app["spec"].as_object()["sparkConf"] = json::object{{"kubesim.outcome", "hang"}};
  REQUIRE(store->Create(app_type, "jobs", app, {}).ok());
  auto c = NewController(*store, app_type, {"jobs"}, Options{}, [this] { return now; });
  RunUntil(*c, [&] { return State() == "RUNNING"; });
  REQUIRE(store->Delete(PodType(), "jobs", "spark-pi-driver", {}).ok());
  RunUntil(*c, [&] { return State() == "FAILED"; });
  CHECK(ReasonsOf("spark-pi-driver") ==
        Strings{"Scheduled", "Pulling", "Pulled", "Created", "Started", "Killing"});
}

TEST_CASE_METHOD(Fixture, "apps outside the operator's namespaces get no status",
                 "[kubeflow][controller]") {
  REQUIRE(store->Create(app_type, "jobs", Example(), {}).ok());
  auto c = NewController(*store, app_type, {"elsewhere"}, Options{}, [this] { return now; });
  for (int i = 0; i < 20; ++i, now += 100) c->RunOnce();
  CHECK(State() == "<none>");
  CHECK(Pods().empty());
}

}  // namespace
}  // namespace kubesim::kubeflow
