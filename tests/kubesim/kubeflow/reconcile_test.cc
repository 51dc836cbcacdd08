// The Kubeflow operator's state machine: every state, every outcome, restart policies with their
// backoff, the driver-pod grace period, TTL, suspend/resume, invalidation and deletion.

#include <regex>

#include "tests/kubesim/kubeflow/world.h"

namespace kubesim::kubeflow::testing {
namespace {

using Strings = std::vector<std::string>;

int64_t Ms(const json::object& status, const char* key) {
  const json::value& v = status.at(key);
  REQUIRE(v.is_string());
  std::string t(v.as_string());
  REQUIRE(std::regex_match(t, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  std::tm tm{};
  strptime(t.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return static_cast<int64_t>(timegm(&tm)) * 1000;
}

int64_t Int(const json::object& o, const char* key) { return o.at(key).as_int64(); }

json::object App(const std::string& outcome = "", const std::string& duration = "") {
  json::object app = ExampleApp();
  if (!outcome.empty()) SetConf(app, "kubesim.outcome", outcome);
  if (!duration.empty()) SetConf(app, "kubesim.durationMs", duration);
  return app;
}

void SetRestart(json::object& app, json::object policy) { Spec(app)["restartPolicy"] = policy; }

TEST_CASE("spark-pi.yaml runs to COMPLETED, one state per status write", "[kubeflow]") {
  World w(App());
  w.Run();
  CHECK(w.states() == Strings{"SUBMITTED", "RUNNING", "SUCCEEDING", "COMPLETED"});
  const json::object& s = w.Status();
  json::object driver_info = s.at("driverInfo").as_object();
  // webUIAddress is the UI service's cluster IP, in kubeadm's service range 10.96.0.0/12.
  std::string ui_address = Str(driver_info.at("webUIAddress"));
  CHECK(std::regex_match(ui_address,
                         std::regex("10\\.(9[6-9]|10[0-9]|11[01])(\\.[0-9]{1,3}){2}:4040")));
  driver_info.erase("webUIAddress");
  CHECK(driver_info == json::parse(R"({"podName":"spark-pi-driver",
      "webUIServiceName":"spark-pi-ui-svc","webUIPort":4040})"));
  std::string id = Str(s.at("submissionID"));
  CHECK(std::regex_match(id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                                        "[0-9a-f]{12}")));
  CHECK(std::regex_match(Str(s.at("sparkApplicationId")), std::regex("spark-[0-9a-f]{32}")));
  CHECK(Int(s, "executionAttempts") == 1);
  CHECK(Int(s, "submissionAttempts") == 1);
  CHECK(Ms(s, "lastSubmissionAttemptTime") == kStartMs);
  // Submitted at 0, running 1.5 s later, 3 s of work (operator time, scale 1).
  CHECK(Ms(s, "terminationTime") == kStartMs + 4000);
  CHECK_FALSE(s.at("applicationState").as_object().contains("errorMessage"));
  REQUIRE(s.at("executorState").as_object().size() == 1);
  CHECK(s.at("executorState").as_object().begin()->value() == "COMPLETED");
  // The driver stays (its log with it); the driver deleted its executors.
  REQUIRE(w.pods().contains("spark-pi-driver"));
  CHECK(w.pods().at("spark-pi-driver").at("status").at("phase") == "Succeeded");
  CHECK(w.PodsWithRole("executor").empty());
  std::string log = w.Log("spark-pi-driver", "spark-kubernetes-driver");
  CHECK(log.find("Running Spark version 4.0.4") != std::string::npos);
  CHECK(std::regex_search(log, std::regex(R"(\nPi is roughly 3\.14\d*\n)")));
  CHECK(w.EventReasons() ==
        Strings{"SparkApplicationAdded", "SparkApplicationSubmitted", "SparkDriverPending",
                "SparkDriverRunning", "SparkExecutorPending", "SparkExecutorRunning",
                "SparkDriverCompleted", "SparkExecutorCompleted", "SparkApplicationCompleted"});
  for (const json::object& e : w.events()) {
    if (e.at("involvedObject").at("kind") != "SparkApplication") continue;
    CHECK(e.at("source").at("component") == "spark-operator");
    CHECK(e.at("involvedObject").at("apiVersion") == "sparkoperator.k8s.io/v1beta2");
  }
  CHECK(w.app().at("metadata").at("annotations").as_object().contains(kSpecHashAnnotation));
}

TEST_CASE("the first status is written at once, with driverInfo and times as null", "[kubeflow]") {
  World w(App("submission-fail"));
  w.Reconcile();
  const json::object& s = w.Status();
  CHECK(w.State() == "SUBMISSION_FAILED");
  CHECK(s.at("driverInfo").as_object().at("podName") == "spark-pi-driver");
  CHECK(s.at("terminationTime").is_null());
  CHECK_FALSE(s.contains("executionAttempts"));
  CHECK(Int(s, "submissionAttempts") == 1);
  std::string error = Str(s.at("applicationState").at("errorMessage"));
  CHECK(error.starts_with("failed to run spark-submit: Exception in thread \"main\""));
  CHECK(w.pods().empty());
}

TEST_CASE("outcomes", "[kubeflow]") {
  SECTION("fail: the driver exits 1") {
    World w(App("fail"));
    w.Run();
    CHECK(w.states() == Strings{"SUBMITTED", "RUNNING", "FAILING", "FAILED"});
    CHECK(w.Status().at("applicationState").at("errorMessage") ==
          "driver container failed with ExitCode: 1, Reason: Error");
    CHECK(w.pods().at("spark-pi-driver").at("status").at("phase") == "Failed");
    CHECK(w.Log("spark-pi-driver", "spark-kubernetes-driver").find("Exception in thread") !=
          std::string::npos);
    CHECK(w.EventReasons().back() == "SparkApplicationFailed");
    CHECK(w.Status().at("executorState").as_object().begin()->value() == "FAILED");
  }
  SECTION("submission-fail under Never: SUBMISSION_FAILED, then FAILED with terminationTime") {
    World w(App("submission-fail"));
    w.Run();
    CHECK(w.states() == Strings{"SUBMISSION_FAILED", "FAILED"});
    CHECK(Ms(w.Status(), "terminationTime") >= kStartMs);
    CHECK(w.EventReasons() == Strings{"SparkApplicationAdded", "SparkApplicationSubmissionFailed",
                                      "SparkApplicationFailed"});
  }
  SECTION("unschedulable: SUBMITTED for ever, the driver Pending") {
    World w(App("unschedulable"));
    w.Run(3600 * 1000);
    CHECK(w.states() == Strings{"SUBMITTED"});
    CHECK(w.pods().at("spark-pi-driver").at("status").at("phase") == "Pending");
    CHECK(w.PodsWithRole("executor").empty());
  }
  SECTION("hang: RUNNING until the driver is deleted") {
    World w(App("hang"));
    w.Run(3600 * 1000);
    CHECK(w.states() == Strings{"SUBMITTED", "RUNNING"});
    CHECK(w.Status().at("executorState").as_object().begin()->value() == "RUNNING");
    w.DeletePod("spark-pi-driver");
    w.Run();
    CHECK(w.states() == Strings{"SUBMITTED", "RUNNING", "FAILING", "FAILED"});
    CHECK(w.Status().at("applicationState").at("errorMessage") == "driver pod not found");
  }
  SECTION("driver-deleted: FAILING with driver pod not found, terminationTime, then FAILED") {
    World w(App("driver-deleted"));
    w.Run();
    CHECK(w.states() == Strings{"SUBMITTED", "RUNNING", "FAILING", "FAILED"});
    CHECK(w.Status().at("applicationState").at("errorMessage") == "driver pod not found");
    CHECK(Ms(w.Status(), "terminationTime") == kStartMs + 4000);
    CHECK(w.deleted_pods().contains("spark-pi-driver"));
    const Strings reasons = w.EventReasons();
    CHECK(std::find(reasons.begin(), reasons.end(), "SparkDriverNotFound") != reasons.end());
    // v2.5.2: the executors are the app's too, so they outlive their driver.
    CHECK(w.PodsWithRole("executor").size() == 1);
  }
  SECTION("durationMs and the time scale") {
    Options options;
    options.time_scale = 10;
    World w(App("", "20000"), options);
    w.Run();
    // (1.5 s + 20 s) / 10 of wall time.
    CHECK(Ms(w.Status(), "terminationTime") == kStartMs + 2000);
    CHECK(w.State() == "COMPLETED");
  }
}

TEST_CASE("a driver pod not seen within the grace period fails the app", "[kubeflow]") {
  World w(App("unschedulable"));
  w.Reconcile();
  REQUIRE(w.State() == "SUBMITTED");
  w.DeletePod("spark-pi-driver");
  w.Advance(5000);
  w.Reconcile();
  CHECK(w.State() == "SUBMITTED");  // within the 10 s grace
  w.Run();
  CHECK(w.states() == Strings{"SUBMITTED", "FAILING", "FAILED"});
  CHECK(Ms(w.Status(), "terminationTime") >= kStartMs + 10000);
  CHECK(Ms(w.Status(), "terminationTime") <= kStartMs + 11000);
}

TEST_CASE("UNKNOWN while the driver pod's phase is Unknown", "[kubeflow]") {
  World w(App("hang"));
  w.Run(60000);
  REQUIRE(w.State() == "RUNNING");
  w.SetPodPhase("spark-pi-driver", "Unknown");
  w.Reconcile();
  CHECK(w.State() == "UNKNOWN");
  CHECK(w.EventReasons().back() == "SparkDriverUnknown");
  w.SetPodPhase("spark-pi-driver", "Running");
  w.Reconcile();
  CHECK(w.State() == "RUNNING");
}

TEST_CASE("OnFailure retries failed runs with a linear backoff", "[kubeflow]") {
  json::object app = App("fail");
  SetRestart(
      app,
      json::object{{"type", "OnFailure"}, {"onFailureRetries", 2}, {"onFailureRetryInterval", 10}});
  World w(app);
  std::vector<std::string> ids;
  std::vector<int64_t> submitted_at;
  for (int i = 0; i < 3000 && w.State() != "FAILED"; ++i) {
    sim::Actions a = w.Reconcile();
    if (w.State() == "SUBMITTED" &&
        (ids.empty() || ids.back() != Str(w.Status().at("submissionID")))) {
      ids.push_back(Str(w.Status().at("submissionID")));
      submitted_at.push_back(w.now());
    }
    if (a.requeue_at_ms && *a.requeue_at_ms > w.now()) w.Advance(*a.requeue_at_ms - w.now());
  }
  REQUIRE(w.State() == "FAILED");
  CHECK(Int(w.Status(), "executionAttempts") == 3);
  REQUIRE(ids.size() == 3);
  CHECK(ids[0] != ids[1]);
  CHECK(ids[1] != ids[2]);
  // Each run fails 4.5 s after its submission; the retries wait 10 s, then 20 s (the
  // termination time has whole seconds).
  CHECK(submitted_at[1] - submitted_at[0] >= 4500 + 9000);
  CHECK(submitted_at[1] - submitted_at[0] <= 4500 + 10000 + 1000);
  CHECK(submitted_at[2] - submitted_at[1] >= 4500 + 19000);
  CHECK(submitted_at[2] - submitted_at[1] <= 4500 + 20000 + 1000);
  std::vector<std::string> states = w.states();
  CHECK(std::count(states.begin(), states.end(), "PENDING_RERUN") == 2);
  // One event per occurrence, each run's own.
  Strings reasons = w.EventReasons();
  CHECK(std::count(reasons.begin(), reasons.end(), "SparkApplicationSubmitted") == 3);
  CHECK(std::count(reasons.begin(), reasons.end(), "SparkDriverFailed") == 3);
  CHECK(std::count(reasons.begin(), reasons.end(), "SparkExecutorFailed") == 3);
  CHECK(std::count(reasons.begin(), reasons.end(), "SparkApplicationPendingRerun") == 2);
  CHECK(std::count(reasons.begin(), reasons.end(), "SparkApplicationFailed") == 1);
}

TEST_CASE("Always reruns a failed run too, after the failure backoff", "[kubeflow]") {
  json::object app = App("fail");
  SetRestart(app, json::object{{"type", "Always"}, {"onFailureRetryInterval", 7}});
  World w(app);
  w.RunUntilState("FAILING");
  int64_t failed_at = w.now();
  w.RunUntilState("PENDING_RERUN");
  CHECK(w.now() - failed_at >= 6000);
  CHECK(w.now() - failed_at <= 7000);
  w.RunUntilState("SUBMITTED");
  CHECK(Int(w.Status(), "executionAttempts") == 2);
}

TEST_CASE("OnFailure resubmits after a failed submission, then gives up", "[kubeflow]") {
  json::object app = App("submission-fail");
  SetRestart(app, json::object{{"type", "OnFailure"}, {"onSubmissionFailureRetries", 1}});
  World w(app);
  w.Reconcile();
  REQUIRE(w.State() == "SUBMISSION_FAILED");
  std::string first = Str(w.Status().at("submissionID"));
  w.Advance(4000);
  w.Reconcile();
  CHECK(Int(w.Status(), "submissionAttempts") == 1);  // 5 s × 1 not yet passed
  w.Advance(2000);
  w.Reconcile();
  CHECK(Int(w.Status(), "submissionAttempts") == 2);
  CHECK(Str(w.Status().at("submissionID")) != first);
  w.Run();
  CHECK(w.states() == Strings{"SUBMISSION_FAILED", "FAILED"});
  CHECK(Int(w.Status(), "submissionAttempts") == 2);
}

TEST_CASE("OnFailure without retries fails at once; a success is not retried", "[kubeflow]") {
  json::object app = App("fail");
  SetRestart(app, json::object{{"type", "OnFailure"}});
  World w(app);
  w.Run();
  CHECK(w.states() == Strings{"SUBMITTED", "RUNNING", "FAILING", "FAILED"});
  json::object ok = App();
  SetRestart(ok, json::object{{"type", "OnFailure"}, {"onFailureRetries", 3}});
  World w2(ok);
  w2.Run();
  CHECK(w2.State() == "COMPLETED");
}

TEST_CASE("Always reruns a finished run after its old driver is gone", "[kubeflow]") {
  json::object app = App();
  SetRestart(app, json::object{{"type", "Always"}});
  World w(app);
  w.RunUntilState("SUCCEEDING");
  std::string first = Str(w.Status().at("submissionID"));
  w.RunUntilState("PENDING_RERUN");
  CHECK(w.deleted_pods().contains("spark-pi-driver"));
  const json::object& s = w.Status();
  CHECK(Int(s, "executionAttempts") == 1);
  CHECK_FALSE(s.contains("submissionAttempts"));
  CHECK_FALSE(s.contains("sparkApplicationId"));
  CHECK(s.at("driverInfo").as_object().empty());
  w.RunUntilState("SUBMITTED");
  CHECK(Str(w.Status().at("submissionID")) != first);
  CHECK(Int(w.Status(), "executionAttempts") == 2);
  w.RunUntilState("SUCCEEDING");
  w.RunUntilState("PENDING_RERUN");
  CHECK(std::find(w.states().begin(), w.states().end(), "COMPLETED") == w.states().end());
}

TEST_CASE("PENDING_RERUN waits until the old driver pod is gone", "[kubeflow]") {
  json::object app = App();
  SetRestart(app, json::object{{"type", "Always"}});
  World w(app);
  w.RunUntilState("PENDING_RERUN");
  json::object old = w.deleted_pods().at("spark-pi-driver");
  old["metadata"].as_object()["deletionTimestamp"] = "2026-05-12T10:00:10Z";
  w.AddPod(old);  // still terminating
  for (int i = 0; i < 5; ++i) {
    sim::Actions a = w.Reconcile();
    REQUIRE(a.requeue_at_ms);
    w.Advance(*a.requeue_at_ms - w.now());
  }
  CHECK(w.State() == "PENDING_RERUN");
  w.DeletePod("spark-pi-driver");
  w.Reconcile();
  CHECK(w.State() == "SUBMITTED");
}

TEST_CASE("timeToLiveSeconds deletes a finished app that long after terminationTime",
          "[kubeflow]") {
  json::object app = App();
  Spec(app)["timeToLiveSeconds"] = 30;
  World w(app);
  w.RunUntilState("COMPLETED");
  int64_t end = Ms(w.Status(), "terminationTime");
  sim::Actions a = w.Reconcile();
  REQUIRE(a.requeue_at_ms);
  CHECK(*a.requeue_at_ms == end + 30000);
  w.Advance(*a.requeue_at_ms - w.now() - 1);
  CHECK_FALSE(w.Reconcile().delete_app);
  w.Advance(1);
  CHECK(w.Reconcile().delete_app);
}

TEST_CASE("suspend tears a run down, resume submits a new one", "[kubeflow]") {
  World w(App("hang"));
  w.Run(60000);
  REQUIRE(w.State() == "RUNNING");
  std::string first = Str(w.Status().at("submissionID"));
  Spec(w.app())["suspend"] = true;
  w.Run();
  CHECK(w.states() == Strings{"SUBMITTED", "RUNNING", "SUSPENDING", "SUSPENDED"});
  CHECK(w.deleted_pods().contains("spark-pi-driver"));
  // v2.5.2: executors owned by the app stay until it goes.
  CHECK(w.PodsWithRole("executor").size() == 1);
  Spec(w.app())["suspend"] = false;
  w.RunUntilState("RUNNING");
  CHECK(w.states() == Strings{"SUBMITTED", "RUNNING", "SUSPENDING", "SUSPENDED", "RESUMING",
                              "SUBMITTED", "RUNNING"});
  CHECK(Str(w.Status().at("submissionID")) != first);
  Strings reasons = w.EventReasons();
  for (const char* r :
       {"SparkApplicationSuspending", "SparkApplicationSuspended", "SparkApplicationResuming"}) {
    CHECK(std::count(reasons.begin(), reasons.end(), r) == 1);
  }
}

TEST_CASE("with driver-only executor ownership, suspend takes the executors too", "[kubeflow]") {
  Options options;
  options.executor_owner = ExecutorOwner::kDriverOnly;
  World w(App("hang"), options);
  w.Run(60000);
  REQUIRE(w.PodsWithRole("executor").size() == 1);
  Spec(w.app())["suspend"] = true;
  w.Run();
  CHECK(w.State() == "SUSPENDED");
  CHECK(w.PodsWithRole("executor").empty());
}

TEST_CASE("an app created suspended gets a status: SUSPENDING, SUSPENDED", "[kubeflow]") {
  json::object app = App();
  Spec(app)["suspend"] = true;
  World w(app);
  w.Run();
  CHECK(w.states() == Strings{"SUSPENDING", "SUSPENDED"});
  CHECK(w.pods().empty());
  CHECK(w.Status().contains("driverInfo"));
  Spec(w.app())["suspend"] = false;
  w.Run();
  CHECK(w.states() == Strings{"SUSPENDING", "SUSPENDED", "RESUMING", "SUBMITTED", "RUNNING",
                              "SUCCEEDING", "COMPLETED"});
}

TEST_CASE("suspend is ignored once COMPLETED or FAILED", "[kubeflow]") {
  World w(App());
  w.Run();
  REQUIRE(w.State() == "COMPLETED");
  Spec(w.app())["suspend"] = true;
  Spec(w.app())["timeToLiveSeconds"] = 3600;
  w.Run(1000);
  CHECK(w.states().back() == "COMPLETED");
  CHECK(w.pods().contains("spark-pi-driver"));
}

TEST_CASE("a spec change invalidates, resets the status and reruns, even when COMPLETED",
          "[kubeflow]") {
  World w(App());
  w.Run();
  REQUIRE(w.State() == "COMPLETED");
  std::string first = Str(w.Status().at("submissionID"));
  // Metadata changes are not spec changes.
  w.app()["metadata"].as_object()["labels"] = json::object{{"team", "a"}};
  w.Run(1000);
  CHECK(w.states().back() == "COMPLETED");
  Spec(w.app())["arguments"] = json::array{"10"};
  w.RunUntilState("INVALIDATING");
  w.RunUntilState("PENDING_RERUN");
  CHECK(w.deleted_pods().contains("spark-pi-driver"));
  const json::object& s = w.Status();
  CHECK_FALSE(s.contains("executionAttempts"));
  CHECK_FALSE(s.contains("submissionAttempts"));
  CHECK(s.at("terminationTime").is_null());
  CHECK(s.at("lastSubmissionAttemptTime").is_null());
  w.Run();
  CHECK(w.State() == "COMPLETED");
  CHECK(Int(w.Status(), "executionAttempts") == 1);
  CHECK(Str(w.Status().at("submissionID")) != first);
  Strings states = w.states();
  CHECK(Strings(states.end() - 6, states.end()) == Strings{"INVALIDATING", "PENDING_RERUN",
                                                           "SUBMITTED", "RUNNING", "SUCCEEDING",
                                                           "COMPLETED"});
  // The new pod carries the new arguments.
  CHECK(w.pods()
            .at("spark-pi-driver")
            .at("spec")
            .at("containers")
            .at(0)
            .at("args")
            .as_array()
            .back() == "10");
}

TEST_CASE("a running app's spec change kills the run", "[kubeflow]") {
  World w(App("hang"));
  w.Run(60000);
  REQUIRE(w.State() == "RUNNING");
  SetConf(w.app(), "kubesim.outcome", "succeed");
  w.Run();
  CHECK(w.State() == "COMPLETED");
  CHECK(std::find(w.states().begin(), w.states().end(), "INVALIDATING") != w.states().end());
}

TEST_CASE("a deleted app: the operator deletes the driver, writes no status", "[kubeflow]") {
  World w(App("hang"));
  w.Run(60000);
  REQUIRE(w.State() == "RUNNING");
  w.MarkDeleted();
  sim::Actions a = w.Reconcile();
  CHECK_FALSE(a.status);
  CHECK(a.delete_pods == Strings{"spark-pi-driver"});
  CHECK(a.events.empty());
}

TEST_CASE("an app deleted before its first pass gets no status", "[kubeflow]") {
  World w(App());
  w.MarkDeleted();
  sim::Actions a = w.Reconcile();
  CHECK_FALSE(a.status);
  CHECK(a.create_pods.empty());
  CHECK(a.events.empty());
}

TEST_CASE("a call before anything is due changes nothing", "[kubeflow]") {
  World w(App("hang"));
  w.Run(60000);
  REQUIRE(w.State() == "RUNNING");
  sim::Actions a = w.Reconcile();
  CHECK_FALSE(a.status);
  CHECK(a.create_pods.empty());
  CHECK(a.pod_status.empty());
  CHECK(a.events.empty());
}

}  // namespace
}  // namespace kubesim::kubeflow::testing
