#include "kubesim/controller/controller.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "kubesim/schema/crd.h"
#include "kubesim/store/core_types.h"
#include "tests/kubesim/controller/operator_world.h"

namespace kubesim {
namespace {

namespace json = boost::json;

constexpr const char* kFinalizer = "sparkapplications.spark.apache.org/finalizer";

json::object App(const std::string& name) {
  return json::object{{"metadata", json::object{{"name", name}}},
                      {"spec", json::object{{"mainClass", "Pi"}}}};
}

const json::object& Meta(const json::object& o) { return o.at("metadata").as_object(); }

bool HasFinalizer(const json::object& app) {
  auto f = Meta(app).find("finalizers");
  if (f == Meta(app).end()) return false;
  for (const json::value& v : f->value().as_array()) {
    if (v == kFinalizer) return true;
  }
  return false;
}

json::object DriverPod(const op::AppView& view, const std::string& name) {
  const json::object& m = Meta(*view.app);
  json::object ref{{"apiVersion", "spark.apache.org/v1"},
                   {"kind", "SparkApplication"},
                   {"name", m.at("name")},
                   {"uid", m.at("uid")},
                   {"controller", true},
                   {"blockOwnerDeletion", true}};
  json::object status{
      {"phase", "Running"},
      {"containerStatuses",
       json::array{json::object{{"name", "driver"}, {"state", {{"running", json::object()}}}}}}};
  return json::object{
      {"metadata", {{"name", name}, {"ownerReferences", json::array{ref}}}},
      {"spec", {{"containers", json::array{json::object{{"name", "driver"}, {"image", "i"}}}}}},
      {"status", status}};
}

struct Fixture {
  int64_t now = kStartMs;
  std::unique_ptr<Store> store = NewMemoryStore([this] { return now; });
  ResourceType spark = SparkType();
  ResourceType pod = PodType();
  std::function<op::Actions(const op::AppView&)> behaviour;
  std::vector<std::string> calls;  // app names, in reconcile order
  std::vector<size_t> pod_counts;  // pods in each view
  std::unique_ptr<Controller> controller;

  Fixture() {
    for (const ResourceType& t : CoreTypes()) store->RegisterType(t);
    store->RegisterType(spark);
    for (const char* ns : {"spark", "other"}) {
      REQUIRE(store->Create(NamespaceType(), "", {{"metadata", {{"name", ns}}}}, {}).ok());
    }
    controller = NewController(
        *store, spark, {"spark"}, op::Options{}, [this] { return now; },
        [this](const op::AppView& view, const op::Options&) {
          calls.push_back(std::string(Meta(*view.app).at("name").as_string()));
          pod_counts.push_back(view.pods.size());
          return behaviour ? behaviour(view) : op::Actions{};
        });
  }

  json::object Create(const std::string& name, const std::string& ns = "spark") {
    auto r = store->Create(spark, ns, App(name), {});
    REQUIRE(r.ok());
    return r.value();
  }

