#include "spark/kubeflow/app_builder.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>

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
      "driver": {
        "serviceAccount": "spark",
        "template": {"spec": {"containers": [{"name": "spark-kubernetes-driver",
            "terminationMessagePolicy": "FallbackToLogsOnError"}]}},
        "memory": "2g"
      },
      "executor": {"serviceAccount": "spark", "cores": 2, "instances": 3},
      "timeToLiveSeconds": 86401
    }
  })");
  rapidjson::Document actual = Parse(built->json);
  // The template's hashes (tests/spark/template_hash_test.cc) ride along as one annotation.
  rapidjson::Value& annotations = actual["metadata"]["annotations"];
  REQUIRE(annotations.HasMember("gravitino.apache.org/template-hash"));
  CHECK(annotations["gravitino.apache.org/template-hash"].GetString() == built->template_hash);
  CHECK(built->template_hash.starts_with("v1;executable:"));
  annotations.RemoveMember("gravitino.apache.org/template-hash");
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

BuilderOptions QueueOptions(QueueScheduler scheduler, std::string queue) {
  BuilderOptions options = Options();
  options.queue_scheduler = scheduler;
  options.queue_name = std::move(queue);
  return options;
}

std::string Text(const rapidjson::Value& v) {
  REQUIRE(v.IsString());
  return std::string(v.GetString(), v.GetStringLength());
}

TEST_CASE("queues: YuniKorn and Volcano are the batch scheduler with its queue", "[kubeflow]") {
  for (auto [scheduler, queue] : {std::pair{QueueScheduler::kYuniKorn, "root.analytics"},
                                  std::pair{QueueScheduler::kVolcano, "gpu"}}) {
    absl::StatusOr<BuiltApplication> built = Build(PiTemplate(), QueueOptions(scheduler, queue));
    REQUIRE(built.ok());
    rapidjson::Document app = Parse(built->json);
    CHECK(Text(app["spec"]["batchScheduler"]) == std::string(QueueSchedulerName(scheduler)));
    CHECK(Text(app["spec"]["batchSchedulerOptions"]["queue"]) == queue);
    CHECK_FALSE(app["metadata"]["labels"].HasMember("kueue.x-k8s.io/queue-name"));
    CHECK_FALSE(app["spec"]["driver"].HasMember("coreRequest"));
    built = Build(PiTemplate(), QueueOptions(scheduler, ""));
    REQUIRE(built.ok());
    app = Parse(built->json);
    CHECK(Text(app["spec"]["batchScheduler"]) == std::string(QueueSchedulerName(scheduler)));
    CHECK_FALSE(app["spec"].HasMember("batchSchedulerOptions"));
  }
  absl::StatusOr<BuiltApplication> plain = Build(PiTemplate());
  REQUIRE(plain.ok());
  rapidjson::Document app = Parse(plain->json);
  CHECK_FALSE(app["spec"].HasMember("batchScheduler"));
  CHECK_FALSE(app["spec"]["executor"].HasMember("memoryOverhead"));
}

