#include "kubesim/operator/operator.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "kubesim/operator/driver.h"
#include "tests/kubesim/operator/world.h"

namespace kubesim {
namespace {

using testing::ExampleApp;
using testing::kStartMs;
using testing::SetConf;
using testing::Tolerations;
using testing::World;
namespace json = boost::json;

using States = std::vector<std::string>;

const States kSuccess = {"Submitted",      "DriverRequested", "DriverStarted",   "DriverReady",
                         "RunningHealthy", "Succeeded",       "ResourceReleased"};

// A plain SparkPi without retain policy or TTL (pi.yaml minus its tolerations).
json::object PlainPi() {
  json::object app = ExampleApp("pi.yaml");
  app["spec"].as_object().erase("applicationTolerations");
  return app;
}

int64_t TimeOf(const json::object& entry) {
  auto t = op::internal::ParseTime(entry.at("lastTransitionTime").as_string());
  REQUIRE(t);
  return *t;
}

// The first history entry (across attempts) in `state`, by value: the history is rebuilt per call.
json::object Entry(const World& w, const std::string& state) {
  for (const auto& [k, e] : w.AllEntries()) {
    if (e.at("currentStateSummary").as_string() == state) return e;
  }
  FAIL("no " << state << " in history");
  return {};
}

std::string Message(const json::object& entry) {
  const json::value* m = entry.if_contains("message");
  return m == nullptr ? "" : std::string(m->as_string());
}

TEST_CASE("Success with the default policy runs to ResourceReleased", "[operator]") {
  World w(PlainPi());
  SetConf(w.mutable_app(), "kubesim.durationMs", "7000");
  w.Run();
  CHECK(w.States() == kSuccess);
  // Keys are "0".."6", currentState is the last entry.
  auto entries = w.AllEntries();
  for (size_t i = 0; i < entries.size(); ++i) CHECK(entries[i].first == static_cast<int64_t>(i));
  CHECK(w.Status().at("currentState") == entries.back().second);
  CHECK(w.Status().at("currentAttemptSummary").at("attemptInfo") ==
        json::parse(R"({"failureRestartCounter":0,"id":0,"restartCounter":0,
                        "schedulingFailureRestartCounter":0})"));
  CHECK_FALSE(w.Status().contains("previousAttemptSummary"));
  CHECK(Message(Entry(w, "Submitted")) ==
        "Spark application has been created on Kubernetes Cluster.");
  CHECK(Message(Entry(w, "DriverRequested")) == "Requested driver from resource scheduler.");
  CHECK(Message(Entry(w, "DriverStarted")) == "Driver has started running.");
  CHECK(Message(Entry(w, "DriverReady")) == "Driver has reached ready state.");
  CHECK(Message(Entry(w, "RunningHealthy")) == "Application is running healthy.");
  CHECK(Message(Entry(w, "Succeeded")) == "Spark application completed successfully.");
  // Success seen through pod phase Succeeded carries no driver status; the normal end no message.
  CHECK_FALSE(Entry(w, "Succeeded").contains("lastObservedDriverStatus"));
  CHECK_FALSE(Entry(w, "ResourceReleased").contains("message"));
  // Times never go backwards, and the driver ran for kubesim.durationMs.
  for (size_t i = 1; i < entries.size(); ++i) {
    CHECK(TimeOf(entries[i].second) >= TimeOf(entries[i - 1].second));
  }
  CHECK(TimeOf(Entry(w, "Succeeded")) - TimeOf(Entry(w, "DriverStarted")) == 7000);
  CHECK(TimeOf(Entry(w, "Submitted")) == kStartMs);
  // The finalizer stays; the driver was created once and released.
  CHECK(w.Finalizers() == std::vector<std::string>{testing::kFinalizer});
  CHECK(w.created_pods() == std::vector<std::string>{"pi-0-driver"});
  CHECK(w.pods().empty());
  CHECK(w.deleted_pods().at("pi-0-driver").at("status").at("phase").as_string() == "Succeeded");
  // Nothing more to do: a last reconcile changes nothing and asks for no requeue.
  op::Actions idle = w.Reconcile();
  CHECK_FALSE(idle.status);
  CHECK_FALSE(idle.requeue_at_ms);
  CHECK(idle.delete_pods.empty());
}

TEST_CASE("A job that ends before the operator reaches RunningHealthy still succeeds",
          "[operator]") {
  // The driver exits 100 ms after it starts, before DriverReady -> RunningHealthy (400 ms): the
  // outcome must be recorded without any pod event to wake the operator up.
  World w(PlainPi(), /*time_scale=*/20);
  SetConf(w.mutable_app(), "kubesim.durationMs", "100");
  w.Run();
  CHECK(w.States() == kSuccess);
}

TEST_CASE("The time scale compresses every delay", "[operator]") {
  World w(PlainPi(), /*time_scale=*/100);
  SetConf(w.mutable_app(), "kubesim.durationMs", "60000");
  w.Run();
  CHECK(w.States() == kSuccess);
  CHECK(TimeOf(Entry(w, "Succeeded")) - TimeOf(Entry(w, "DriverStarted")) == 600);
  CHECK(w.now() - kStartMs < 1000);
}

TEST_CASE(
    "Retain Always keeps the driver, then releases it after the retain duration and the "
    "TTL deletes the application",
    "[operator]") {
  // The e2e input of the retain-duration test.
  World w(testing::LoadApp(std::string(KUBESIM_OPERATOR_TESTDATA) +
                           "/spark-example-retain-duration.yaml"));
  w.RunUntilState("TerminatedWithoutReleaseResources");
  CHECK(Message(Entry(w, "TerminatedWithoutReleaseResources")) ==
        "Application is terminated without releasing resources as configured.");
  const std::string driver = "spark-example-retain-duration-0-driver";
  REQUIRE(w.pods().contains(driver));
  CHECK(w.pods().at(driver).at("status").at("phase").as_string() == "Succeeded");
  const int64_t terminated_at = TimeOf(Entry(w, "TerminatedWithoutReleaseResources"));
  w.RunUntilState("ResourceReleased");
  CHECK(w.States() == States{"Submitted", "DriverRequested", "DriverStarted", "DriverReady",
                             "RunningHealthy", "Succeeded", "TerminatedWithoutReleaseResources",
                             "ResourceReleased"});
  CHECK(TimeOf(Entry(w, "ResourceReleased")) - terminated_at == 10000);
  CHECK(Message(Entry(w, "ResourceReleased")) ==
        "Spark application resources released after exceeding the configured retain duration.");
  CHECK_FALSE(w.pods().contains(driver));
  // ttlAfterStopMillis (30 s from the stop) deletes the app; the finalizer then goes at once.
  w.Run();
  CHECK(w.app_delete_requests() == 1);
  CHECK_FALSE(w.exists());
  CHECK(w.now() - terminated_at == 30000);
}

TEST_CASE("Failure with retain OnFailure keeps the failed driver for good", "[operator]") {
  World w(testing::LoadApp(std::string(KUBESIM_OPERATOR_TESTDATA) +
                           "/spark-example-retain-on-failure.yaml"));
  SetConf(w.mutable_app(), "kubesim.outcome", "fail");
  w.Run();
  CHECK(w.States() == States{"Submitted", "DriverRequested", "DriverStarted", "DriverReady",
                             "RunningHealthy", "Failed", "TerminatedWithoutReleaseResources"});
  const json::object failed = Entry(w, "Failed");
  CHECK(Message(failed) ==
        "Driver has one or more failed critical container(s), refer last observed status for "
        "details.");
  const json::object& observed = failed.at("lastObservedDriverStatus").as_object();
  CHECK(observed.at("phase").as_string() == "Failed");
  const auto& container = observed.at("containerStatuses").at(0).as_object();
  CHECK(container.at("name").as_string() == "spark-kubernetes-driver");
  CHECK(container.at("state").at("terminated").at("exitCode").as_int64() == 1);
  CHECK(container.at("state").at("terminated").at("reason").as_string() == "Error");
  const std::string driver = "spark-example-retain-on-failure-0-driver";
  REQUIRE(w.pods().contains(driver));
  CHECK(w.pods().at(driver).at("status").at("phase").as_string() == "Failed");
  CHECK(w.Log(driver).find("Exception in thread \"main\" org.apache.spark.SparkException") !=
        std::string::npos);
  CHECK(w.Log(driver).find("Pi is roughly") == std::string::npos);
  // Retained with no duration: nothing is ever due again.
  CHECK_FALSE(w.steps().back().actions.requeue_at_ms);
}

TEST_CASE("Success under retain OnFailure releases the driver", "[operator]") {
  World w(ExampleApp("pi-python.yaml"));
  w.Run();
  CHECK(w.States() == kSuccess);
  CHECK(w.pods().empty());
}

TEST_CASE("Failure with the default policy ends ResourceReleased", "[operator]") {
  World w(PlainPi());
  SetConf(w.mutable_app(), "kubesim.outcome", "fail");
  w.Run();
  CHECK(w.States() == States{"Submitted", "DriverRequested", "DriverStarted", "DriverReady",
                             "RunningHealthy", "Failed", "ResourceReleased"});
  CHECK(w.pods().empty());
}

TEST_CASE("Eviction ends in DriverEvicted with the pod's status", "[operator]") {
  World w(PlainPi());
  SetConf(w.mutable_app(), "kubesim.outcome", "evict");
  w.Run();
  CHECK(w.States() == States{"Submitted", "DriverRequested", "DriverStarted", "DriverReady",
                             "RunningHealthy", "DriverEvicted", "ResourceReleased"});
  const json::object evicted = Entry(w, "DriverEvicted");
  CHECK(Message(evicted) ==
        "Driver has one or more failed critical container(s), refer last observed status for "
        "details.");
  CHECK(evicted.at("lastObservedDriverStatus").at("reason").as_string() == "Evicted");
  CHECK(evicted.at("lastObservedDriverStatus").at("phase").as_string() == "Failed");
}

TEST_CASE("An unschedulable driver times out at driverStartTimeoutMillis", "[operator]") {
  // The e2e input of the driver-start-timeout test (30 s), made unschedulable.
  World w(testing::LoadApp(std::string(KUBESIM_OPERATOR_TESTDATA) +
                           "/spark-example-driver-start-timeout.yaml"));
  SetConf(w.mutable_app(), "kubesim.outcome", "unschedulable");
  w.Run();
  CHECK(w.States() ==
        States{"Submitted", "DriverRequested", "DriverStartTimedOut", "ResourceReleased"});
  const json::object timed_out = Entry(w, "DriverStartTimedOut");
  CHECK(TimeOf(timed_out) - TimeOf(Entry(w, "DriverRequested")) == 30000);
  CHECK(Message(timed_out) ==
        "The driver has not responded to the initial health check request within the allotted "
        "start-up time. This can be configured by setting "
        ".spec.applicationTolerations.applicationTimeoutConfig.");
  const json::object& observed = timed_out.at("lastObservedDriverStatus").as_object();
  CHECK(observed.at("phase").as_string() == "Pending");
  CHECK(observed.at("conditions").at(0).at("type").as_string() == "PodScheduled");
  CHECK(observed.at("conditions").at(0).at("reason").as_string() == "Unschedulable");
  const std::string driver = "spark-example-driver-start-timeout-0-driver";
  CHECK_FALSE(w.deleted_pods().at(driver).at("spec").as_object().contains("nodeName"));
  CHECK(w.Log(driver).empty());
}

TEST_CASE("The default driver start timeout is five minutes of operator time", "[operator]") {
  World w(PlainPi(), /*time_scale=*/1000);
  SetConf(w.mutable_app(), "kubesim.outcome", "unschedulable");
  w.Run();
  CHECK(w.CurrentState() == "ResourceReleased");
  CHECK(TimeOf(Entry(w, "DriverStartTimedOut")) - TimeOf(Entry(w, "DriverRequested")) == 300);
}

TEST_CASE("Restart OnFailure numbers the history across attempts and stops at the limit",
          "[operator]") {
  json::object app = PlainPi();
  app["metadata"].as_object()["name"] = "pi-retry";
  Tolerations(app)["restartConfig"] =
      json::object{{"restartPolicy", "OnFailure"}, {"maxRestartAttempts", 1}};
  World w(std::move(app));
  SetConf(w.mutable_app(), "kubesim.outcome", "fail");
  w.Run();
  // As in the synthetic sample 04: keys 0-5 in previousAttemptSummary, 6-12 in the history.
  const json::object& status = w.Status();
  auto previous = World::Entries(
      status.at("previousAttemptSummary").as_object().if_contains("stateTransitionHistory"));
  auto current = World::Entries(status.if_contains("stateTransitionHistory"));
  REQUIRE(previous.size() == 6);
  REQUIRE(current.size() == 7);
  CHECK(previous.front().first == 0);
  CHECK(previous.back().first == 5);
  CHECK(current.front().first == 6);
  CHECK(current.back().first == 12);
  CHECK(w.States() == States{"Submitted", "DriverRequested", "DriverStarted", "DriverReady",
                             "RunningHealthy", "Failed", "ScheduledToRestart", "DriverRequested",
                             "DriverStarted", "DriverReady", "RunningHealthy", "Failed",
                             "ResourceReleased"});
  CHECK(status.at("previousAttemptSummary").at("attemptInfo") ==
        json::parse(R"({"failureRestartCounter":0,"id":0,"restartCounter":0,
                        "schedulingFailureRestartCounter":0})"));
  CHECK(status.at("currentAttemptSummary").at("attemptInfo") ==
        json::parse(R"({"failureRestartCounter":1,"id":1,"restartCounter":1,
                        "schedulingFailureRestartCounter":0})"));
  CHECK(Message(current.back().second) ==
        "The maximum number of restart attempts (1) has been exceeded.");
  CHECK_FALSE(current.front().second.contains("message"));  // ScheduledToRestart, no retain
  // The default backoff of 30 s separates the restart from the next driver request.
  CHECK(TimeOf(current[1].second) - TimeOf(current[0].second) == 30000);
  CHECK(w.created_pods() == std::vector<std::string>{"pi-retry-0-driver", "pi-retry-1-driver"});
  CHECK(w.pods().empty());
  CHECK(w.Log("pi-retry-1-driver").find("Exception in thread") != std::string::npos);
}

TEST_CASE("Restart Always with a retain policy and a custom backoff", "[operator]") {
  json::object app = PlainPi();
  Tolerations(app)["restartConfig"] = json::object{
      {"restartPolicy", "Always"}, {"maxRestartAttempts", 2}, {"restartBackoffMillis", 1000}};
  Tolerations(app)["resourceRetainPolicy"] = "Always";
  World w(std::move(app));
  w.Run();
  auto entries = w.AllEntries();
  // Three successful attempts; only the last keeps its resources.
  int succeeded = 0;
  int restarts = 0;
  for (const auto& [k, e] : entries) {
    succeeded += e.at("currentStateSummary").as_string() == "Succeeded";
    if (e.at("currentStateSummary").as_string() == "ScheduledToRestart") {
      ++restarts;
      CHECK(Message(e) ==
            "Application is configured to restart, resources created in current attempt would "
            "be force released.");
    }
  }
  // Trimming keeps only the previous attempt: attempts 1 and 2 are visible.
  CHECK(succeeded == 2);
  CHECK(restarts == 2);
  CHECK(w.CurrentState() == "TerminatedWithoutReleaseResources");
  CHECK(Message(entries.back().second) ==
        "Application is terminated without releasing resources as configured. The maximum "
        "number of restart attempts (2) has been exceeded.");
  CHECK(w.Status().at("currentAttemptSummary").at("attemptInfo").at("id").as_int64() == 2);
  CHECK(w.Status().at("currentAttemptSummary").at("attemptInfo").at("restartCounter").as_int64() ==
        2);
  CHECK(w.created_pods() == std::vector<std::string>{"pi-0-driver", "pi-1-driver", "pi-2-driver"});
  CHECK(w.pods().size() == 1);
  CHECK(w.pods().contains("pi-2-driver"));
  // Keys kept counting across attempts: Submitted, 3 × (DriverRequested … Succeeded), two
  // ScheduledToRestart and the final state are 19 entries, keys 0 to 18.
  CHECK(entries.back().first == 18);
}

TEST_CASE("OnInfrastructureFailure restarts an unschedulable driver but not a failed job",
          "[operator]") {
  SECTION("unschedulable") {
    json::object app = PlainPi();
    Tolerations(app)["restartConfig"] = json::object{{"restartPolicy", "OnInfrastructureFailure"},
                                                     {"maxRestartAttempts", 1},
                                                     {"restartBackoffMillis", 0}};
    Tolerations(app)["applicationTimeoutConfig"] = json::object{{"driverStartTimeoutMillis", 5000}};
    World w(std::move(app));
    SetConf(w.mutable_app(), "kubesim.outcome", "unschedulable");
    w.Run();
    CHECK(w.States() == States{"Submitted", "DriverRequested", "DriverStartTimedOut",
                               "ScheduledToRestart", "DriverRequested", "DriverStartTimedOut",
                               "ResourceReleased"});
  }
  SECTION("failed") {
    json::object app = PlainPi();
    Tolerations(app)["restartConfig"] = json::object{{"restartPolicy", "OnInfrastructureFailure"}};
    World w(std::move(app));
    SetConf(w.mutable_app(), "kubesim.outcome", "fail");
    w.Run();
    CHECK(w.CurrentState() == "ResourceReleased");
    CHECK(w.created_pods().size() == 1);
  }
}

TEST_CASE(
    "A hanging job runs until deleted; deletion appends the final state, then the "
    "finalizer goes",
    "[operator]") {
  World w(PlainPi());
  SetConf(w.mutable_app(), "kubesim.outcome", "hang");
  w.Run();
  CHECK(w.CurrentState() == "RunningHealthy");
  CHECK_FALSE(w.steps().back().actions.requeue_at_ms);
  REQUIRE(w.pods().contains("pi-0-driver"));
  CHECK(w.pods().at("pi-0-driver").at("status").at("phase").as_string() == "Running");
  w.Advance(3600 * 1000);
  CHECK_FALSE(w.Reconcile().status);  // still running an hour later

  w.MarkDeleted();
  op::Actions cleanup = w.Reconcile();
  CHECK(cleanup.delete_pods == std::vector<std::string>{"pi-0-driver"});
  CHECK_FALSE(cleanup.remove_finalizer);
  CHECK(w.States() == States{"Submitted", "DriverRequested", "DriverStarted", "DriverReady",
                             "RunningHealthy", "ResourceReleased"});
  CHECK(Message(Entry(w, "ResourceReleased")) ==
        "Spark application has been shutdown as requested.");
  REQUIRE(cleanup.requeue_at_ms);
  CHECK(*cleanup.requeue_at_ms - w.now() == 2000);  // terminationRequeuePeriodMillis
  // An early pass (e.g. the status write's own event) keeps the finalizer until then.
  CHECK_FALSE(w.Reconcile().remove_finalizer);
  w.Run();
  CHECK_FALSE(w.exists());
}

TEST_CASE("Deleting an application that already released its resources lets go at once",
          "[operator]") {
  World w(PlainPi());
  w.Run();
  REQUIRE(w.CurrentState() == "ResourceReleased");
  w.MarkDeleted();
  op::Actions a = w.Reconcile();
  CHECK(a.remove_finalizer);
  CHECK_FALSE(a.status);
  CHECK_FALSE(w.exists());
}

TEST_CASE("The first reconcile adds the finalizer and writes Submitted only", "[operator]") {
  World w(PlainPi());
  op::Actions a = w.Reconcile();
  CHECK(a.add_finalizer);
  REQUIRE(a.status);
  CHECK(a.create_pods.empty());
  CHECK(w.States() == States{"Submitted"});
  REQUIRE(a.requeue_at_ms);
  CHECK(*a.requeue_at_ms > w.now());
  // Before the requeue time, nothing happens.
  op::Actions early = w.Reconcile();
  CHECK_FALSE(early.status);
  CHECK_FALSE(early.add_finalizer);
  CHECK(early.create_pods.empty());
}

TEST_CASE("A missing image is a SchedulingFailure and creates no pod", "[operator]") {
  World w(PlainPi());
  w.mutable_app()["spec"].as_object()["sparkConf"].as_object().erase(
      "spark.kubernetes.container.image");
  w.Run();
  CHECK(w.States() == States{"Submitted", "SchedulingFailure", "ResourceReleased"});
  CHECK(Message(Entry(w, "SchedulingFailure"))
            .starts_with("Failed to request driver from scheduler backend. StackTrace: "
                         "org.apache.spark.SparkException: Must specify the driver container "
                         "image\n\tat "));
  CHECK(w.created_pods().empty());
}

TEST_CASE("Client mode fails as documented", "[operator]") {
  World w(PlainPi());
  w.mutable_app()["spec"].as_object()["deploymentMode"] = "ClientMode";
  w.Run();
  CHECK(w.States() == States{"Submitted", "Failed", "ResourceReleased"});
  CHECK(Message(Entry(w, "Failed")) == "Client mode is not supported yet.");
}

TEST_CASE("A driver deleted while running fails the application", "[operator]") {
  World w(PlainPi());
  SetConf(w.mutable_app(), "kubesim.outcome", "hang");
  w.Run();
  REQUIRE(w.CurrentState() == "RunningHealthy");
  w.DeletePod("pi-0-driver");
  w.Run();
  CHECK(w.States() == States{"Submitted", "DriverRequested", "DriverStarted", "DriverReady",
                             "RunningHealthy", "Failed", "ResourceReleased"});
  const json::object failed = Entry(w, "Failed");
  CHECK(Message(failed).starts_with("Driver removed."));
  CHECK_FALSE(failed.contains("lastObservedDriverStatus"));
}

TEST_CASE("A deleted driver is confirmed missing only after the grace period", "[operator]") {
  World w(PlainPi());
  SetConf(w.mutable_app(), "kubesim.outcome", "hang");
  w.Run();
  REQUIRE(w.CurrentState() == "RunningHealthy");
  const int64_t running_at = TimeOf(Entry(w, "RunningHealthy"));
  w.SetNow(running_at + 1000);
  w.DeletePod("pi-0-driver");
  // Looked at again every 15 s, and still running until 60 s after the state began.
  const op::Actions first = w.Reconcile();
  CHECK(w.CurrentState() == "RunningHealthy");
  REQUIRE(first.requeue_at_ms);
  CHECK(*first.requeue_at_ms == running_at + 16000);
  w.SetNow(running_at + 59999);
  w.Reconcile();
  CHECK(w.CurrentState() == "RunningHealthy");
  w.Run();
  CHECK(w.States() == States{"Submitted", "DriverRequested", "DriverStarted", "DriverReady",
                             "RunningHealthy", "Failed", "ResourceReleased"});
  CHECK(TimeOf(Entry(w, "Failed")) == running_at + 60000);
}

TEST_CASE("A restart policy changed to Never before the driver goes ends the attempt for good",
          "[operator]") {
  json::object app = PlainPi();
  Tolerations(app)["restartConfig"] =
      json::object{{"restartPolicy", "OnFailure"}, {"maxRestartAttempts", 3}};
  World w(app);
  SetConf(w.mutable_app(), "kubesim.outcome", "hang");
  w.Run();
  REQUIRE(w.CurrentState() == "RunningHealthy");
  // What a client that stops the job keeping its record patches: read when the attempt ends.
  Tolerations(w.mutable_app())["restartConfig"].as_object()["restartPolicy"] = "Never";
  w.DeletePod("pi-0-driver");
  w.Run();
  CHECK(w.States() == States{"Submitted", "DriverRequested", "DriverStarted", "DriverReady",
                             "RunningHealthy", "Failed", "ResourceReleased"});
  CHECK(w.pods().empty());
}

TEST_CASE("ttlAfterStopMillis deletes the application after it stops", "[operator]") {
  World w(ExampleApp("pi.yaml"));  // retain OnFailure, ttl 10 s
  w.RunUntilState("ResourceReleased");
  const int64_t stopped = TimeOf(Entry(w, "ResourceReleased"));
  w.Run();
  CHECK(w.app_delete_requests() == 1);
  CHECK_FALSE(w.exists());
  CHECK(w.now() - stopped == 10000);
  CHECK(w.States() == kSuccess);  // no shutdown state added for a released app
}

TEST_CASE("Every example runs to its documented end", "[operator]") {
  for (const char* example :
       {"pi.yaml", "pi-python.yaml", "pi-with-template.yaml", "pi-with-instanceconfig.yaml"}) {
    INFO(example);
    World w(ExampleApp(example), /*time_scale=*/50);
    w.RunUntilState("ResourceReleased");
    CHECK(w.States() == kSuccess);
  }
}

TEST_CASE("The driver pod has the documented shape", "[operator]") {
  World w(ExampleApp("pi-with-template.yaml"));
  w.RunUntilState("DriverRequested");
  REQUIRE(w.pods().contains("pi-with-template-0-driver"));
  const json::object& pod = w.pods().at("pi-with-template-0-driver");
  const json::object& meta = pod.at("metadata").as_object();
  CHECK(meta.at("namespace").as_string() == "default");
  CHECK(meta.at("labels") == json::parse(R"({
      "spark-app-name": "spark", "spark-app-selector": "pi-with-template-0",
      "spark-role": "driver", "spark-version": "4.1.1",
      "spark.operator/name": "spark-kubernetes-operator",
      "spark.operator/spark-app-name": "pi-with-template"})"));
  CHECK(meta.at("ownerReferences") == json::parse(R"([{
      "apiVersion": "spark.apache.org/v1", "kind": "SparkApplication",
      "name": "pi-with-template", "uid": "7d6f2c3e-0000-4000-8000-000000000002",
      "blockOwnerDeletion": true}])"));
  const json::object& spec = pod.at("spec").as_object();
  const json::object& container = spec.at("containers").at(0).as_object();
  CHECK(container.at("name").as_string() == "spark-kubernetes-driver");
  CHECK(container.at("image").as_string() == "apache/spark:4.1.1-scala");
  CHECK(container.at("args") ==
        json::parse(R"(["driver", "--properties-file", "/opt/spark/conf/spark.properties",
                        "--class", "org.apache.spark.examples.SparkPi",
                        "local:///opt/spark/examples/jars/spark-examples.jar"])"));
  CHECK(spec.at("restartPolicy").as_string() == "Never");
  CHECK(spec.at("serviceAccountName").as_string() == "spark");
  // From the example's pod template.
  CHECK(spec.at("priorityClassName").as_string() == "system-cluster-critical");
  CHECK(spec.at("terminationGracePeriodSeconds").as_int64() == 0);
  bool conf_volume = false;
  for (const auto& v : spec.at("volumes").as_array()) {
    if (v.at("name").as_string() == "spark-conf-volume-driver") {
      conf_volume = true;
      CHECK(v.at("configMap").at("name").as_string() == "pi-with-template-0-spark-drv-conf-map");
    }
  }
  CHECK(conf_volume);

