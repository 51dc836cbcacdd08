// The ScheduledSparkApplication controller through the store, over the real v2.5.2 CRDs and an
// injected clock: runs appear on the schedule, the time scale speeds the operator's clock, a
// failed create backs off and retries, and (as in v2.5.2) only the schedule's own events wake it.

#include "kubesim/schedule/controller.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "kubesim/schema/crd.h"
#include "kubesim/store/core_types.h"

namespace kubesim::schedule {
namespace {

namespace json = boost::json;

constexpr int64_t kStartMs = 1778580000000;  // 2026-05-12T10:00:00Z
const std::string kCrdRoot = KUBESIM_CRD_ROOT;

ResourceType TypeOf(const std::string& file) {
  std::string error;
  auto crds = LoadCrdFile(kCrdRoot + "/kubeflow-spark-operator/v2.5.2/" + file, &error);
  INFO(error);
  REQUIRE(crds.size() == 1);
  const Crd& crd = crds[0];
  ResourceType t;
  t.group = crd.group;
  t.version = "v1beta2";
  t.plural = crd.plural;
  t.singular = crd.singular;
  t.kind = crd.kind;
  t.list_kind = crd.list_kind;
  t.status_subresource = true;
  std::shared_ptr<const Schema> schema = crd.versions.at(0).schema;
  t.validator = [schema](json::object& obj, bool strict, std::vector<std::string>* u) {
    return schema->Validate(obj, strict, u);
  };
  return t;
}

struct Fixture {
  int64_t now = kStartMs + 250;
  std::unique_ptr<Store> store = NewMemoryStore([this] { return now; });
  ResourceType scheduled_type = TypeOf("sparkoperator.k8s.io_scheduledsparkapplications.yaml");
  ResourceType app_type = TypeOf("sparkoperator.k8s.io_sparkapplications.yaml");

  Fixture() {
    for (const ResourceType& t : CoreTypes()) store->RegisterType(t);
    store->RegisterType(scheduled_type);
    store->RegisterType(app_type);
    REQUIRE(store->Create(NamespaceType(), "", {{"metadata", {{"name", "jobs"}}}}, {}).ok());
  }

  void CreateScheduled(const std::string& schedule, const std::string& policy) {
    json::object app =
        YamlToJson(
            YAML::LoadFile(kCrdRoot + "/kubeflow-spark-operator/examples/spark-pi-scheduled.yaml"))
            .as_object();
    app["metadata"].as_object()["namespace"] = "jobs";
    app["spec"].as_object()["schedule"] = schedule;
    app["spec"].as_object()["concurrencyPolicy"] = policy;
    REQUIRE(store->Create(scheduled_type, "jobs", app, {}).ok());
  }

  std::unique_ptr<Controller> Make(ControllerOptions options = {}) {
    return NewController(*store, scheduled_type, app_type, {"jobs"}, options,
                         [this] { return now; });
  }

  json::object Status() {
    auto got = store->Get(scheduled_type, "jobs", "spark-pi-scheduled");
    REQUIRE(got.ok());
    const json::value* s = got.value().if_contains("status");
    return s != nullptr && s->is_object() ? s->get_object() : json::object();
  }

  std::vector<std::string> Runs() {
    ListOptions options;
    options.label_selector = "sparkoperator.k8s.io/scheduled-app-name=spark-pi-scheduled";
    auto list = store->List(app_type, "jobs", options);
    REQUIRE(list.ok());
    std::vector<std::string> out;
    for (const json::value& r : list.value().at("items").as_array()) {
      out.emplace_back(r.at("metadata").at("name").as_string());
    }
    return out;
  }

