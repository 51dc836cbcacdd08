// Kueue's SparkApplication integration on Kubeflow apps, through the store: a queued app is
// suspended at once, started when admitted, stopped when it loses admission, with Kueue's events.

#include "kubesim/kubeflow/kueue.h"

#include <catch2/catch.hpp>

#include "kubesim/schema/schema.h"
#include "tests/kubesim/kubeflow/store_fixture.h"

namespace kubesim::kubeflow {
namespace {

// Kueue's Workload type, from the subset CRD kubesim ships.
ResourceType WorkloadType(Store& store) {
  std::string error;
  auto crds = LoadCrdFile(kCrdRoot + "/kueue/v1beta1-subset/kueue.x-k8s.io_workloads.yaml", &error);
  INFO(error);
  REQUIRE(crds.size() == 1);
  const Crd& crd = crds[0];
  ResourceType t;
  t.group = crd.group;
  t.version = "v1beta1";
  t.plural = crd.plural;
  t.singular = crd.singular;
  t.kind = crd.kind;
  t.list_kind = crd.list_kind;
  t.status_subresource = true;
  std::shared_ptr<const Schema> schema = crd.versions.at(0).schema;
  t.validator = [schema](json::object& obj, bool strict, std::vector<std::string>* u) {
    return schema->Validate(obj, strict, u);
  };
  store.RegisterType(t);
  return t;
}

struct Queued : Fixture {
  ResourceType workload_type = WorkloadType(*store);
  std::unique_ptr<Controller> controller =
      NewController(*store, app_type, {"jobs"}, Options{}, [this] { return now; });

  json::object App() {
    auto got = store->Get(app_type, "jobs", "spark-pi");
    REQUIRE(got.ok());
    return got.value();
  }

  std::optional<bool> Suspend() {
    const json::object app = App();  // held: a pointer into a temporary would dangle
    const json::value* s = app.at("spec").as_object().if_contains("suspend");
    if (s == nullptr) return std::nullopt;
    return s->as_bool();
  }

  void SetAdmitted(const std::string& value) {
    json::object app = App();
    json::value& a = app["metadata"].as_object()["annotations"];
    if (!a.is_object()) a = json::object();
    a.as_object()[kKueueAdmittedAnnotation] = value;
    REQUIRE(store->Update(app_type, "jobs", "spark-pi", app, false, {}).ok());
  }

  std::vector<json::object> KueueEvents() {
    std::vector<json::object> out;
    for (const json::object& e : EventsOf("spark-pi")) {
      if (e.at("source").at("component") == kKueueJobController) out.push_back(e);
    }
    return out;
  }

  json::object Workload() {
    auto got = store->Get(workload_type, "jobs", KueueWorkloadName(App()));
    REQUIRE(got.ok());
    return got.value();
  }

  static std::string ConditionOf(const json::object& wl, const std::string& type,
                                 const std::string& field) {
    for (const json::value& c : wl.at("status").at("conditions").as_array()) {
      if (c.at("type") == type.c_str()) return std::string(c.at(field).as_string());
    }
    return "<none>";
  }