  // Phases and container states, with their times, as the kubelet moves the pod.
  CHECK(pod.at("status").at("phase").as_string() == "Pending");
  CHECK(pod.at("status").at("containerStatuses").at(0).at("state").at("waiting").at("reason") ==
        "ContainerCreating");
  const int64_t requested = TimeOf(Entry(w, "DriverRequested"));
  w.RunUntilState("RunningHealthy");
  const json::object& running = w.pods().at("pi-with-template-0-driver");
  CHECK(running.at("status").at("phase").as_string() == "Running");
  const auto& cs = running.at("status").at("containerStatuses").at(0).as_object();
  CHECK(cs.at("ready").as_bool());
  const int64_t started = TimeOf(Entry(w, "DriverStarted"));
  CHECK(cs.at("state").at("running").at("startedAt").as_string() ==
        op::internal::FormatPodTime(started));
  CHECK(started > requested);
  for (const auto& c : running.at("status").at("conditions").as_array()) {
    CHECK(c.at("status").as_string() == "True");
  }
  CHECK(running.at("status").at("podIP").as_string().starts_with("10.244."));
  w.RunUntilState("Succeeded");
  const json::object& done = w.pods().at("pi-with-template-0-driver");
  CHECK(done.at("status").at("phase").as_string() == "Succeeded");
  const auto& term = done.at("status").at("containerStatuses").at(0).at("state").at("terminated");
  CHECK(term.at("exitCode").as_int64() == 0);
  CHECK(term.at("reason").as_string() == "Completed");
  CHECK(term.at("startedAt").as_string() == op::internal::FormatPodTime(started));
  CHECK(term.at("finishedAt").as_string() ==
        op::internal::FormatPodTime(TimeOf(Entry(w, "Succeeded"))));
}

TEST_CASE("Long names get hash-shortened driver names", "[operator]") {
  json::object app = PlainPi();
  const std::string name = "a-very-long-spark-application-name-for-hashing-test";
  app["metadata"].as_object()["name"] = name;
  World w(std::move(app));
  w.RunUntilState("DriverRequested");
  // Test vector computed independently (Python: base 36 of the SHA-256 of "default/<name>/0").
  const std::string app_id = "a-very-lo-3ptgqypqe6ek75ctxytd3nr6m9368udyg6g6";
  REQUIRE(w.pods().contains(app_id + "-driver"));
  const json::object& pod = w.pods().at(app_id + "-driver");
  CHECK(pod.at("metadata").at("labels").at("spark-app-selector").as_string() == app_id);
  CHECK(pod.at("metadata").at("labels").at("spark.operator/spark-app-name").as_string() == name);
}

TEST_CASE("The driver log is SparkPi's, with a deterministic per-app estimate", "[operator]") {
  auto run = [](const std::string& uid) {
    World w(PlainPi(), 1.0, uid);
    w.Run();
    return w.Log("pi-0-driver");
  };
  const std::string log = run("uid-one");
  CHECK(log.find("INFO SparkContext: Running Spark version 4.1.1") != std::string::npos);
  CHECK(log.find("INFO SparkContext: Submitted application: Spark Pi") != std::string::npos);
  std::smatch m;
  REQUIRE(std::regex_search(log, m, std::regex("\nPi is roughly (3\\.[0-9]+)\n")));
  const double pi = std::stod(m[1]);
  CHECK(std::abs(pi - M_PI) < 0.05);
  CHECK(pi != 3.14);  // a real estimate, not a constant
  // Lines carry Spark's timestamp layout and the start lines come first.
  CHECK(std::regex_search(
      log, std::regex(R"(^26/05/12 10:00:0[0-9] INFO SparkContext)", std::regex::multiline)));
  CHECK(log.find("Running Spark version") < log.find("Pi is roughly"));
  CHECK(log.find("Successfully stopped SparkContext") > log.find("Pi is roughly"));
  CHECK(run("uid-one") == log);
  const std::string other = run("uid-two");
  std::smatch m2;
  REQUIRE(std::regex_search(other, m2, std::regex("\nPi is roughly (3\\.[0-9]+)\n")));
  CHECK(m2[1] != m[1]);
}

TEST_CASE("A python job prints PythonPi's line", "[operator]") {
  World w(ExampleApp("pi-python.yaml"));
  w.Run();
  const std::string log = w.Log("pi-python-0-driver");
  CHECK(std::regex_search(log, std::regex("\nPi is roughly 3\\.[0-9]{6}\n")));
  const json::object& pod = w.deleted_pods().at("pi-python-0-driver");
  CHECK(pod.at("spec").at("containers").at(0).at("image").as_string() ==
        "apache/spark:4.1.1-python3");
}

TEST_CASE("Start logs arrive when the container starts, the rest when it ends", "[operator]") {
  World w(PlainPi());
  w.RunUntilState("RunningHealthy");
  const std::string running = w.Log("pi-0-driver");
  CHECK(running.find("Running Spark version") != std::string::npos);
  CHECK(running.find("Pi is roughly") == std::string::npos);
  w.Run();
  CHECK(w.Log("pi-0-driver").starts_with(running));
  CHECK(w.Log("pi-0-driver").find("Pi is roughly") != std::string::npos);
}

TEST_CASE("An application in an unknown state is failed", "[operator]") {
  World w(PlainPi());
  w.Reconcile();
  w.mutable_app()["status"].as_object()["currentState"].as_object()["currentStateSummary"] =
      "Exploded";
  op::Actions a = w.Reconcile();
  REQUIRE(a.status);
  CHECK(w.CurrentState() == "Failed");
  CHECK(Message(Entry(w, "Failed")) == "Cannot process application status.");
}

}  // namespace
}  // namespace kubesim