  void SetRunState(const std::string& name, const std::string& state) {
    auto got = store->Get(app_type, "jobs", name);
    REQUIRE(got.ok());
    json::object body = got.value();
    body["status"] = json::object{{"applicationState", json::object{{"state", state}}},
                                  {"driverInfo", json::object()}};
    REQUIRE(store->Update(app_type, "jobs", name, body, true, {}).ok());
  }
};

std::string Field(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : "";
}

TEST_CASE_METHOD(Fixture, "runs appear on the schedule, woken by the timer alone",
                 "[schedule][controller]") {
  CreateScheduled("* * * * *", "Allow");
  auto c = Make();
  CHECK(c->RunOnce() == 1);  // the ADDED event
  CHECK(c->RunOnce() == 1);  // its own status update, as in the operator: nothing to do
  CHECK(c->RunOnce() == 0);
  CHECK(Field(Status(), "scheduleState") == "Scheduled");
  CHECK(Field(Status(), "nextRun") == "2026-05-12T10:01:00Z");
  now = kStartMs + 59999;
  CHECK(c->RunOnce() == 0);
  CHECK(Runs().empty());
  now = kStartMs + 60000;
  CHECK(c->RunOnce() == 1);
  REQUIRE(Runs() == std::vector<std::string>{"spark-pi-scheduled-1778580060000000000"});
  CHECK(Field(Status(), "lastRunName") == "spark-pi-scheduled-1778580060000000000");
  CHECK(Field(Status(), "nextRun") == "2026-05-12T10:02:00Z");
  now = kStartMs + 120000;
  c->RunOnce();
  CHECK(Runs().size() == 2);
}

TEST_CASE_METHOD(Fixture, "the time scale speeds up the operator's clock",
                 "[schedule][controller]") {
  CreateScheduled("@every 1m", "Allow");
  ControllerOptions options;
  options.time_scale = 60;
  auto c = Make(options);
  c->RunOnce();
  c->RunOnce();
  // 2026-05-12T10:00:00.250Z is the anchor: the first run is due a wall second later.
  CHECK(Field(Status(), "nextRun") == "2026-05-12T10:01:00Z");
  for (int i = 0; i < 3; ++i) {
    now += 500;
    c->RunOnce();
  }
  CHECK(Runs().size() == 1);
  CHECK(Field(Status(), "lastRun") == "2026-05-12T10:01:00Z");
  CHECK(Field(Status(), "nextRun") == "2026-05-12T10:02:00Z");
  for (int i = 0; i < 4; ++i) {
    now += 500;
    c->RunOnce();
  }
  CHECK(Runs().size() == 3);
}

TEST_CASE_METHOD(Fixture, "a name collision fails the create and the retry backs off",
                 "[schedule][controller]") {
  CreateScheduled("* * * * *", "Allow");
  auto c = Make();
  c->RunOnce();
  c->RunOnce();
  json::object squatter{
      {"apiVersion", "sparkoperator.k8s.io/v1beta2"},
      {"kind", "SparkApplication"},
      {"metadata", json::object{{"name", "spark-pi-scheduled-1778580060000000000"}}},
      {"spec", json::object{{"type", "Scala"},
                            {"sparkVersion", "4.0.4"},
                            {"mainApplicationFile", "local:///x.jar"},
                            {"driver", json::object()},
                            {"executor", json::object()}}}};
  REQUIRE(store->Create(app_type, "jobs", squatter, {}).ok());
  now = kStartMs + 60000;
  CHECK(c->RunOnce() == 1);  // fails: the name is taken
  CHECK(Field(Status(), "lastRunName").empty());
  now += 4;
  CHECK(c->RunOnce() == 0);  // 5 ms of backoff
  now += 1;
  CHECK(c->RunOnce() == 1);
  CHECK(Field(Status(), "lastRunName") == "spark-pi-scheduled-1778580060005000000");
  // The squatter has no label: it is no run.
  CHECK(Runs() == std::vector<std::string>{"spark-pi-scheduled-1778580060005000000"});
}

TEST_CASE_METHOD(Fixture, "a finished run wakes it only with wake_on_runs",
                 "[schedule][controller]") {
  for (bool wake : {false, true}) {
    Fixture f;
    f.CreateScheduled("* * * * *", "Forbid");
    ControllerOptions options;
    options.wake_on_runs = wake;
    auto c = f.Make(options);
    while (c->RunOnce() > 0) {
    }
    f.now = kStartMs + 60000;
    while (c->RunOnce() > 0) {
    }
    REQUIRE(f.Runs().size() == 1);
    f.SetRunState(f.Runs()[0], "RUNNING");
    f.now = kStartMs + 120000;  // the tick passes while the run runs
    while (c->RunOnce() > 0) {
    }
    CHECK(f.Runs().size() == 1);
    f.now = kStartMs + 130000;
    f.SetRunState(f.Runs()[0], "COMPLETED");
    while (c->RunOnce() > 0) {
    }
    // v2.5.2 waits for its requeue at the next tick; woken by the run, it starts at once.
    CHECK(f.Runs().size() == (wake ? 2u : 1u));
    f.now = kStartMs + 180000;
    while (c->RunOnce() > 0) {
    }
    CHECK(f.Runs().size() == 2);
  }
}

TEST_CASE_METHOD(Fixture, "Replace and history pruning delete through the store",
                 "[schedule][controller]") {
  CreateScheduled("* * * * *", "Replace");
  auto c = Make();
  for (int minute = 1; minute <= 3; ++minute) {
    now = kStartMs + minute * 60000;
    while (c->RunOnce() > 0) {
    }
  }
  // Each new run replaced the unfinished one before it.
  CHECK(Runs() == std::vector<std::string>{"spark-pi-scheduled-1778580180000000000"});
  SetRunState(Runs()[0], "COMPLETED");
  now = kStartMs + 240000;
  while (c->RunOnce() > 0) {
  }
  CHECK(Runs().size() == 2);
  json::array kept{"spark-pi-scheduled-1778580180000000000"};
  CHECK(Status().at("pastSuccessfulRunNames") == kept);
}

}  // namespace
}  // namespace kubesim::schedule
