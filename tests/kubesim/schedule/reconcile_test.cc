// schedule::Reconcile over a tiny world: one ScheduledSparkApplication (the v2.5.2 example) and
// its runs, kept as local copies to which the actions are applied, with an injected clock. Every
// status written and every run created is validated against the real v2.5.2 CRDs.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "kubesim/schedule/schedule.h"
#include "kubesim/schema/crd.h"
#include "kubesim/schema/schema.h"
#include "kubesim/sim/clock.h"

namespace kubesim::schedule {
namespace {

namespace json = boost::json;

const std::string kCrdRoot = KUBESIM_CRD_ROOT;
const absl::Time kStart = absl::FromUnixSeconds(1778580000);  // 2026-05-12T10:00:00Z, a Tuesday

std::shared_ptr<const Schema> LoadSchema(const std::string& file) {
  std::string error;
  auto crds = LoadCrdFile(kCrdRoot + "/kubeflow-spark-operator/v2.5.2/" + file, &error);
  INFO(error);
  REQUIRE(crds.size() == 1);
  return crds[0].versions.at(0).schema;
}

const Schema& ScheduledSchema() {
  static auto s = LoadSchema("sparkoperator.k8s.io_scheduledsparkapplications.yaml");
  return *s;
}

const Schema& AppSchema() {
  static auto s = LoadSchema("sparkoperator.k8s.io_sparkapplications.yaml");
  return *s;
}

void RequireValid(const Schema& schema, json::object obj) {
  std::vector<std::string> unknown;
  std::vector<FieldCause> causes = schema.Validate(obj, true, &unknown);
  for (const FieldCause& c : causes) UNSCOPED_INFO(c.field << ": " << c.message);
  for (const std::string& u : unknown) UNSCOPED_INFO("unknown field " << u);
  REQUIRE(causes.empty());
  REQUIRE(unknown.empty());
}

std::string Str(const json::value* v) {
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : "";
}

std::string Rfc3339(absl::Time t) { return sim::FormatTime(absl::ToUnixMillis(t), false); }

class World {
 public:
  World() {
    app_ = YamlToJson(YAML::LoadFile(kCrdRoot +
                                     "/kubeflow-spark-operator/examples/spark-pi-scheduled.yaml"))
               .as_object();
    json::object& meta = app_["metadata"].as_object();
    meta["namespace"] = "spark";
    meta["uid"] = "5c4ed000-0000-4000-8000-000000000001";
    meta["labels"] = json::object{{"team", "pi"}};
    meta["annotations"] = json::object{{"note", "not copied"}};
    Spec()["schedule"] = "*/5 * * * *";
  }

  json::object& Spec() { return app_["spec"].as_object(); }
  json::object& Status() {
    json::value& s = app_["status"];
    if (!s.is_object()) s = json::object();
    return s.as_object();
  }
  std::string StatusField(const std::string& key) {
    return app_.contains("status") ? Str(Status().if_contains(key)) : "";
  }
  std::string State() { return StatusField("scheduleState"); }

  Actions Reconcile() {
    View view;
    view.app = &app_;
    view.now = now;
    for (const auto& [name, run] : runs) view.runs.push_back(&run);
    Actions actions = schedule::Reconcile(view, options);
    for (const std::string& name : actions.delete_runs) REQUIRE(runs.erase(name) == 1);
    if (actions.create_run) {
      RequireValid(AppSchema(), *actions.create_run);
      json::object run = *actions.create_run;
      json::object& meta = run["metadata"].as_object();
      // The API server's seconds: runs started within one second tie.
      meta["creationTimestamp"] = Rfc3339(now);
      const std::string name = Str(meta.if_contains("name"));
      REQUIRE(runs.emplace(name, std::move(run)).second);
    }
    for (const std::string& name : actions.prune_runs) REQUIRE(runs.erase(name) == 1);
    if (actions.status) {
      app_["status"] = *actions.status;
      RequireValid(ScheduledSchema(), app_);
    }
    return actions;
  }

  void SetRunState(const std::string& name, const std::string& state) {
    runs.at(name)["status"] = json::object{{"applicationState", json::object{{"state", state}}}};
  }

  std::vector<std::string> RunNames() const {
    std::vector<std::string> out;
    for (const auto& [name, run] : runs) out.push_back(name);
    return out;
  }

  std::vector<std::string> StatusList(const std::string& key) {
    std::vector<std::string> out;
    if (!app_.contains("status")) return out;
    if (const json::value* v = Status().if_contains(key)) {
      for (const json::value& n : v->as_array()) out.emplace_back(n.as_string());
    }
    return out;
  }