namespace kubesim {
namespace {

TEST_CASE("The e2e success input runs the asserted state sequence", "[operator]") {
  World w(
      testing::LoadApp(std::string(KUBESIM_OPERATOR_TESTDATA) + "/spark-example-succeeded.yaml"));
  w.Run();
  CHECK(w.States() == kSuccess);
  // The e2e driver-pod assertion: labels spark-app-name=spark, spark-role=driver, and the
  // spark-conf-volume-driver volume, on spark-job-succeeded-test-0-driver.
  const json::object& pod = w.deleted_pods().at("spark-job-succeeded-test-0-driver");
  CHECK(pod.at("metadata").at("labels").at("spark-app-name").as_string() == "spark");
  CHECK(pod.at("metadata").at("labels").at("spark-role").as_string() == "driver");
  CHECK(pod.at("spec").at("containers").at(0).at("image").as_string() == "apache/spark:4.1.1");
}

TEST_CASE("Deleting an application whose driver is still pending releases it", "[operator]") {
  World w(PlainPi());
  SetConf(w.mutable_app(), "kubesim.outcome", "unschedulable");
  w.RunUntilState("DriverRequested");
  w.MarkDeleted();
  w.Run();
  CHECK_FALSE(w.exists());
  CHECK(w.States() == States{"Submitted", "DriverRequested", "ResourceReleased"});
  CHECK(w.pods().empty());
}

TEST_CASE("An application deleted before any status only loses the finalizer", "[operator]") {
  World w(PlainPi());
  w.mutable_app()["metadata"].as_object()["finalizers"] = json::array{testing::kFinalizer};
  w.MarkDeleted();
  op::Actions a = w.Reconcile();
  CHECK(a.remove_finalizer);
  CHECK_FALSE(a.status);
  CHECK(a.create_pods.empty());
  CHECK_FALSE(w.exists());
}

TEST_CASE("Odd but schema-valid statuses never throw", "[operator]") {
  // What any client may write through the status subresource.
  const std::vector<std::string> statuses = {
      R"({})",
      R"({"currentState": {}})",
      R"({"currentState": {"currentStateSummary": "RunningHealthy"}})",
      R"({"currentState": {"currentStateSummary": "DriverRequested",
                           "lastTransitionTime": "not a time"},
          "stateTransitionHistory": {"abc": {"currentStateSummary": "Submitted"}}})",
      R"({"currentState": {"currentStateSummary": "ScheduledToRestart",
                           "lastTransitionTime": "2026-05-12T10:00:00Z"},
          "currentAttemptSummary": {"attemptInfo": {"id": 9223372036854775807}}})",
      R"({"currentState": {"currentStateSummary": "Failed",
                           "lastTransitionTime": "2026-05-12T10:00:00Z"},
          "previousAttemptSummary": {"stateTransitionHistory": {}},
          "currentAttemptSummary": {"attemptInfo": {"restartCounter": -5}}})",
      R"({"currentState": {"currentStateSummary": "TerminatedWithoutReleaseResources",
                           "lastTransitionTime": "1970-01-01T00:00:00Z"}})"};
  for (const auto& text : statuses) {
    INFO(text);
    World w(PlainPi());
    w.mutable_app()["status"] = json::parse(text);
    w.mutable_app()["metadata"].as_object()["finalizers"] = json::array{testing::kFinalizer};
    w.Run(600 * 1000);
    CHECK(w.exists());
    CHECK_FALSE(w.CurrentState().empty());
  }
}