  void Advance(int64_t ms) {
    for (int64_t end = now + ms; now < end; now += 50) controller->RunOnce();
  }
};

json::object QueuedExample(Fixture& f) {
  json::object app = f.Example();
  app["metadata"].as_object()["labels"] = json::object{{kKueueQueueLabel, "team-a"}};
  return app;
}

TEST_CASE_METHOD(Queued, "a queued app is suspended until admitted, then runs",
                 "[kubeflow][kueue]") {
  REQUIRE(store->Create(app_type, "jobs", QueuedExample(*this), {}).ok());
  std::vector<std::string> states = RunUntil(*controller, [&] { return State() == "SUSPENDED"; });
  CHECK(Suspend() == true);
  CHECK(Pods().empty());
  Advance(5000);
  CHECK(State() == "SUSPENDED");
  std::vector<json::object> events = KueueEvents();
  REQUIRE(events.size() == 1);
  CHECK(events[0].at("reason") == "CreatedWorkload");
  CHECK(events[0].at("type") == "Normal");
  CHECK(std::string(events[0].at("message").as_string()) ==
        "Created Workload: jobs/" + KueueWorkloadName(App()));
  CHECK_THAT(std::string(events[0].at("message").as_string()),
             Catch::Matches("Created Workload: jobs/sparkapplication-spark-pi-[0-9a-f]{5}"));
  CHECK(events[0].at("involvedObject").at("kind") == "SparkApplication");
  CHECK(events[0].at("involvedObject").at("apiVersion") == "sparkoperator.k8s.io/v1beta2");

  // Its Workload waits for quota.
  json::object wl = Workload();
  CHECK(wl.at("metadata").at("labels").at("kueue.x-k8s.io/job-uid") ==
        App().at("metadata").at("uid"));
  CHECK(wl.at("metadata").at("ownerReferences").at(0).at("name") == "spark-pi");
  CHECK(wl.at("spec").at("queueName") == "team-a");
  CHECK(wl.at("spec").at("podSets").as_array().size() == 2);
  CHECK(ConditionOf(wl, "QuotaReserved", "status") == "False");
  CHECK(ConditionOf(wl, "QuotaReserved", "reason") == "Pending");
  CHECK_THAT(ConditionOf(wl, "QuotaReserved", "message"),
             Catch::StartsWith("couldn't assign flavors to pod set driver: insufficient unused "
                               "quota for cpu in flavor default-flavor"));
  const std::string pending_since = ConditionOf(wl, "QuotaReserved", "lastTransitionTime");
  Advance(3000);
  CHECK(ConditionOf(Workload(), "QuotaReserved", "lastTransitionTime") == pending_since);

  SetAdmitted("true");
  states = RunUntil(*controller, [&] { return State() == "COMPLETED"; });
  wl = Workload();
  CHECK(ConditionOf(wl, "QuotaReserved", "status") == "True");
  CHECK(ConditionOf(wl, "Admitted", "status") == "True");
  CHECK(wl.at("status").at("admission").at("clusterQueue") == "cluster-queue");
  CHECK(Suspend() == false);
  CHECK(states.front() == "SUSPENDED");
  CHECK(std::find(states.begin(), states.end(), "RESUMING") != states.end());
  events = KueueEvents();
  REQUIRE(events.size() == 2);
  CHECK(events[1].at("reason") == "Started");
  CHECK(events[1].at("message") == "Admitted by clusterQueue cluster-queue");
  const std::vector<std::string> reasons = ReasonsOf("spark-pi");
  CHECK(std::find(reasons.begin(), reasons.end(), "SparkApplicationResuming") != reasons.end());
}

TEST_CASE_METHOD(Queued, "losing admission while running stops the app: SUSPENDED",
                 "[kubeflow][kueue]") {
  json::object app = QueuedExample(*this);
  app["metadata"].as_object()["annotations"] = json::object{{kKueueAdmittedAnnotation, "true"}};
  app["spec"].as_object()["sparkConf"] = json::object{{"kubesim.outcome", "hang"}};
  REQUIRE(store->Create(app_type, "jobs", app, {}).ok());
  RunUntil(*controller, [&] { return State() == "RUNNING"; });
  // Admitted at creation: started at once, never suspended.
  std::vector<json::object> events = KueueEvents();
  REQUIRE(events.size() == 2);
  CHECK(events[0].at("reason") == "CreatedWorkload");
  CHECK(events[1].at("reason") == "Started");
  SetAdmitted("false");
  RunUntil(*controller, [&] { return State() == "SUSPENDED"; });
  CHECK(Suspend() == true);
  events = KueueEvents();
  REQUIRE(events.size() == 3);
  CHECK(events[2].at("reason") == "Stopped");
  CHECK(events[2].at("message") == "Not admitted by cluster queue");
  CHECK(Pods("spark-role=driver").empty());
  // Admitted again: resumed as a new run.
  SetAdmitted("true");
  RunUntil(*controller, [&] { return State() == "RUNNING"; });
  CHECK(KueueEvents().size() == 4);
}

TEST_CASE_METHOD(Queued, "an app without the queue label is left to the operator",
                 "[kubeflow][kueue]") {
  REQUIRE(store->Create(app_type, "jobs", Example(), {}).ok());
  RunUntil(*controller, [&] { return State() == "COMPLETED"; });
  CHECK_FALSE(Suspend().has_value());
  CHECK(KueueEvents().empty());
}

}  // namespace
}  // namespace kubesim::kubeflow
