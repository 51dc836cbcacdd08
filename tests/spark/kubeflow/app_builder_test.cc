#include "spark/kubeflow/app_builder.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "rapidjson/document.h"
#include "spark/job_template.h"

namespace kje::spark::kubeflow {
namespace {

BuilderOptions Options() {
  BuilderOptions options;
  options.cluster = "prod";
  options.namespace_ = "spark-jobs";
  options.image = "apache/spark:3.5.6";
  options.spark_version = "3.5.6";
  options.ttl_after_stop_ms = 86400500;  // rounds up to 86401 s
  return options;
}

SparkTemplate PiTemplate() {
  SparkTemplate t;
  t.name = "spark-pi";
  t.executable = "local:///opt/spark/examples/jars/spark-examples.jar";
  t.class_name = "org.apache.spark.examples.SparkPi";
  t.arguments = {"100", "--verbose"};
  return t;
}

rapidjson::Document Parse(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.c_str());
  REQUIRE_FALSE(document.HasParseError());
  return document;
}

absl::StatusOr<BuiltApplication> Build(const SparkTemplate& t, const BuilderOptions& o = Options(),
                                       std::string_view job_id = "688822913391439376") {
  return kubeflow::BuildSparkApplication(job_id, "metalake_1", t, o);
}

std::string ErrorOf(const absl::StatusOr<BuiltApplication>& built) {
  REQUIRE_FALSE(built.ok());
  return std::string(built.status().message());
}

TEST_CASE("the v1beta2 SparkApplication of a template, field for field", "[kubeflow]") {
  SparkTemplate t = PiTemplate();
  t.jars = {"https://repo/lib.jar"};
  t.files = {"s3a://b/conf.json"};
  t.configs = {{"spark.jars", "hdfs://nn/first.jar, ,hdfs://nn/second.jar"},
               {"spark.executor.instances", " 3 "},
               {"spark.driver.memory", "2g"},
               {"spark.executor.cores", "2"},
               {"spark.sql.shuffle.partitions", "64"},
               {"spark.master", "k8s://https://kubernetes.default.svc"},
               {"spark.submit.deployMode", "cluster"},
               {"spark.eventLog.enabled", "  "}};
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.ok());
  CHECK(built->namespace_ == "spark-jobs");
  CHECK(built->name == "gravitino-job-688822913391439376");
  CHECK(built->execution_id.ToString() ==
        "prod/sparkapp/spark-jobs/gravitino-job-688822913391439376");
  rapidjson::Document expected = Parse(R"({
    "apiVersion": "sparkoperator.k8s.io/v1beta2",
    "kind": "SparkApplication",
    "metadata": {
      "name": "gravitino-job-688822913391439376",
      "namespace": "spark-jobs",
      "labels": {
        "app.kubernetes.io/managed-by": "gravitino",
        "gravitino.apache.org/job-id": "688822913391439376"
      },
      "annotations": {"gravitino.apache.org/metalake": "metalake_1"}
    },
    "spec": {
      "type": "Java",
      "mode": "cluster",
      "sparkVersion": "3.5.6",
      "image": "apache/spark:3.5.6",
      "mainApplicationFile": "local:///opt/spark/examples/jars/spark-examples.jar",
      "mainClass": "org.apache.spark.examples.SparkPi",
      "arguments": ["100", "--verbose"],
      "deps": {
        "jars": ["hdfs://nn/first.jar", "hdfs://nn/second.jar", "https://repo/lib.jar"],
        "files": ["s3a://b/conf.json"]
      },
      "sparkConf": {"spark.sql.shuffle.partitions": "64"},
      "restartPolicy": {"type": "Never"},
      "driver": {"serviceAccount": "spark", "memory": "2g"},
      "executor": {"serviceAccount": "spark", "cores": 2, "instances": 3},
      "timeToLiveSeconds": 86401
    }
  })");
  rapidjson::Document actual = Parse(built->json);
  CHECK(actual == expected);
}

TEST_CASE("the application type follows the executable", "[kubeflow]") {
  SparkTemplate python = PiTemplate();
  python.executable = "https://repo/jobs/etl.py?sig=abc";
  python.class_name = "";
  absl::StatusOr<BuiltApplication> built = Build(python);
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK(std::string(app["spec"]["type"].GetString()) == "Python");
  CHECK_FALSE(app["spec"].HasMember("mainClass"));
  SparkTemplate r = PiTemplate();
  r.executable = "local:///opt/jobs/report.R";
  built = Build(r);
  REQUIRE(built.ok());
  CHECK(std::string(Parse(built->json)["spec"]["type"].GetString()) == "R");
}