  json::object Get(const std::string& name, const std::string& ns = "spark") {
    auto r = store->Get(spark, ns, name);
    REQUIRE(r.ok());
    return r.value();
  }
};

TEST_CASE_METHOD(Fixture, "adds the finalizer and writes status through the subresource",
                 "[controller]") {
  behaviour = [&](const op::AppView& view) {
    op::Actions a;
    a.add_finalizer = !HasFinalizer(*view.app);
    int64_t n = 0;
    if (auto s = view.app->find("status"); s != view.app->end()) {
      n = s->value().at("n").as_int64();
    }
    a.status = json::object{{"n", n + 1}};
    a.requeue_at_ms = view.now_ms + 1000;
    return a;
  };
  Create("pi");
  CHECK(controller->RunOnce() == 1);
  json::object app = Get("pi");
  CHECK(HasFinalizer(app));
  CHECK(app.at("status").at("n") == 1);
  CHECK(Meta(app).at("generation") == 1);

  // Its own writes do not wake it up again; the requeue time does.
  CHECK(controller->RunOnce() == 0);
  now += 999;
  CHECK(controller->RunOnce() == 0);
  now += 1;
  CHECK(controller->RunOnce() == 1);
  CHECK(Get("pi").at("status").at("n") == 2);

  // A change by someone else does.
  auto patched = store->Patch(spark, "spark", "pi", PatchType::kMerge,
                              R"({"metadata":{"labels":{"x":"y"}}})", false, {});
  REQUIRE(patched.ok());
  CHECK(controller->RunOnce() == 1);
  CHECK(Get("pi").at("status").at("n") == 3);
  CHECK(calls == std::vector<std::string>{"pi", "pi", "pi"});
}

TEST_CASE_METHOD(Fixture, "events are created in the app's namespace - a repeated name once",
                 "[controller]") {
  ResourceType events;
  for (const ResourceType& t : CoreTypes()) {
    if (t.plural == "events") events = t;
  }
  REQUIRE(events.plural == "events");
  behaviour = [&](const op::AppView& view) {
    op::Actions a;
    a.events.push_back(json::object{{"apiVersion", "v1"},
                                    {"kind", "Event"},
                                    {"metadata", {{"name", "pi.suspendheld.0"}}},
                                    {"reason", "SuspendHeld"},
                                    {"involvedObject", {{"name", "pi"}}}});
    a.requeue_at_ms = view.now_ms + 10;
    return a;
  };
  Create("pi");
  CHECK(controller->RunOnce() == 1);
  now += 10;
  CHECK(controller->RunOnce() == 1);  // the same event again: AlreadyExists, ignored
  auto list = store->List(events, "spark", ListOptions{});
  REQUIRE(list.ok());
  const json::array& items = list.value().at("items").as_array();
  REQUIRE(items.size() == 1);
  CHECK(items[0].at("reason") == "SuspendHeld");
  CHECK(items[0].at("metadata").at("namespace") == "spark");
}

TEST_CASE_METHOD(Fixture, "a recurrence (a higher count) updates the event; a lower one does not",
                 "[controller][events]") {
  const ResourceType* events = store->FindType("", "v1", "events");
  REQUIRE(events != nullptr);
  int64_t count = 1;
  behaviour = [&](const op::AppView& view) {
    op::Actions a;
    a.events.push_back(json::object{{"apiVersion", "v1"},
                                    {"kind", "Event"},
                                    {"metadata", {{"name", "pi.0123456789abcdef"}}},
                                    {"reason", "SuspendHeld"},
                                    {"count", count},
                                    {"lastTimestamp", "t" + std::to_string(count)},
                                    {"involvedObject", {{"name", "pi"}}}});
    a.requeue_at_ms = view.now_ms + 10;
    return a;
  };
  Create("pi");
  auto stored = [&] {
    auto got = store->Get(*events, "spark", "pi.0123456789abcdef");
    REQUIRE(got.ok());
    return got.value();
  };
  controller->RunOnce();
  CHECK(stored().at("count") == 1);
  count = 3;
  now += 10;
  controller->RunOnce();
  CHECK(stored().at("count") == 3);
  CHECK(stored().at("lastTimestamp") == "t3");
  count = 2;  // a reconcile that saw less: not a recurrence
  now += 10;
  controller->RunOnce();
  CHECK(stored().at("count") == 3);
}

TEST_CASE_METHOD(Fixture, "applications outside the operator namespaces are never touched",
                 "[controller]") {
  behaviour = [&](const op::AppView&) {
    op::Actions a;
    a.status = json::object{{"n", 1}};
    return a;
  };
  Create("elsewhere", "other");
  Create("here");
  CHECK(controller->RunOnce() == 1);
  CHECK(calls == std::vector<std::string>{"here"});
  CHECK_FALSE(Get("elsewhere", "other").contains("status"));
  CHECK(Get("here").contains("status"));
}

TEST_CASE_METHOD(Fixture, "pods: created with status, seen, updated, logged, deleted",
                 "[controller]") {
  int pass = 0;
  behaviour = [&](const op::AppView& view) {
    op::Actions a;
    ++pass;
    if (pass == 1) {
      a.create_pods.push_back(DriverPod(view, "pi-0-driver"));
      a.requeue_at_ms = view.now_ms + 100;
    } else if (pass == 2) {
      a.logs.push_back({"pi-0-driver", "driver", "Pi is roughly 3.14\n"});
      json::object done{{"phase", "Succeeded"},
                        {"containerStatuses",
                         json::array{json::object{
                             {"name", "driver"}, {"state", {{"terminated", {{"exitCode", 0}}}}}}}}};
      a.pod_status.push_back({"pi-0-driver", done});
      a.requeue_at_ms = view.now_ms + 100;
    } else if (pass == 3) {
      a.delete_pods.push_back("pi-0-driver");
    }
    return a;
  };
  Create("pi");
  CHECK(controller->RunOnce() == 1);
  auto created = store->Get(pod, "spark", "pi-0-driver");
  REQUIRE(created.ok());
  CHECK(created.value().at("status").at("phase") == "Running");  // not left Pending
  CHECK(Meta(created.value()).at("ownerReferences").as_array()[0].at("name") == "pi");
  CHECK(controller->RunOnce() == 0);  // its own pod writes do not retrigger

  now += 100;
  CHECK(controller->RunOnce() == 1);
  CHECK(pod_counts.back() == 1);  // the reconciler saw the pod
  CHECK(store->Get(pod, "spark", "pi-0-driver").value().at("status").at("phase") == "Succeeded");
  CHECK(store->ReadLog("spark", "pi-0-driver", {}).value() == "Pi is roughly 3.14\n");

  // A pod change by someone else (the "kubelet") wakes the owner up.
  auto labelled = store->Patch(pod, "spark", "pi-0-driver", PatchType::kMerge,
                               R"({"metadata":{"labels":{"seen":"yes"}}})", false, {});
  REQUIRE(labelled.ok());
  CHECK(controller->RunOnce() == 1);
  CHECK_FALSE(store->Get(pod, "spark", "pi-0-driver").ok());
  // The deletion is not hidden as an own write: the reconciler sees its pod gone.
  CHECK(controller->RunOnce() == 1);
  CHECK(pod_counts.back() == 0);
  now += 1000;
  CHECK(controller->RunOnce() == 0);
  CHECK(pass == 4);
}

TEST_CASE_METHOD(Fixture, "a conflicting write is re-read and retried", "[controller]") {
  int pass = 0;
  behaviour = [&](const op::AppView& view) {
    op::Actions a;
    if (++pass == 1) {
      // Someone else writes between our read and our write.
      auto r = store->Patch(spark, "spark", "pi", PatchType::kMerge,
                            R"({"metadata":{"labels":{"other":"writer"}}})", false, {});
      REQUIRE(r.ok());
    }
    a.status = json::object{{"pass", pass}, {"sawLabel", Meta(*view.app).contains("labels")}};
    return a;
  };
  Create("pi");
  CHECK(controller->RunOnce() == 1);
  CHECK(pass == 2);
  json::object app = Get("pi");
  CHECK(app.at("status").at("pass") == 2);
  CHECK(app.at("status").at("sawLabel") == true);
  CHECK(Meta(app).at("labels").at("other") == "writer");
}

TEST_CASE_METHOD(Fixture, "deletion: finalizer removal and TTL deletion", "[controller]") {
  behaviour = [&](const op::AppView& view) {
    op::Actions a;
    bool deleting = Meta(*view.app).contains("deletionTimestamp");
    if (deleting) {
      a.remove_finalizer = true;
    } else if (!HasFinalizer(*view.app)) {
      a.add_finalizer = true;
    } else if (Meta(*view.app).at("name") == "ttl") {
      a.delete_app = true;
    }
    return a;
  };
  Create("pi");
  CHECK(controller->RunOnce() == 1);
  CHECK(HasFinalizer(Get("pi")));
  auto del = store->Delete(spark, "spark", "pi", {});
  REQUIRE(del.ok());
  CHECK(Meta(Get("pi")).contains("deletionTimestamp"));  // held by the finalizer
  CHECK(controller->RunOnce() == 1);
  CHECK_FALSE(store->Get(spark, "spark", "pi").ok());

  Create("ttl");
  CHECK(controller->RunOnce() == 1);  // adds the finalizer
  auto touched = store->Patch(spark, "spark", "ttl", PatchType::kMerge,
                              R"({"metadata":{"labels":{"a":"b"}}})", false, {});
  REQUIRE(touched.ok());
  CHECK(controller->RunOnce() == 1);  // deletes: the finalizer holds it, with a deletionTimestamp
  CHECK(controller->RunOnce() == 1);  // sees the deletion, removes the finalizer
  CHECK_FALSE(store->Get(spark, "spark", "ttl").ok());
  CHECK(controller->RunOnce() == 0);

  // An application deleted before its reconcile is skipped quietly.
  Create("gone");
  REQUIRE(store->Delete(spark, "spark", "gone", {}).ok());
  CHECK(controller->RunOnce() == 0);
}

TEST_CASE_METHOD(Fixture, "a refused write is retried later, not in a loop", "[controller]") {
  ResourceType strict = spark;
  strict.validator = [](json::object& obj, bool, std::vector<std::string>*) {
    std::vector<FieldCause> causes;
    auto s = obj.find("status");
    if (s != obj.end() && s->value().as_object().contains("bad")) {
      causes.push_back({"FieldValueForbidden", "Forbidden: not allowed", "status.bad"});
    }
    return causes;
  };
  store->RegisterType(strict);
  bool bad = true;
  behaviour = [&](const op::AppView&) {
    op::Actions a;
    a.status = bad ? json::object{{"bad", 1}} : json::object{{"good", 1}};
    return a;
  };
  Create("pi");
  CHECK(controller->RunOnce() == 1);
  CHECK_FALSE(Get("pi").contains("status"));
  CHECK(controller->RunOnce() == 0);
  now += 999;
  CHECK(controller->RunOnce() == 0);
  bad = false;
  now += 1;
  CHECK(controller->RunOnce() == 1);
  CHECK(Get("pi").at("status").at("good") == 1);
}

TEST_CASE_METHOD(Fixture, "a reconciler asking for now again cannot spin", "[controller]") {
  behaviour = [&](const op::AppView& view) {
    op::Actions a;
    a.requeue_at_ms = view.now_ms - 10;
    return a;
  };
  Create("pi");
  CHECK(controller->RunOnce() == 1);
  CHECK(controller->RunOnce() == 0);
  now += 5;
  CHECK(controller->RunOnce() == 1);
}

TEST_CASE_METHOD(Fixture, "a watch cut off for falling behind is reopened", "[controller]") {
  behaviour = [&](const op::AppView&) {
    op::Actions a;
    a.status = json::object{{"ok", true}};
    return a;
  };
  Create("busy");
  CHECK(controller->RunOnce() == 1);
  for (int i = 0; i < 21000; ++i) {
    auto r =
        store->Patch(spark, "spark", "busy", PatchType::kMerge,
                     R"({"metadata":{"labels":{"n":")" + std::to_string(i) + R"("}}})", false, {});
    REQUIRE(r.ok());
  }
  Create("late");
  controller->RunOnce();  // sees the ERROR and reopens the watch
  controller->RunOnce();  // the reopened watch lists everything again
  CHECK(Get("late").at("status").at("ok") == true);
  CHECK(std::count(calls.begin(), calls.end(), "late") >= 1);
}

TEST_CASE_METHOD(Fixture, "the controller thread reconciles on its own", "[controller]") {
  std::mutex mu;
  std::condition_variable cv;
  bool reconciled = false;
  int64_t wall = 0;
  auto threaded = NewController(
      *store, spark, {"spark"}, op::Options{},
      [&] {
        std::lock_guard<std::mutex> lock(mu);
        return wall;
      },
      [&](const op::AppView&, const op::Options&) {
        op::Actions a;
        a.status = json::object{{"by", "thread"}};
        {
          std::lock_guard<std::mutex> lock(mu);
          reconciled = true;
        }
        cv.notify_all();
        return a;
      });
  threaded->Start();
  threaded->Start();  // idempotent
  Create("pi");
  {
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return reconciled; }));
  }
  threaded->Stop();
  threaded->Stop();
  CHECK(Get("pi").at("status").at("by") == "thread");
}

