// Operator 1.1 in kubesim: spec.suspend, Suspended with suspendReason, resume as a new attempt,
// Kueue holds, SPARK-59729's early failures, and the 1.1 CRD overlay. Every status written is
// validated against the 1.1 schema (the 1.0.0 CRD with the overlay) by World.

#include "kubesim/operator/v1_1/suspend.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "../world.h"

namespace kubesim {
namespace {

using testing::ExampleApp;
using testing::SetConf;
using testing::Tolerations;
using testing::World;
namespace json = boost::json;

using States = std::vector<std::string>;

json::object Pi() {
  json::object app = ExampleApp("pi.yaml");
  app["spec"].as_object().erase("applicationTolerations");
  return app;
}

World World11(json::object app) {
  World w(std::move(app));
  w.SetVersion(op::OperatorVersion::k1_1);
  return w;
}

void SetSuspend(World& w, bool suspend) {
  w.mutable_app()["spec"].as_object()["suspend"] = suspend;
}

void SetAnnotation(World& w, const std::string& key, const std::string& value) {
  json::value& a = w.mutable_app()["metadata"].as_object()["annotations"];
  if (!a.is_object()) a = json::object();
  a.as_object()[key] = value;
}

void SetLabel(World& w, const std::string& key, const std::string& value) {
  json::value& l = w.mutable_app()["metadata"].as_object()["labels"];
  if (!l.is_object()) l = json::object();
  l.as_object()[key] = value;
}

const json::object& Current(const World& w) { return w.Status().at("currentState").as_object(); }

std::string Str(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : "";
}

int64_t AttemptId(const World& w) {
  return w.Status().at("currentAttemptSummary").at("attemptInfo").at("id").as_int64();
}

TEST_CASE("1.1: an app created suspended gets no status - and a SuspendHeld event", "[v1_1]") {
  World w = World11(Pi());
  SetSuspend(w, true);
  w.Run(10 * 60 * 1000);
  CHECK_FALSE(w.app().contains("status"));
  CHECK(w.Finalizers() == std::vector<std::string>{testing::kFinalizer});
  CHECK(w.created_pods().empty());
  REQUIRE(w.events().size() == 1);
  const json::object& e = w.events()[0];
  CHECK(Str(e, "reason") == "SuspendHeld");
  CHECK(e.at("involvedObject").at("name") == "pi");
  CHECK(e.at("involvedObject").at("kind") == "SparkApplication");
  // Republished every 30 minutes while held: the recorder counts the repeats on one event.
  w.Run(61 * 60 * 1000);
  REQUIRE(w.events().size() == 1);
  CHECK(w.events()[0].at("count") == 3);
  CHECK(w.events()[0].at("firstTimestamp") == "2026-05-12T10:00:00Z");
  CHECK(w.events()[0].at("lastTimestamp") != w.events()[0].at("firstTimestamp"));
  CHECK_FALSE(w.app().contains("status"));

  SetSuspend(w, false);  // released: the first status is written, the job runs
  w.Run();
  CHECK(w.States() == States{"Submitted", "DriverRequested", "DriverStarted", "DriverReady",
                             "RunningHealthy", "Succeeded", "ResourceReleased"});
}

TEST_CASE("1.1: suspending a running app goes Suspended - then deletes the driver", "[v1_1]") {
  json::object app = Pi();
  SetConf(app, "kubesim.durationMs", "600000");
  World w = World11(std::move(app));
  Tolerations(w.mutable_app())["resourceRetainPolicy"] = "Always";
  w.RunUntilState("RunningHealthy");
  REQUIRE(w.pods().count("pi-0-driver") == 1);
  SetSuspend(w, true);
  w.Reconcile();
  CHECK(w.CurrentState() == "Suspended");
  CHECK(Str(Current(w), "suspendReason") == "SpecSuspend");
  CHECK(w.pods().count("pi-0-driver") == 1);  // first the state, then the driver goes
  w.Advance(1000);
  w.Reconcile();
  CHECK(w.pods().empty());  // whatever the retain policy
  w.Run(5 * 60 * 1000);
  CHECK(w.CurrentState() == "Suspended");
  CHECK(w.created_pods().size() == 1);

  // Resume: attempt 1 from Submitted, the suspended attempt's history trimmed away.
  SetSuspend(w, false);
  w.Reconcile();
  CHECK(w.CurrentState() == "Submitted");
  CHECK(AttemptId(w) == 1);
  const json::object& previous = w.Status().at("previousAttemptSummary").as_object();
  CHECK(previous.at("attemptInfo").at("id") == 0);
  auto trimmed = World::Entries(previous.if_contains("stateTransitionHistory"));
  REQUIRE_FALSE(trimmed.empty());
  CHECK(trimmed.back().second.at("currentStateSummary") == "Suspended");
  auto main = World::Entries(w.Status().if_contains("stateTransitionHistory"));
  REQUIRE(main.size() == 1);
  CHECK(main[0].first == trimmed.back().first + 1);  // keys keep counting
  SetConf(w.mutable_app(), "kubesim.durationMs", "3000");
  w.Run();
  CHECK(w.CurrentState() == "TerminatedWithoutReleaseResources");
  CHECK(w.created_pods() == std::vector<std::string>{"pi-0-driver", "pi-1-driver"});
  auto history = World::Entries(w.Status().if_contains("stateTransitionHistory"));
  std::vector<std::string> states;
  for (const auto& [k, e] : history) states.emplace_back(e.at("currentStateSummary").as_string());
  CHECK(states == States{"Submitted", "DriverRequested", "DriverStarted", "DriverReady",
                         "RunningHealthy", "Succeeded", "TerminatedWithoutReleaseResources"});
}

TEST_CASE("1.1: an app suspended while Submitted is held there - a finished driver ends as usual",
          "[v1_1]") {
  World w = World11(Pi());
  w.Reconcile();
  REQUIRE(w.CurrentState() == "Submitted");
  SetSuspend(w, true);
  w.Run(10 * 60 * 1000);
  CHECK(w.CurrentState() == "Submitted");
  CHECK(w.created_pods().empty());

  World done = World11(Pi());
  done.RunUntilState("RunningHealthy");
  done.Advance(10 * 60 * 1000);  // the driver's run time has passed
  SetSuspend(done, true);
  done.Reconcile();
  CHECK(done.CurrentState() == "Succeeded");
}

TEST_CASE("1.1: a Kueue-labelled app is held without status until admitted", "[v1_1]") {
  json::object app = Pi();
  SetConf(app, "kubesim.durationMs", "600000");
  World w = World11(std::move(app));
  SetLabel(w, op::v1_1::kKueueQueueLabel, "team-a");
  w.Run(10 * 60 * 1000);
  CHECK_FALSE(w.app().contains("status"));
  REQUIRE(w.events().size() == 2);
  CHECK(Str(w.events()[0], "reason") == "SuspendHeld");
  CHECK_THAT(Str(w.events()[0], "message"), Catch::Contains("Kueue"));
  // Republished every 2 minutes while it waits: one event whose count grows.
  const json::object& pending = w.events()[1];
  CHECK(Str(pending, "reason") == "KueueAdmissionPending");
  CHECK(Str(pending, "type") == "Normal");
  CHECK(Str(pending, "reportingComponent") == "spark-kubernetes-operator");
  CHECK(pending.at("count") == 6);
  CHECK(Str(pending, "message") == "Spark application is waiting for Kueue to admit its workload.");

  // Its Workload waits for quota; admitted, it is admitted too.
  auto workload = [&w]() {
    op::Actions a = w.Reconcile();
    REQUIRE(a.write_objects.size() == 1);
    CHECK(a.write_objects[0].plural == "workloads");
    CHECK(a.write_objects[0].object.at("spec").at("queueName") == "team-a");
    return a.write_objects[0].object.at("status").at("conditions").as_array();
  };
  json::array conditions = workload();
  CHECK(conditions.size() == 1);
  CHECK(conditions[0].at("type") == "QuotaReserved");
  CHECK(conditions[0].at("status") == "False");
  SetAnnotation(w, op::v1_1::kKueueAdmittedAnnotation, "true");
  conditions = workload();
  REQUIRE(conditions.size() == 2);
  CHECK(conditions[1].at("type") == "Admitted");
  CHECK(conditions[1].at("status") == "True");
  w.RunUntilState("RunningHealthy");
  // An eviction suspends it with KueueEviction; a new admission requeues a new attempt.
  SetAnnotation(w, op::v1_1::kKueueAdmittedAnnotation, "false");
  w.Reconcile();
  CHECK(w.CurrentState() == "Suspended");
  CHECK(Str(Current(w), "suspendReason") == "KueueEviction");
  w.Advance(1000);
  w.Reconcile();
  CHECK(w.pods().empty());
  // Evicted, it waits for admission again: a new KueueAdmissionPending event.
  w.Advance(5 * 60 * 1000);
  w.Reconcile();
  int pendings = 0;
  for (const json::object& e : w.events()) {
    if (Str(e, "reason") == "KueueAdmissionPending") ++pendings;
  }
  CHECK(pendings == 2);
  SetAnnotation(w, op::v1_1::kKueueAdmittedAnnotation, "true");
  w.RunUntilState("RunningHealthy");
  CHECK(AttemptId(w) == 1);
  CHECK(w.pods().count("pi-1-driver") == 1);
  // Each admission of a held attempt is a KueueAdmitted event of its own.
  int admitted = 0;
  for (const json::object& e : w.events()) {
    if (Str(e, "reason") != "KueueAdmitted") continue;
    ++admitted;
    CHECK(Str(e, "reportingComponent") == "spark-kubernetes-operator");
    CHECK(e.at("involvedObject").at("kind") == "SparkApplication");
  }
  CHECK(admitted == 2);
}

TEST_CASE("SPARK-59729: a driver that fails before any container starts", "[v1_1]") {
  json::object app = Pi();
  SetConf(app, "kubesim.outcome", "evict-before-start");
  Tolerations(app)["applicationTimeoutConfig"] = json::object{{"driverStartTimeoutMillis", 300000}};
  SECTION("1.1 fails it at once") {
    World w = World11(app);
    w.RunUntilState("DriverEvicted", 60 * 1000);
    CHECK(w.Log("pi-0-driver").empty());
  }
  SECTION("1.0 waits for the driver start timeout") {
    World w(app);
    w.RunUntilState("DriverStartTimedOut");
    const auto entries = w.AllEntries();
    CHECK(std::none_of(entries.begin(), entries.end(), [](const auto& e) {
      return e.second.at("currentStateSummary") == "DriverEvicted";
    }));
  }
}

TEST_CASE("Sidecars keep the pod Running after the driver container ends", "[v1_1]") {
  json::object app = Pi();
  SetConf(app, "spark.kubernetes.driver.podTemplateContainerName", "main");
  SetConf(app, "kubesim.outcome", "fail");
  Tolerations(app)["resourceRetainPolicy"] = "Always";
  app["spec"].as_object()["driverSpec"] = json::object{
      {"podTemplateSpec",
       json::object{
           {"spec", json::object{{"containers", json::array{json::object{{"name", "log-shipper"}},
                                                            json::object{{"name", "main"}}}}}}}}};
  for (op::OperatorVersion version : {op::OperatorVersion::k1_0, op::OperatorVersion::k1_1}) {
    World w(app);
    w.SetVersion(version);
    w.Run();
    CHECK(w.CurrentState() == "TerminatedWithoutReleaseResources");
    REQUIRE(w.pods().count("pi-0-driver") == 1);
    const json::object& pod = w.pods().at("pi-0-driver");
    CHECK(pod.at("status").at("phase") == "Running");
    const json::array& specs = pod.at("spec").at("containers").as_array();
    CHECK(specs.at(0).at("name") == "main");  // the template's name is kept
    const json::array& cs = pod.at("status").at("containerStatuses").as_array();
    REQUIRE(cs.size() == 2);
    CHECK(cs[0].at("name") == "main");
    CHECK(cs[0].at("state").as_object().contains("terminated"));
    CHECK(cs[1].at("name") == "log-shipper");
    CHECK(cs[1].at("state").as_object().contains("running"));
    std::vector<std::string> states = w.States();
    CHECK(std::find(states.begin(), states.end(), "Failed") != states.end());
    CHECK_THAT(w.Log("pi-0-driver", "main"), Catch::Contains("SparkContext"));
    CHECK(w.Log("pi-0-driver", "log-shipper") == "log-shipper: sidecar started\n");
  }
}

TEST_CASE("The 1.1 overlay adds spec.suspend (default false) - Suspended and suspendReason",
          "[v1_1]") {
  json::object app = Pi();
  json::object status = json::parse(R"({"currentState":{"currentStateSummary":"Suspended",
      "suspendReason":"SpecSuspend","lastTransitionTime":"2026-05-12T10:00:00Z"},
      "stateTransitionHistory":{"0":{"currentStateSummary":"Suspended",
      "suspendReason":"KueueEviction"}},
      "previousAttemptSummary":{"stateTransitionHistory":{"1":{"currentStateSummary":"Suspended"}}},
      "currentAttemptSummary":{"stateTransitionHistory":{"2":{"currentStateSummary":"Suspended"}}}})")
                            .as_object();
  app["status"] = status;
  for (const auto& schema : testing::ApacheSchemas()) {  // 1.0 rejects all of it
    json::object copy = app;
    copy["spec"].as_object()["suspend"] = true;
    std::vector<std::string> unknown;
    CHECK_FALSE(schema->Validate(copy, true, &unknown).empty());
    CHECK_FALSE(unknown.empty());
  }
  for (const auto& schema : testing::Apache11Schemas()) {
    json::object copy = app;
    std::vector<std::string> unknown;
    CHECK(schema->Validate(copy, true, &unknown).empty());
    CHECK(unknown.empty());
    CHECK(copy.at("spec").at("suspend") == false);  // the API server fills the default in
    copy["status"].as_object()["currentState"].as_object()["suspendReason"] = "Tired";
    CHECK_FALSE(schema->Validate(copy, true, &unknown).empty());
  }
}

}  // namespace
}  // namespace kubesim