TEST_CASE("what the operator's webhook refuses is refused first, naming key and source",
          "[kubeflow]") {
  for (const char* key :
       {"spark.kubernetes.driver.master", "spark.kubernetes.container.image",
        "spark.kubernetes.driver.container.image", "spark.kubernetes.executor.container.image",
        "spark.kubernetes.authenticate.driver.serviceAccountName",
        "spark.kubernetes.authenticate.oauthToken"}) {
    INFO(key);
    CHECK(IsDeniedConfKey(key));
    SparkTemplate t = PiTemplate();
    t.configs = {{key, "x"}};
    std::string error = ErrorOf(Build(t));
    CHECK(absl::StrContains(error, key));
    CHECK(absl::StrContains(error, "job template \"spark-pi\""));
    CHECK(absl::StrContains(error, "Kubeflow Spark operator"));
    CHECK(Build(t).status().code() == absl::StatusCode::kInvalidArgument);
    BuilderOptions options = Options();
    options.conf = {{key, "x"}};
    CHECK(absl::StrContains(ErrorOf(Build(PiTemplate(), options)), "the executor's defaults"));
  }
  CHECK_FALSE(IsDeniedConfKey("spark.kubernetes.driver.label.team"));
  CHECK_FALSE(IsDeniedConfKey("spark.kubernetes.container.image.pullPolicy"));
  // A blank value is unset, as everywhere: nothing to refuse.
  SparkTemplate blank = PiTemplate();
  blank.configs = {{"spark.kubernetes.container.image", " "}};
  CHECK(Build(blank).ok());
}

TEST_CASE("the namespace comes from spark.kubernetes.namespace and stays out of sparkConf",
          "[kubeflow]") {
  SparkTemplate t = PiTemplate();
  t.configs = {{"spark.kubernetes.namespace", "team-a"}};
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.ok());
  CHECK(built->namespace_ == "team-a");
  rapidjson::Document app = Parse(built->json);
  CHECK(std::string(app["metadata"]["namespace"].GetString()) == "team-a");
  CHECK_FALSE(app["spec"]["sparkConf"].HasMember("spark.kubernetes.namespace"));
}

TEST_CASE("cores and instances must be whole numbers the CRD holds", "[kubeflow]") {
  for (const char* value : {"0", "-1", "1.5", "two", "2147483648", ""}) {
    SparkTemplate t = PiTemplate();
    t.configs = {{"spark.executor.instances", value}};
    if (std::string(value).empty()) {
      CHECK(Build(t).ok());  // blank: unset
      continue;
    }
    INFO(value);
    std::string error = ErrorOf(Build(t));
    CHECK(absl::StrContains(error, "spark.executor.instances of job template \"spark-pi\""));
    CHECK(absl::StrContains(error, "whole number from 1 to 2147483647"));
  }
  SparkTemplate t = PiTemplate();
  t.configs = {{"spark.driver.cores", "2147483647"}};
  CHECK(Build(t).ok());
}

TEST_CASE("the shared submit rules hold on this backend too", "[kubeflow]") {
  SparkTemplate client = PiTemplate();
  client.configs = {{"spark.submit.deployMode", "client"}};
  CHECK(absl::StrContains(ErrorOf(Build(client)), "cluster mode only"));
  SparkTemplate yarn = PiTemplate();
  yarn.configs = {{"spark.master", "yarn"}};
  CHECK(absl::StrContains(ErrorOf(Build(yarn)), "isn't a k8s:// master"));
  SparkTemplate shell = PiTemplate();
  shell.is_shell = true;
  CHECK(absl::StrContains(ErrorOf(Build(shell)), "SHELL"));
  SparkTemplate local = PiTemplate();
  local.executable = "/opt/jobs/app.jar";
  CHECK(absl::StrContains(ErrorOf(Build(local)), "path on the Gravitino server"));
  CHECK_FALSE(Build(PiTemplate(), Options(), "Not_A_Label").ok());
  BuilderOptions small = Options();
  small.max_application_bytes = 200;
  CHECK(absl::StrContains(ErrorOf(Build(PiTemplate(), small)), "bytes of an object in etcd"));
}

}  // namespace
}  // namespace kje::spark::kubeflow