// The real operator over the real CRD schema: pi.yaml's application runs to completion.
TEST_CASE("the operator runs an application to completion through the store",
          "[controller][operator]") {
  int64_t now = kStartMs;
  auto store = NewMemoryStore([&] { return now; });
  for (const ResourceType& t : CoreTypes()) store->RegisterType(t);
  std::string error;
  auto crds =
      LoadCrdFile(std::string(KUBESIM_CRD_ROOT) +
                      "/apache-spark-operator/1.0.0/sparkapplications.spark.apache.org-v1.yaml",
                  &error);
  REQUIRE(error.empty());
  REQUIRE(crds.size() == 1);
  ResourceType spark = SparkType();
  for (const CrdVersion& v : crds[0].versions) {
    if (v.name != "v1") continue;
    std::shared_ptr<const Schema> schema = v.schema;
    REQUIRE(schema != nullptr);
    spark.validator = [schema](json::object& obj, bool strict, std::vector<std::string>* unknown) {
      return schema->Validate(obj, strict, unknown);
    };
  }
  store->RegisterType(spark);
  json::object app = json::parse(R"({
    "apiVersion": "spark.apache.org/v1", "kind": "SparkApplication",
    "metadata": {"name": "pi"},
    "spec": {
      "mainClass": "org.apache.spark.examples.SparkPi",
      "jars": "local:///opt/spark/examples/jars/spark-examples.jar",
      "sparkConf": {
        "spark.kubernetes.authenticate.driver.serviceAccountName": "spark",
        "spark.kubernetes.container.image": "apache/spark:{{SPARK_VERSION}}-scala"},
      "applicationTolerations": {"resourceRetainPolicy": "OnFailure", "ttlAfterStopMillis": 10000},
      "runtimeVersions": {"sparkVersion": "4.1.1"}}})")
                         .as_object();
  auto created = store->Create(spark, "default", app, {});
  REQUIRE(created.ok());
  std::string uid(Meta(created.value()).at("uid").as_string());

  auto controller = NewController(*store, spark, {"default"}, op::Options{}, [&] { return now; });
  std::vector<std::string> states;
  std::string driver_log;
  bool saw_driver = false;
  for (int step = 0; step < 2000 && store->Get(spark, "default", "pi").ok(); ++step) {
    controller->RunOnce();
    auto cur = store->Get(spark, "default", "pi");
    if (cur.ok()) {
      if (const json::value* s = cur.value().if_contains("status")) {
        std::string state(s->at("currentState").at("currentStateSummary").as_string());
        if (states.empty() || states.back() != state) states.push_back(state);
      }
    }
    auto pods = store->List(PodType(), "default", {});
    REQUIRE(pods.ok());
    for (const json::value& p : pods.value().at("items").as_array()) {
      saw_driver = true;
      std::string name(Meta(p.as_object()).at("name").as_string());
      auto log = store->ReadLog("default", name, {});
      if (log.ok() && !log.value().empty()) driver_log = log.value();
    }
    now += 100;
  }
  INFO("states: " << boost::json::serialize(json::value_from(states)));
  CHECK_FALSE(store->Get(spark, "default", "pi").ok());  // ttlAfterStopMillis removed it
  CHECK(saw_driver);
  CHECK(driver_log.find("Pi is roughly 3.1") != std::string::npos);  // a sampled estimate
  REQUIRE(states.size() >= 3);
  CHECK(states.front() == "Submitted");
  CHECK(std::find(states.begin(), states.end(), "RunningHealthy") != states.end());
  CHECK(std::find(states.begin(), states.end(), "Succeeded") != states.end());
  CHECK(states.back() == "ResourceReleased");
  CHECK(store->List(PodType(), "default", {}).value().at("items").as_array().empty());
}