TEST_CASE("Counters written at INT64_MAX wrap on a restart, as the operator's Java longs do",
          "[operator]") {
  // UBSan: each of these was a signed overflow (the next attempt id, the restart counters, the
  // next history key, the container id hashed from the attempt).
  json::object app = PlainPi();
  Tolerations(app)["restartConfig"] =
      json::object{{"restartPolicy", "Always"}, {"maxRestartAttempts", 3}};
  World w(std::move(app));
  w.mutable_app()["status"] = json::parse(R"({
      "currentState": {"currentStateSummary": "Failed",
                       "lastTransitionTime": "2026-05-12T10:00:00Z"},
      "stateTransitionHistory": {"9223372036854775807": {"currentStateSummary": "Failed",
                                 "lastTransitionTime": "2026-05-12T10:00:00Z"}},
      "currentAttemptSummary": {"attemptInfo": {"id": 9223372036854775807,
                                                "restartCounter": 9223372036854775807,
                                                "failureRestartCounter": 9223372036854775807}}})");
  w.mutable_app()["metadata"].as_object()["finalizers"] = json::array{testing::kFinalizer};
  w.SetNow(*op::internal::ParseTime("2026-05-12T10:10:00Z"));
  w.RunUntilState("ScheduledToRestart", 60 * 1000);
  const auto& info = w.Status().at("currentAttemptSummary").at("attemptInfo");
  CHECK(info.at("id").as_int64() == std::numeric_limits<int64_t>::min());
  CHECK(info.at("restartCounter").as_int64() == std::numeric_limits<int64_t>::min());
  w.Run(600 * 1000);
  CHECK(w.exists());
  CHECK_FALSE(w.created_pods().empty());
}

}  // namespace
}  // namespace kubesim

