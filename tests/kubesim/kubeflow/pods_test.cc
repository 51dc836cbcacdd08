// The pods of a run: names, containers, labels, annotations and owners of the driver and the
// executors, in both executor-ownership modes, and what the driver does with its executors.

#include <regex>

#include "tests/kubesim/kubeflow/world.h"

namespace kubesim::kubeflow::testing {
namespace {

const json::object& Labels(const json::object& pod) {
  return pod.at("metadata").at("labels").as_object();
}
const json::array& Owners(const json::object& pod) {
  return pod.at("metadata").at("ownerReferences").as_array();
}

json::object LabelledApp() {
  json::object app = ExampleApp();
  app["metadata"].as_object()["labels"] =
      json::object{{"team", "data"}, {"kueue.x-k8s.io/queue-name", "q"}};
  Spec(app)["driver"].as_object()["annotations"] = json::object{{"note", "d"}};
  Spec(app)["executor"].as_object()["instances"] = 2;
  SetConf(app, "kubesim.outcome", "hang");
  return app;
}

TEST_CASE("the driver pod: name, container, labels, annotations, owner, service account",
          "[kubeflow][pods]") {
  World w(LabelledApp());
  w.Run(60000);
  REQUIRE(w.State() == "RUNNING");
  const json::object& d = w.pods().at("spark-pi-driver");
  const json::object& l = Labels(d);
  CHECK(l.at("sparkoperator.k8s.io/app-name") == "spark-pi");
  CHECK(l.at("sparkoperator.k8s.io/launched-by-spark-operator") == "true");
  CHECK(l.at("sparkoperator.k8s.io/submission-id") == w.Status().at("submissionID"));
  CHECK(l.at("spark-role") == "driver");
  CHECK(l.at("spark-app-selector") == w.Status().at("sparkApplicationId"));
  CHECK(l.at("team") == "data");
  CHECK(l.at("version") == "4.0.0");  // spec.driver.labels
  CHECK_FALSE(l.contains("kueue.x-k8s.io/queue-name"));
  CHECK(d.at("metadata").at("annotations").at("note") == "d");
  REQUIRE(Owners(d).size() == 1);
  CHECK(Owners(d)[0] == json::parse(R"({"apiVersion":"sparkoperator.k8s.io/v1beta2",
      "kind":"SparkApplication","name":"spark-pi","uid":"5a1e7c3e-0000-4000-8000-000000000001",
      "controller":true,"blockOwnerDeletion":true})"));
  const json::object& spec = d.at("spec").as_object();
  CHECK(spec.at("serviceAccountName") == "spark-operator-spark");
  CHECK(spec.at("containers").at(0).at("name") == "spark-kubernetes-driver");
  CHECK(spec.at("containers").at(0).at("image") == "docker.io/apache/spark:4.0.4");
  CHECK(spec.at("containers").at(0).at("resources").at("requests").at("memory") == "896Mi");
}

TEST_CASE("the driver pod's name: spec.driver.podName, then the sparkConf, then <app>-driver",
          "[kubeflow][pods]") {
  json::object app = ExampleApp();
  SetConf(app, "spark.kubernetes.driver.pod.name", "from-conf");
  World w(app);
  w.Reconcile();
  CHECK(w.pods().contains("from-conf"));
  CHECK(w.Status().at("driverInfo").at("podName") == "from-conf");
  json::object app2 = ExampleApp();
  Spec(app2)["driver"].as_object()["podName"] = "named";
  World w2(app2);
  w2.Reconcile();
  CHECK(w2.pods().contains("named"));
}

TEST_CASE("executor pods, owned by the driver and (v2.5.2) the app", "[kubeflow][pods]") {
  World w(LabelledApp());
  w.Run(60000);
  std::vector<std::string> execs = w.PodsWithRole("executor");
  REQUIRE(execs.size() == 2);
  std::regex name(R"(spark-pi-[0-9a-f]{16}-exec-[12])");
  for (const std::string& e : execs) {
    CHECK(std::regex_match(e, name));
    const json::object& pod = w.pods().at(e);
    const json::object& l = Labels(pod);
    CHECK(l.at("spark-role") == "executor");
    CHECK(l.at("sparkoperator.k8s.io/app-name") == "spark-pi");
    CHECK(l.at("sparkoperator.k8s.io/submission-id") == w.Status().at("submissionID"));
    CHECK(l.at("team") == "data");
    CHECK(l.at("version") == "4.0.0");  // spec.executor.labels
    CHECK((l.at("spark-exec-id") == "1" || l.at("spark-exec-id") == "2"));
    CHECK(pod.at("spec").at("containers").at(0).at("name") == "spark-kubernetes-executor");
    CHECK(pod.at("status").at("phase") == "Running");
    REQUIRE(Owners(pod).size() == 2);
    CHECK(Owners(pod)[0].at("kind") == "Pod");
    CHECK(Owners(pod)[0].at("name") == "spark-pi-driver");
    CHECK(Owners(pod)[0].at("controller") == true);
    CHECK(Owners(pod)[1].at("kind") == "SparkApplication");
    CHECK(Owners(pod)[1].at("controller") == false);
    CHECK(w.Status().at("executorState").at(e) == "RUNNING");
  }
  // Deleting only the driver leaves them (the app still owns them).
  w.DeletePod("spark-pi-driver");
  CHECK(w.PodsWithRole("executor").size() == 2);
}

TEST_CASE("driver-only ownership: executors go with their driver", "[kubeflow][pods]") {
  Options options;
  options.executor_owner = ExecutorOwner::kDriverOnly;
  World w(LabelledApp(), options);
  w.Run(60000);
  std::vector<std::string> execs = w.PodsWithRole("executor");
  REQUIRE(execs.size() == 2);
  REQUIRE(Owners(w.pods().at(execs[0])).size() == 1);
  CHECK(Owners(w.pods().at(execs[0]))[0].at("kind") == "Pod");
  w.DeletePod("spark-pi-driver");
  CHECK(w.PodsWithRole("executor").empty());
  w.Run();
  CHECK(w.State() == "FAILED");
  CHECK(w.Status().at("executorState").at(execs[0]) == "FAILED");
}

TEST_CASE("deleteOnTermination false: the executors stay, terminated", "[kubeflow][pods]") {
  json::object app = ExampleApp();
  Spec(app)["executor"].as_object()["deleteOnTermination"] = false;
  World w(app);
  w.Run();
  REQUIRE(w.State() == "COMPLETED");
  std::vector<std::string> execs = w.PodsWithRole("executor");
  REQUIRE(execs.size() == 1);
  CHECK(w.pods().at(execs[0]).at("status").at("phase") == "Succeeded");
  CHECK(w.Status().at("executorState").at(execs[0]) == "COMPLETED");
}

TEST_CASE("deleteOnTermination in sparkConf holds unless the spec sets it", "[kubeflow][pods]") {
  for (const bool spec_set : {false, true}) {
    INFO(spec_set);
    json::object app = ExampleApp();
    json::value& conf = Spec(app)["sparkConf"];
    if (!conf.is_object()) conf.emplace_object();
    conf.as_object()["spark.kubernetes.executor.deleteOnTermination"] = "False";
    if (spec_set) Spec(app)["executor"].as_object()["deleteOnTermination"] = true;
    World w(app);
    w.Run();
    REQUIRE(w.State() == "COMPLETED");
    CHECK(w.PodsWithRole("executor").size() == (spec_set ? 0U : 1U));
  }
}

TEST_CASE("a Python app's driver prints PythonPi's line", "[kubeflow][pods]") {
  World w(ExampleApp("spark-pi-python.yaml"));
  w.Run();
  REQUIRE(w.State() == "COMPLETED");
  std::string driver(w.Status().at("driverInfo").at("podName").as_string());
  std::string log = w.Log(driver, "spark-kubernetes-driver");
  CHECK(std::regex_search(log, std::regex(R"(\nPi is roughly 3\.14\d{4}\n)")));
}

}  // namespace
}  // namespace kubesim::kubeflow::testing