using Strings = std::vector<std::string>;

TEST_CASE("operator: a succeeding job's driver events, its pod released at the end",
          "[controller][operator][events]") {
  OperatorWorld w;
  w.Create("");
  w.RunUntil("ResourceReleased");
  // Released: the operator deleted the Succeeded pod, with nothing running in it to stop.
  CHECK(w.ReasonsOf("pi-0-driver") ==
        Strings{"Scheduled", "Pulling", "Pulled", "Created", "Started"});
  const std::vector<json::object> events = w.EventsOf("pi-0-driver");
  CHECK(std::string(events[0].at("message").as_string()) ==
        "Successfully assigned default/pi-0-driver to " +
            std::string(events[1].at("source").at("host").as_string()));
  CHECK(events[1].at("message") == "Pulling image \"apache/spark:4.1.1-scala\"");
  for (const json::object& e : events) {
    CHECK_FALSE(e.at("involvedObject").at("uid").as_string().empty());
    CHECK(e.at("involvedObject").at("namespace") == "default");
  }
  // Operator 1.0 records no events of its own.
  CHECK(w.EventsOf("pi").empty());
}

TEST_CASE("operator: a failing job's driver events", "[controller][operator][events]") {
  OperatorWorld w;
  w.Create("fail");
  w.RunUntil("ResourceReleased");
  CHECK(w.ReasonsOf("pi-0-driver") ==
        Strings{"Scheduled", "Pulling", "Pulled", "Created", "Started"});
}