namespace kubesim {
namespace {

TEST_CASE("Granular restart limits and backoffs (0.8.0+) apply", "[operator]") {
  json::object app = PlainPi();
  Tolerations(app)["restartConfig"] = json::object{{"restartPolicy", "OnFailure"},
                                                   {"maxRestartAttempts", 5},
                                                   {"maxRestartOnFailure", 1},
                                                   {"restartBackoffMillisForFailure", 4000}};
  World w(std::move(app));
  SetConf(w.mutable_app(), "kubesim.outcome", "fail");
  w.Run();
  CHECK(w.CurrentState() == "ResourceReleased");
  CHECK(Message(Entry(w, "ResourceReleased")) ==
        "The maximum number of restart attempts on consecutive failures (1) has been exceeded.");
  CHECK(w.created_pods().size() == 2);
  auto current = World::Entries(w.Status().if_contains("stateTransitionHistory"));
  REQUIRE(current.size() >= 2);
  CHECK(TimeOf(current[1].second) - TimeOf(current[0].second) == 4000);
}

TEST_CASE("restartCounterResetMillis resets the counters of a long enough attempt", "[operator]") {
  json::object app = PlainPi();
  Tolerations(app)["restartConfig"] = json::object{{"restartPolicy", "Always"},
                                                   {"maxRestartAttempts", 1},
                                                   {"restartBackoffMillis", 0},
                                                   {"restartCounterResetMillis", 1000}};
  World w(std::move(app));
  // Each attempt runs longer than a second, so the limit of one restart is never reached.
  w.Run(120 * 1000);
  CHECK(w.exists());
  CHECK(w.created_pods().size() > 5);
  const auto& info = w.Status().at("currentAttemptSummary").at("attemptInfo");
  CHECK(info.at("restartCounter").as_int64() == 1);
  CHECK(info.at("id").as_int64() == static_cast<int64_t>(w.created_pods().size()) - 1);
}

}  // namespace
}  // namespace kubesim
