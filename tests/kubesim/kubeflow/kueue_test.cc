// Kueue's SparkApplication integration on Kubeflow apps, through the store: a queued app is
// suspended at once, started when admitted, stopped when it loses admission, with Kueue's events.

#include "kubesim/kubeflow/kueue.h"

#include <catch2/catch.hpp>

#include "tests/kubesim/kubeflow/store_fixture.h"

namespace kubesim::kubeflow {
namespace {

struct Queued : Fixture {
  std::unique_ptr<Controller> controller =
      NewController(*store, app_type, {"jobs"}, Options{}, [this] { return now; });

  json::object App() {
    auto got = store->Get(app_type, "jobs", "spark-pi");
    REQUIRE(got.ok());
    return got.value();
  }

  std::optional<bool> Suspend() {
    const json::value* s = App().at("spec").as_object().if_contains("suspend");
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

  SetAdmitted("true");
  states = RunUntil(*controller, [&] { return State() == "COMPLETED"; });
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