TEST_CASE("operator: an evicted driver: Evicted, then its container stopped",
          "[controller][operator][events]") {
  OperatorWorld w;
  w.Create("evict");
  w.RunUntil("ResourceReleased");
  const std::vector<json::object> events = w.EventsOf("pi-0-driver");
  CHECK(w.ReasonsOf("pi-0-driver") ==
        Strings{"Scheduled", "Pulling", "Pulled", "Created", "Started", "Evicted", "Killing"});
  REQUIRE(events.size() == 7);
  CHECK(events[5].at("type") == "Warning");
  CHECK_THAT(std::string(events[5].at("message").as_string()),
             Catch::StartsWith("The node was low on resource: memory."));
  CHECK(events[6].at("message") == "Stopping container spark-kubernetes-driver");
}

TEST_CASE("operator: a running driver deleted by hand: Killing", "[controller][operator][events]") {
  OperatorWorld w;
  w.Create("hang");
  w.RunUntil("RunningHealthy");
  REQUIRE(w.store->Delete(PodType(), "default", "pi-0-driver", {}).ok());
  w.RunUntil("ResourceReleased");
  CHECK(w.ReasonsOf("pi-0-driver") ==
        Strings{"Scheduled", "Pulling", "Pulled", "Created", "Started", "Killing"});
}

}  // namespace
}  // namespace kubesim