  // Reconciles at the requeue time until a run is created.
  std::string RunUntilNewRun() {
    for (int i = 0; i < 10; ++i) {
      Actions a = Reconcile();
      if (a.create_run) return Str(a.create_run->at("metadata").as_object().if_contains("name"));
      REQUIRE(a.requeue_at);
      now = *a.requeue_at;
    }
    FAIL("no run started");
    return "";
  }

  absl::Time now = kStart + absl::Milliseconds(1234);
  Options options;
  std::map<std::string, json::object> runs;

 private:
  json::object app_;
};

TEST_CASE("a new schedule is Scheduled with nextRun, then its first run starts on time",
          "[schedule][reconcile]") {
  World w;
  Actions a = w.Reconcile();
  CHECK(w.State() == "Scheduled");
  CHECK(w.StatusField("nextRun") == "2026-05-12T10:05:00Z");
  CHECK(w.Status().at("lastRun").is_null());
  CHECK(!w.Status().contains("reason"));
  REQUIRE(a.requeue_at);
  CHECK(*a.requeue_at == kStart + absl::Minutes(5));
  CHECK(w.runs.empty());

  // Early: no writes, a requeue for nextRun.
  w.now = kStart + absl::Minutes(4);
  a = w.Reconcile();
  CHECK(!a.status);
  CHECK(*a.requeue_at == kStart + absl::Minutes(5));

  w.now = kStart + absl::Minutes(5) + absl::Nanoseconds(42);
  a = w.Reconcile();
  REQUIRE(a.create_run);
  const std::string name = "spark-pi-scheduled-1778580300000000042";
  REQUIRE(w.runs.count(name) == 1);
  const json::object& meta = w.runs.at(name).at("metadata").as_object();
  CHECK(meta.at("namespace") == "spark");
  CHECK(meta.at("labels") ==
        json::object{{kLabelScheduledAppName, "spark-pi-scheduled"}, {"team", "pi"}});
  CHECK(!meta.contains("annotations"));
  CHECK(meta.at("ownerReferences") ==
        json::array{json::object{{"apiVersion", "sparkoperator.k8s.io/v1beta2"},
                                 {"kind", "ScheduledSparkApplication"},
                                 {"name", "spark-pi-scheduled"},
                                 {"uid", "5c4ed000-0000-4000-8000-000000000001"},
                                 {"blockOwnerDeletion", true}}});
  CHECK(w.runs.at(name).at("spec") == w.Spec().at("template"));
  CHECK(w.StatusField("lastRun") == "2026-05-12T10:05:00Z");
  CHECK(w.StatusField("lastRunName") == name);
  CHECK(w.StatusField("nextRun") == "2026-05-12T10:10:00Z");
  CHECK(*a.requeue_at == kStart + absl::Minutes(10));
}

TEST_CASE("suspend: nothing at all, then one overdue run on resume", "[schedule][reconcile]") {
  World w;
  w.Spec()["suspend"] = true;
  w.Spec()["schedule"] = "not a schedule";  // not even validated
  Actions a = w.Reconcile();
  CHECK(!a.status);
  CHECK(!a.requeue_at);
  CHECK(!a.create_run);

  w.Spec()["schedule"] = "*/5 * * * *";
  w.Spec()["suspend"] = false;
  w.Reconcile();
  w.Spec()["suspend"] = true;
  w.now = kStart + absl::Hours(3);  // 36 ticks missed while suspended
  CHECK(!w.Reconcile().create_run);
  w.Spec()["suspend"] = false;
  a = w.Reconcile();
  CHECK(w.runs.size() == 1);
  // The next run counts from now, not from the missed ticks.
  CHECK(w.StatusField("nextRun") == "2026-05-12T13:05:00Z");
  CHECK(!w.Reconcile().create_run);
}

TEST_CASE("after downtime one overdue run starts, not one per missed tick",
          "[schedule][reconcile]") {
  World w;
  w.Spec()["concurrencyPolicy"] = "Allow";
  w.RunUntilNewRun();
  w.now += absl::Hours(1);
  CHECK(w.Reconcile().create_run);
  CHECK(!w.Reconcile().create_run);
  CHECK(w.runs.size() == 2);
}

TEST_CASE("a bad time zone or schedule is FailedValidation, for good", "[schedule][reconcile]") {
  World w;
  w.Spec()["timeZone"] = "Mars/Olympus";
  Actions a = w.Reconcile();
  CHECK(w.State() == "FailedValidation");
  CHECK(w.StatusField("reason") == "Invalid timezone: unknown time zone Mars/Olympus");
  CHECK(!a.requeue_at);

  w.Spec()["timeZone"] = "UTC";
  w.Spec()["schedule"] = "61 * * * *";
  w.Reconcile();
  CHECK(w.State() == "FailedValidation");
  CHECK(w.StatusField("reason") == "end of range (61) above maximum (59): 61");

  // Fixed: still FailedValidation (kubeflow/spark-operator#3174), no run, no requeue.
  w.Spec()["schedule"] = "* * * * *";
  w.now += absl::Hours(1);
  a = w.Reconcile();
  CHECK(w.State() == "FailedValidation");
  CHECK(!a.status);
  CHECK(!a.requeue_at);
  CHECK(w.runs.empty());
}

TEST_CASE("a CRON_TZ= with no space fails the reconcile without a verdict",
          "[schedule][reconcile]") {
  World w;
  w.Spec()["schedule"] = "CRON_TZ=UTC";
  Actions a = w.Reconcile();
  CHECK(!a.error.empty());
  CHECK(!a.status);
  CHECK(w.State().empty());
}

TEST_CASE("timeZone decides the cron fields' zone", "[schedule][reconcile]") {
  World w;
  w.Spec()["schedule"] = "0 9 * * *";
  w.Spec()["timeZone"] = "America/New_York";
  w.Reconcile();
  CHECK(w.StatusField("nextRun") == "2026-05-12T13:00:00Z");
  // A CRON_TZ in the schedule wins over timeZone.
  World v;
  v.Spec()["schedule"] = "CRON_TZ=Asia/Tokyo 0 9 * * *";
  v.Spec()["timeZone"] = "America/New_York";
  v.Reconcile();
  CHECK(v.StatusField("nextRun") == "2026-05-13T00:00:00Z");
  // Local is the operator's zone (Options::local).
  World l;
  REQUIRE(absl::LoadTimeZone("Europe/Berlin", &l.options.local));
  l.Spec()["schedule"] = "0 13 * * *";
  l.Reconcile();
  CHECK(l.StatusField("nextRun") == "2026-05-12T11:00:00Z");
}

TEST_CASE("Forbid waits for the newest run and leaves nextRun in the past",
          "[schedule][reconcile]") {
  World w;
  w.Spec()["concurrencyPolicy"] = "Forbid";
  const std::string first = w.RunUntilNewRun();
  w.now = kStart + absl::Minutes(10) + absl::Seconds(1);
  Actions a = w.Reconcile();
  CHECK(!a.create_run);
  CHECK(!a.status);
  CHECK(w.StatusField("nextRun") == "2026-05-12T10:10:00Z");
  CHECK(*a.requeue_at == kStart + absl::Minutes(15));
  w.SetRunState(first, "RUNNING");
  w.now = kStart + absl::Minutes(12);
  CHECK(!w.Reconcile().create_run);
  // Finished: the next pass starts the overdue run at once, off the cron grid.
  w.SetRunState(first, "FAILED");
  w.now = kStart + absl::Minutes(13);
  a = w.Reconcile();
  REQUIRE(a.create_run);
  CHECK(w.StatusField("lastRun") == "2026-05-12T10:13:00Z");
  CHECK(w.StatusField("nextRun") == "2026-05-12T10:15:00Z");
  CHECK(w.StatusList("pastFailedRunNames") == std::vector<std::string>{first});
}

TEST_CASE("Replace deletes only the newest run, when unfinished", "[schedule][reconcile]") {
  World w;
  w.Spec()["concurrencyPolicy"] = "Allow";
  const std::string older = w.RunUntilNewRun();
  w.now = kStart + absl::Minutes(10);
  const std::string newer = w.RunUntilNewRun();
  w.SetRunState(older, "RUNNING");
  w.SetRunState(newer, "SUBMITTED");
  w.Spec()["concurrencyPolicy"] = "Replace";
  w.now = kStart + absl::Minutes(15);
  Actions a = w.Reconcile();
  CHECK(a.delete_runs == std::vector<std::string>{newer});
  REQUIRE(a.create_run);
  CHECK(w.runs.size() == 2);
  CHECK(w.runs.count(older) == 1);
  // A finished newest run is left alone.
  const std::string current = w.StatusField("lastRunName");
  w.SetRunState(current, "COMPLETED");
  w.now = kStart + absl::Minutes(20);
  a = w.Reconcile();
  CHECK(a.delete_runs.empty());
  CHECK(w.runs.count(current) == 1);
}

TEST_CASE("Allow runs concurrently; an empty or unknown policy runs only the first",
          "[schedule][reconcile]") {
  World w;
  w.Spec()["concurrencyPolicy"] = "Allow";
  w.RunUntilNewRun();
  w.now = kStart + absl::Minutes(10);
  w.RunUntilNewRun();
  CHECK(w.runs.size() == 2);

  for (const char* policy : {"", "MaybeSometimes"}) {
    World u;
    if (*policy == '\0') {
      u.Spec().erase("concurrencyPolicy");
    } else {
      u.Spec()["concurrencyPolicy"] = policy;
    }
    u.RunUntilNewRun();
    u.SetRunState(u.StatusField("lastRunName"), "COMPLETED");
    for (int i = 2; i < 6; ++i) {
      u.now = kStart + absl::Minutes(5 * i);
      Actions a = u.Reconcile();
      CHECK(!a.create_run);
      CHECK(a.requeue_at);
    }
    CHECK(u.runs.size() == 1);
  }
}

TEST_CASE("history is pruned to its limits only when a run starts", "[schedule][reconcile]") {
  World w;
  w.Spec()["concurrencyPolicy"] = "Allow";
  std::vector<std::string> names;
  for (int i = 1; i <= 5; ++i) {
    w.now = kStart + absl::Minutes(5 * i - 1);
    names.push_back(w.RunUntilNewRun());
  }
  for (int i = 0; i < 3; ++i) w.SetRunState(names[i], "COMPLETED");
  w.SetRunState(names[3], "FAILED");
  w.SetRunState(names[4], "FAILED");
  // Finished runs pile up until the next run starts.
  w.now = kStart + absl::Minutes(27);
  CHECK(w.Reconcile().prune_runs.empty());
  CHECK(w.runs.size() == 5);

  w.now = kStart + absl::Minutes(30);
  Actions a = w.Reconcile();
  REQUIRE(a.create_run);
  std::vector<std::string> pruned = a.prune_runs;
  std::sort(pruned.begin(), pruned.end());
  CHECK(pruned == std::vector<std::string>{names[0], names[1], names[3]});
  CHECK(w.StatusList("pastSuccessfulRunNames") == std::vector<std::string>{names[2]});
  CHECK(w.StatusList("pastFailedRunNames") == std::vector<std::string>{names[4]});

  // Limits 2 and 0: no failed run kept, and the list goes from the status.
  w.Spec()["successfulRunHistoryLimit"] = 2;
  w.Spec()["failedRunHistoryLimit"] = 0;
  w.SetRunState(w.StatusField("lastRunName"), "COMPLETED");
  w.now = kStart + absl::Minutes(35);
  a = w.Reconcile();
  CHECK(a.prune_runs == std::vector<std::string>{names[4]});
  CHECK(w.StatusList("pastSuccessfulRunNames").size() == 2);
  CHECK(!w.Status().contains("pastFailedRunNames"));
}

TEST_CASE("a negative history limit fails after the run is created", "[schedule][reconcile]") {
  World w;
  w.Spec()["concurrencyPolicy"] = "Allow";
  w.Spec()["failedRunHistoryLimit"] = -1;
  w.Reconcile();  // New → Scheduled
  w.now = kStart + absl::Minutes(5);
  Actions a = w.Reconcile();
  CHECK(a.create_run);
  CHECK(a.error == "runtime error: slice bounds out of range [:-1]");
  CHECK(!a.status);
  // The status still says the tick is due: the retry starts another run.
  w.now += absl::Milliseconds(5);
  CHECK(w.Reconcile().create_run);
  CHECK(w.runs.size() == 2);
}

TEST_CASE("a schedule edit moves nextRun only before the first Scheduled write",
          "[schedule][reconcile]") {
  World w;
  w.Reconcile();
  w.Spec()["schedule"] = "@yearly";
  w.now += absl::Minutes(1);
  CHECK(!w.Reconcile().status);
  CHECK(w.StatusField("nextRun") == "2026-05-12T10:05:00Z");
  // In the New state an earlier time wins, a later one does not.
  World n;
  n.Status()["nextRun"] = "2026-05-12T10:03:00Z";
  n.Reconcile();
  CHECK(n.StatusField("nextRun") == "2026-05-12T10:03:00Z");
  World e;
  e.Status()["nextRun"] = "2026-05-12T11:00:00Z";
  e.Reconcile();
  CHECK(e.StatusField("nextRun") == "2026-05-12T10:05:00Z");
}

TEST_CASE("run names carry the start time at the configured precision", "[schedule][reconcile]") {
  const absl::Time t = absl::FromUnixNanos(1778580300123456789);
  CHECK(RunName("a", t, Precision::kNanos) == "a-1778580300123456789");
  CHECK(RunName("a", t, Precision::kMicros) == "a-1778580300123456");
  CHECK(RunName("a", t, Precision::kMillis) == "a-1778580300123");
  CHECK(RunName("a", t, Precision::kSeconds) == "a-1778580300");
  CHECK(RunName("a", t, Precision::kMinutes) == "a-29643005");
}

}  // namespace
}  // namespace kubesim::schedule