TEST_CASE("queues: under Kueue every pod size is written, Spark's defaults included",
          "[kubeflow]") {
  absl::StatusOr<BuiltApplication> built =
      Build(PiTemplate(), QueueOptions(QueueScheduler::kKueue, "team-a"));
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK(Text(app["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]) == "team-a");
  CHECK_FALSE(app["spec"].HasMember("suspend"));
  CHECK_FALSE(app["spec"].HasMember("batchScheduler"));
  for (const char* role : {"driver", "executor"}) {
    INFO(role);
    const rapidjson::Value& pod = app["spec"][role];
    CHECK(pod["cores"].GetInt() == 1);
    CHECK(Text(pod["coreRequest"]) == "1");
    CHECK(Text(pod["memory"]) == "1024m");
    CHECK(Text(pod["memoryOverhead"]) == "384m");
  }
  CHECK(app["spec"]["executor"]["instances"].GetInt() == 2);

  // The conf's sizes, its core request and explicit overhead, each reaching Spark once.
  SparkTemplate sized = PiTemplate();
  sized.executable = "https://repo/jobs/etl.py";
  sized.class_name.clear();
  sized.configs = {{"spark.driver.memory", "2g"},
                   {"spark.executor.memory", "8g"},
                   {"spark.executor.cores", "4"},
                   {"spark.executor.instances", "5"},
                   {"spark.kubernetes.executor.request.cores", "3500m"},
                   {"spark.executor.memoryOverhead", "1g"}};
  built = Build(sized, QueueOptions(QueueScheduler::kKueue, "team-a"));
  REQUIRE(built.ok());
  app = Parse(built->json);
  const rapidjson::Value& driver = app["spec"]["driver"];
  const rapidjson::Value& executor = app["spec"]["executor"];
  CHECK(Text(driver["memory"]) == "2g");
  CHECK(Text(driver["memoryOverhead"]) == "819m");  // a Python job: 40% of 2048 MiB
  CHECK(Text(driver["coreRequest"]) == "1");
  CHECK(executor["cores"].GetInt() == 4);
  CHECK(Text(executor["coreRequest"]) == "3500m");
  CHECK(Text(executor["memory"]) == "8g");
  CHECK(Text(executor["memoryOverhead"]) == "1024m");
  CHECK(executor["instances"].GetInt() == 5);
  const rapidjson::Value& conf = app["spec"]["sparkConf"];
  CHECK_FALSE(conf.HasMember("spark.kubernetes.executor.request.cores"));
  CHECK_FALSE(conf.HasMember("spark.executor.memoryOverhead"));
}

TEST_CASE("queues: Kueue refuses dynamic allocation and sizes Spark can't read", "[kubeflow]") {
  SparkTemplate dynamic = PiTemplate();
  dynamic.configs = {{"spark.dynamicAllocation.enabled", "true"},
                     {"spark.dynamicAllocation.maxExecutors", "8"}};
  CHECK(ErrorOf(Build(dynamic, QueueOptions(QueueScheduler::kKueue, "team-a"))) ==
        "spark.dynamicAllocation.enabled=true of job template \"spark-pi\" can't be used with "
        "the Kueue queue \"team-a\" on the Kubeflow Spark operator: Kueue reserves a fixed set of "
        "pods for the job, so its executors must be static (set spark.executor.instances "
        "instead)");
  CHECK(Build(dynamic, QueueOptions(QueueScheduler::kYuniKorn, "root.a")).ok());
  CHECK(Build(dynamic, QueueOptions(QueueScheduler::kKueue, "")).ok());
  SparkTemplate bad = PiTemplate();
  bad.configs = {{"spark.executor.memory", "1.5g"}};
  CHECK(
      absl::StartsWith(ErrorOf(Build(bad, QueueOptions(QueueScheduler::kKueue, "team-a"))),
                       "spark.executor.memory of job template \"spark-pi\" must be a whole size"));
}

TEST_CASE("OnFailure becomes spec.restartPolicy with both retries; Never stays the default",
          "[kubeflow]") {
  absl::StatusOr<BuiltApplication> never = Build(PiTemplate());
  REQUIRE(never.ok());
  const rapidjson::Document never_app = Parse(never->json);
  CHECK(never_app["spec"]["restartPolicy"] == Parse(R"({"type":"Never"})"));

  SparkTemplate t = PiTemplate();
  t.custom_fields = {{"restartPolicy", "OnFailure"},
                     {"onFailureRetries", "2"},
                     {"onFailureRetryIntervalSeconds", "15"},
                     {"onSubmissionFailureRetries", "1"}};
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.ok());
  const rapidjson::Document app = Parse(built->json);
  CHECK(app["spec"]["restartPolicy"] == Parse(R"({"type":"OnFailure","onFailureRetries":2,
      "onFailureRetryInterval":15,"onSubmissionFailureRetries":1,
      "onSubmissionFailureRetryInterval":5})"));
  t.custom_fields = {{"onFailureRetries", "2"}};
  absl::StatusOr<BuiltApplication> misplaced = Build(t);
  REQUIRE_FALSE(misplaced.ok());
  CHECK(misplaced.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ErrorOf(misplaced).find("onFailureRetries") != std::string::npos);
}

TEST_CASE("monitoring becomes spec.monitoring with the JMX exporter agent", "[kubeflow]") {
  absl::StatusOr<BuiltApplication> off = Build(PiTemplate());
  REQUIRE(off.ok());
  CHECK_FALSE(Parse(off->json)["spec"].HasMember("monitoring"));

  BuilderOptions options = Options();
  options.monitoring.driver = true;
  options.monitoring.executor = true;
  options.monitoring.jmx_exporter_jar = "/prometheus/jmx_prometheus_javaagent.jar";
  options.monitoring.port = 8091;
  absl::StatusOr<BuiltApplication> built = Build(PiTemplate(), options);
  REQUIRE(built.ok());
  CHECK(Parse(built->json)["spec"]["monitoring"] ==
        Parse(R"({"exposeDriverMetrics":true,"exposeExecutorMetrics":true,
          "prometheus":{"jmxExporterJar":"/prometheus/jmx_prometheus_javaagent.jar","port":8091}})"));

  SparkTemplate t = PiTemplate();
  t.custom_fields = {{"monitoring", "driver"}};
  absl::StatusOr<BuiltApplication> driver_only = Build(t, options);
  REQUIRE(driver_only.ok());
  CHECK_FALSE(Parse(driver_only->json)["spec"]["monitoring"]["exposeExecutorMetrics"].GetBool());

  // Exposing metrics needs the agent's jar: the deployment's to fix, not the caller's.
  options.monitoring.jmx_exporter_jar.clear();
  absl::StatusOr<BuiltApplication> no_jar = Build(t, options);
  REQUIRE_FALSE(no_jar.ok());
  CHECK(no_jar.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(ErrorOf(no_jar).find("monitoring.jmxExporterJar") != std::string::npos);
}

}  // namespace
}  // namespace kje::spark::kubeflow
