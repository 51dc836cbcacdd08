#include "spark/apache/app_builder.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "rapidjson/document.h"

namespace kje::spark {
namespace {

using apache::BuildSparkApplication;

BuilderOptions Options() {
  BuilderOptions options;
  options.cluster = "prod";
  options.namespace_ = "spark-jobs";
  options.image = "apache/spark:3.5.6";
  options.spark_version = "3.5.6";
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

std::string Str(const rapidjson::Value& v) {
  REQUIRE(v.IsString());
  return std::string(v.GetString(), v.GetStringLength());
}

const rapidjson::Value& Conf(const rapidjson::Document& app) { return app["spec"]["sparkConf"]; }

bool HasConf(const rapidjson::Document& app, const char* key) { return Conf(app).HasMember(key); }

std::string ConfValue(const rapidjson::Document& app, const char* key) {
  REQUIRE(HasConf(app, key));
  return Str(Conf(app)[key]);
}

absl::StatusOr<BuiltApplication> Build(const SparkTemplate& t, const BuilderOptions& o = Options(),
                                       std::string_view job_id = "688822913391439376") {
  return BuildSparkApplication(job_id, "metalake_1", t, o);
}

std::string ErrorOf(const absl::StatusOr<BuiltApplication>& built) {
  REQUIRE_FALSE(built.ok());
  return std::string(built.status().message());
}

TEST_CASE("The SparkApplication equals the Java executor's - field for field") {
  absl::StatusOr<BuiltApplication> built = Build(PiTemplate());
  REQUIRE(built.ok());
  // One addition to the Java executor's: the driver's template asks for its last words
  // (spark/last_words.h).
  rapidjson::Document expected = Parse(R"({
    "apiVersion": "spark.apache.org/v1",
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
      "mainClass": "org.apache.spark.examples.SparkPi",
      "jars": "local:///opt/spark/examples/jars/spark-examples.jar",
      "driverArgs": ["100", "--verbose"],
      "sparkConf": {
        "spark.kubernetes.authenticate.driver.serviceAccountName": "spark",
        "spark.kubernetes.container.image": "apache/spark:3.5.6",
        "spark.kubernetes.namespace": "spark-jobs"
      },
      "runtimeVersions": {"sparkVersion": "3.5.6"},
      "driverSpec": {"podTemplateSpec": {"spec": {"containers": [{
          "name": "spark-kubernetes-driver",
          "terminationMessagePolicy": "FallbackToLogsOnError"}]}}},
      "applicationTolerations": {
        "restartConfig": {"restartPolicy": "Never"},
        "applicationTimeoutConfig": {
          "driverStartTimeoutMillis": 3600000,
          "driverReadyTimeoutMillis": 3600000
        },
        "resourceRetainPolicy": "Always",
        "resourceRetainDurationMillis": 86400000,
        "ttlAfterStopMillis": 604800000
      }
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
  CHECK(built->namespace_ == "spark-jobs");
  CHECK(built->name == "gravitino-job-688822913391439376");
  CHECK(built->execution_id.ToString() ==
        "prod/sparkapp/spark-jobs/gravitino-job-688822913391439376");
  // The labels it reports are the ones it wrote (a schedule copies them).
  const std::map<std::string, std::string> labels = {
      {"app.kubernetes.io/managed-by", "gravitino"},
      {"gravitino.apache.org/job-id", "688822913391439376"}};
  CHECK(built->labels == labels);
}

TEST_CASE("Options reach the tolerations - image - service account and runtime version") {
  BuilderOptions o = Options();
  o.name_prefix = "gj";
  o.service_account = "jobs-sa";
  o.spark_version = "3.5.1";
  o.resource_retain_duration_ms = 11;
  o.ttl_after_stop_ms = 22;
  o.driver_start_timeout_ms = 33;
  o.driver_ready_timeout_ms = 44;
  absl::StatusOr<BuiltApplication> built = Build(PiTemplate(), o, "5");
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK(Str(app["metadata"]["name"]) == "gj-5");
  CHECK(Str(app["spec"]["runtimeVersions"]["sparkVersion"]) == "3.5.1");
  const rapidjson::Value& tolerations = app["spec"]["applicationTolerations"];
  CHECK(tolerations["resourceRetainDurationMillis"].GetInt64() == 11);
  CHECK(tolerations["ttlAfterStopMillis"].GetInt64() == 22);
  CHECK(tolerations["applicationTimeoutConfig"]["driverStartTimeoutMillis"].GetInt64() == 33);
  CHECK(tolerations["applicationTimeoutConfig"]["driverReadyTimeoutMillis"].GetInt64() == 44);
  CHECK(ConfValue(app, "spark.kubernetes.authenticate.driver.serviceAccountName") == "jobs-sa");
}

TEST_CASE("The same inputs build the same JSON") {
  SparkTemplate t = PiTemplate();
  t.configs = {{"b", "2"}, {"a", "1"}};
  absl::StatusOr<BuiltApplication> one = Build(t);
  absl::StatusOr<BuiltApplication> two = Build(t);
  REQUIRE(one.ok());
  REQUIRE(two.ok());
  CHECK(one->json == two->json);
}

TEST_CASE("mainClass is set only when not blank") {
  SparkTemplate t = PiTemplate();
  t.class_name = "  ";
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.ok());
  CHECK_FALSE(Parse(built->json)["spec"].HasMember("mainClass"));
  t.class_name = "";
  built = Build(t);
  REQUIRE(built.ok());
  CHECK_FALSE(Parse(built->json)["spec"].HasMember("mainClass"));
}

TEST_CASE("No arguments give an empty driverArgs list") {
  SparkTemplate t = PiTemplate();
  t.arguments.clear();
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  REQUIRE(app["spec"]["driverArgs"].IsArray());
  CHECK(app["spec"]["driverArgs"].Size() == 0);
}

TEST_CASE("A Python executable - by its URI path - goes to pyFiles") {
  struct Case {
    const char* uri;
    bool python;
  };
  auto c = GENERATE(
      Case{"https://repo/job.PY?sig=abc", true}, Case{"https://repo/app.jar?name=job.py", false},
      Case{"https://repo/app.jar#job.py", false}, Case{"local:///opt/jobs/etl.py", true},
      Case{"local:///opt/jobs/etl.py#frag.jar", true}, Case{"s3a://bucket/dir/job.py", true},
      Case{"hdfs://nn:8020/jobs/job.Py?x=1#y", true}, Case{"https://repo/job%2Epy", true},
      Case{"https://repo/job.pyc", false}, Case{"https://repo.py", false},
      Case{"local:///opt/jobs/etl.py.jar", false});
  INFO(c.uri);
  CHECK(IsPythonResource(c.uri) == c.python);
  SparkTemplate t = PiTemplate();
  t.executable = c.uri;
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  const rapidjson::Value& spec = app["spec"];
  CHECK(spec.HasMember("pyFiles") == c.python);
  CHECK(spec.HasMember("jars") == !c.python);
  CHECK(Str(spec[c.python ? "pyFiles" : "jars"]) == c.uri);
}

TEST_CASE("Template configs override server defaults: sorted keys") {
  BuilderOptions o = Options();
  o.conf = {{"spark.executor.instances", "2"}, {"spark.driver.memory", "1g"}};
  SparkTemplate t = PiTemplate();
  t.configs = {{"spark.executor.instances", "4"}, {"spark.sql.shuffle.partitions", "8"}};
  absl::StatusOr<BuiltApplication> built = Build(t, o);
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK(ConfValue(app, "spark.executor.instances") == "4");
  CHECK(ConfValue(app, "spark.driver.memory") == "1g");
  CHECK(ConfValue(app, "spark.sql.shuffle.partitions") == "8");
  std::string previous;
  for (const auto& member : Conf(app).GetObject()) {
    std::string key = member.name.GetString();
    CHECK(previous < key);
    previous = key;
  }
}

TEST_CASE("A k8s:// master and cluster deploy mode are left to the operator") {
  BuilderOptions o = Options();
  o.conf = {{"spark.master", "k8s://https://x"}, {"spark.submit.deployMode", "cluster"}};
  SparkTemplate t = PiTemplate();
  t.configs = {{"spark.master", " k8s://https://kubernetes.default.svc "}};
  absl::StatusOr<BuiltApplication> built = Build(t, o);
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK_FALSE(HasConf(app, "spark.master"));
  CHECK_FALSE(HasConf(app, "spark.submit.deployMode"));
}

TEST_CASE("Client deploy mode is refused - naming the key and its source") {
  SparkTemplate t = PiTemplate();
  t.configs = {{"spark.submit.deployMode", "client"}};
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(ErrorOf(built), Catch::Contains("spark.submit.deployMode=client"));
  CHECK_THAT(ErrorOf(built), Catch::Contains("job template \"spark-pi\""));
  CHECK_THAT(ErrorOf(built), Catch::Contains("cluster mode only"));

  BuilderOptions o = Options();
  o.conf = {{"spark.submit.deployMode", " client "}};
  built = Build(PiTemplate(), o);
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(ErrorOf(built), Catch::Contains("executor's defaults"));

  t.configs = {{"spark.submit.deployMode", "yarn-ish"}};
  built = Build(t);
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(ErrorOf(built), Catch::Contains("must be cluster or unset"));
}

TEST_CASE("A master that isn't k8s:// is refused - from the template or the defaults") {
  for (const char* master :
       {"local[2]", "yarn", "spark://host:7077", "{{spark_master}}", "K8S://https://x"}) {
    INFO(master);
    SparkTemplate t = PiTemplate();
    t.configs = {{"spark.master", master}};
    absl::StatusOr<BuiltApplication> built = Build(t);
    REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(ErrorOf(built), Catch::Contains("spark.master of job template \"spark-pi\""));
    CHECK_THAT(ErrorOf(built), Catch::Contains("isn't a k8s:// master"));
  }
  BuilderOptions o = Options();
  o.conf = {{"spark.master", "local"}};
  absl::StatusOr<BuiltApplication> built = Build(PiTemplate(), o);
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(ErrorOf(built), Catch::Contains("spark.master of the executor's defaults"));
  // The template's k8s:// master overrides the bad default: only the effective one counts.
  SparkTemplate t = PiTemplate();
  t.configs = {{"spark.master", "k8s://https://x"}};
  CHECK(Build(t, o).ok());
}

TEST_CASE("Blank config values are unset - they override no default") {
  BuilderOptions o = Options();
  o.conf = {{"spark.executor.memory", "2g"}, {"spark.blank.default", "  "}};
  SparkTemplate t = PiTemplate();
  // What a builtin template's spark.master={{spark_master}} resolves to without a value.
  t.configs = {{"spark.executor.memory", ""}, {"spark.master", " "}, {"spark.x", "\t"}};
  absl::StatusOr<BuiltApplication> built = Build(t, o);
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK(ConfValue(app, "spark.executor.memory") == "2g");
  CHECK_FALSE(HasConf(app, "spark.master"));
  CHECK_FALSE(HasConf(app, "spark.x"));
  CHECK_FALSE(HasConf(app, "spark.blank.default"));
}

TEST_CASE("Image and service account are set only when blank") {
  SparkTemplate t = PiTemplate();
  t.configs = {{"spark.kubernetes.container.image", "mine:1"},
               {"spark.kubernetes.authenticate.driver.serviceAccountName", " "}};
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK(ConfValue(app, "spark.kubernetes.container.image") == "mine:1");
  CHECK(ConfValue(app, "spark.kubernetes.authenticate.driver.serviceAccountName") == "spark");

  BuilderOptions o = Options();
  o.conf = {{"spark.kubernetes.authenticate.driver.serviceAccountName", "server-sa"}};
  built = Build(PiTemplate(), o);
  REQUIRE(built.ok());
  CHECK(ConfValue(Parse(built->json), "spark.kubernetes.authenticate.driver.serviceAccountName") ==
        "server-sa");
}

TEST_CASE("jars - files and archives are appended after the existing conf values") {
  BuilderOptions o = Options();
  o.conf = {{"spark.jars", "s3a://b/server.jar"}, {"spark.archives", " "}};
  SparkTemplate t = PiTemplate();
  t.configs = {{"spark.files", "https://h/conf.txt"}};
  t.jars = {"s3a://b/a.jar", "local:///opt/b.jar"};
  t.files = {"hdfs://nn/f1", "https://h/f2"};
  t.archives = {"s3a://b/env.tgz#env"};
  absl::StatusOr<BuiltApplication> built = Build(t, o);
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK(ConfValue(app, "spark.jars") == "s3a://b/server.jar,s3a://b/a.jar,local:///opt/b.jar");
  CHECK(ConfValue(app, "spark.files") == "https://h/conf.txt,hdfs://nn/f1,https://h/f2");
  CHECK(ConfValue(app, "spark.archives") == "s3a://b/env.tgz#env");
}

TEST_CASE("Empty lists leave the conf alone") {
  SparkTemplate t = PiTemplate();
  t.configs = {{"spark.jars", "s3a://b/x.jar"}};
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK(ConfValue(app, "spark.jars") == "s3a://b/x.jar");
  CHECK_FALSE(HasConf(app, "spark.files"));
  CHECK_FALSE(HasConf(app, "spark.archives"));
}

TEST_CASE("The namespace comes from spark.kubernetes.namespace - trimmed") {
  SparkTemplate t = PiTemplate();
  t.configs = {{"spark.kubernetes.namespace", "  team-a "}};
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK(Str(app["metadata"]["namespace"]) == "team-a");
  CHECK(ConfValue(app, "spark.kubernetes.namespace") == "team-a");
  CHECK(built->namespace_ == "team-a");
  CHECK(built->execution_id.namespace_ == "team-a");

  BuilderOptions o = Options();
  o.conf = {{"spark.kubernetes.namespace", "server-ns"}};
  built = Build(PiTemplate(), o);
  REQUIRE(built.ok());
  CHECK(built->namespace_ == "server-ns");
}

TEST_CASE("Without spark.kubernetes.namespace the default namespace is written back") {
  absl::StatusOr<BuiltApplication> built = Build(PiTemplate());
  REQUIRE(built.ok());
  CHECK(ConfValue(Parse(built->json), "spark.kubernetes.namespace") == "spark-jobs");
}

TEST_CASE("A blank spark.kubernetes.namespace means the default namespace") {
  for (const char* blank : {"", "   ", "\t"}) {
    SparkTemplate t = PiTemplate();
    t.configs = {{"spark.kubernetes.namespace", blank}};
    absl::StatusOr<BuiltApplication> built = Build(t);
    INFO("namespace: \"" << blank << "\"");
    REQUIRE(built.ok());
    CHECK(built->namespace_ == "spark-jobs");
    CHECK(ConfValue(Parse(built->json), "spark.kubernetes.namespace") == "spark-jobs");
  }
}

TEST_CASE("An invalid default namespace is FAILED_PRECONDITION") {
  BuilderOptions o = Options();
  o.namespace_ = "Bad_NS";
  CHECK(Build(PiTemplate(), o).status().code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("An invalid namespace is INVALID_ARGUMENT") {
  const char* bad =
      GENERATE("Team-A", "team_a", "-a", "a b",
               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a.b");
  SparkTemplate t = PiTemplate();
  t.configs = {{"spark.kubernetes.namespace", bad}};
  absl::StatusOr<BuiltApplication> built = Build(t);
  INFO("namespace: \"" << bad << "\"");
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ErrorOf(built).find("namespace") != std::string::npos);
}

TEST_CASE("Server-local resources are rejected with the reason") {
  const char* local = GENERATE("/opt/app.jar", "app.jar", "file:///opt/app.jar", "FILE:/opt/a.jar",
                               "", "./x.jar", "1http://x/a.jar");
  INFO("resource: \"" << local << "\"");
  CHECK_FALSE(IsClusterReachable(local));
  for (int field = 0; field < 4; ++field) {
    SparkTemplate t = PiTemplate();
    if (field == 0) t.executable = local;
    if (field == 1) t.jars = {"s3a://ok/a.jar", local};
    if (field == 2) t.files = {local};
    if (field == 3) t.archives = {local};
    absl::StatusOr<BuiltApplication> built = Build(t);
    REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
    if (field != 0 || std::string(local).find_first_not_of(' ') != std::string::npos) {
      CHECK(ErrorOf(built).find("Use a URI reachable from the cluster instead") !=
            std::string::npos);
    }
  }
}

TEST_CASE("Resources that aren't valid URIs are rejected") {
  const char* bad =
      GENERATE("s3a://b/my file.jar", " ", "https://h/a%zz.jar", "https://h/a%2", "https://h/a#b#c",
               "http:", "http://", "https://h/{x}.jar", "https://h/a\\b.jar", "https://h/\x01.jar");
  INFO("resource: \"" << bad << "\"");
  CHECK_FALSE(IsValidUri(bad));
  SparkTemplate t = PiTemplate();
  t.jars = {bad};
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ErrorOf(built).find("Invalid resource URI") != std::string::npos);
}

TEST_CASE("Valid URIs") {
  for (const char* uri : {"https://h/a%20b.jar", "s3a://b/env.tgz#env", "local:///opt/ü.jar", "",
                          "https://h/a.jar?x=1&y=2", "/opt/a.jar"}) {
    INFO(uri);
    CHECK(IsValidUri(uri));
  }
}

TEST_CASE("Cluster-reachable schemes are accepted") {
  for (const char* uri : {"local:///opt/a.jar", "https://h/a.jar", "http://h/a.jar", "s3a://b/a",
                          "hdfs://nn:8020/a", "gs://b/a", "abfss://c@a.dfs/x", "my+scheme.x-y:z"}) {
    INFO(uri);
    CHECK(IsClusterReachable(uri));
  }
  CHECK(UriScheme("https://h/a.jar") == "https");
  CHECK(UriScheme("/a:b") == "");
  CHECK(UriScheme("a b:c") == "");
}

TEST_CASE("Environments are rejected listing names - never values") {
  SparkTemplate t = PiTemplate();
  t.environments = {{"DB_PASSWORD", "hunter2-s3cr3t"}, {"API_TOKEN", "tok-abcdef"}};
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  std::string message = ErrorOf(built);
  CHECK(message.find("\"API_TOKEN\", \"DB_PASSWORD\"") != std::string::npos);
  CHECK(message.find("hunter2") == std::string::npos);
  CHECK(message.find("s3cr3t") == std::string::npos);
  CHECK(message.find("tok-abcdef") == std::string::npos);
  CHECK(message.find("Spark configurations") != std::string::npos);
}

TEST_CASE("Every refusal's message is bounded whatever the template holds") {
  const std::string huge(9000, 'x');
  std::vector<SparkTemplate> hostile;
  SparkTemplate t = PiTemplate();
  t.name = huge + "\x1b[31m";
  t.executable = "";
  hostile.push_back(t);
  t = PiTemplate();
  t.executable = "::" + huge;
  hostile.push_back(t);
  t = PiTemplate();
  t.executable = "/opt/" + huge;
  hostile.push_back(t);
  t = PiTemplate();
  for (int i = 0; i < 500; ++i) t.environments[absl::StrCat("VAR_", i, "_", huge.substr(0, 200))];
  hostile.push_back(t);
  t = PiTemplate();
  t.configs["spark." + huge + "\n"] = "1";
  hostile.push_back(t);
  t = PiTemplate();
  t.configs["spark.master"] = "yarn://" + huge;
  hostile.push_back(t);
  t = PiTemplate();
  t.configs["spark.submit.deployMode"] = "client-" + huge;
  hostile.push_back(t);
  t = PiTemplate();
  t.configs["spark.kubernetes.namespace"] = "No\x01" + huge;
  hostile.push_back(t);
  for (const SparkTemplate& h : hostile) {
    absl::StatusOr<BuiltApplication> built = Build(h);
    REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
    std::string message = ErrorOf(built);
    INFO(message.substr(0, 200));
    CHECK(message.size() < 1024);
    CHECK(message.find("bytes)") != std::string::npos);
    for (char c : message) CHECK(static_cast<unsigned char>(c) >= 0x20);
  }
}

TEST_CASE("SHELL templates are rejected") {
  SparkTemplate t = PiTemplate();
  t.is_shell = true;
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ErrorOf(built).find("only supports Spark jobs") != std::string::npos);
  CHECK(ErrorOf(built).find("spark-pi") != std::string::npos);
}

TEST_CASE("Built-in templates with a server-local executable get the jobs jar") {
  SparkTemplate t = PiTemplate();
  t.name = "builtin-iceberg-rewrite-data-files";
  t.executable = "/opt/gravitino/libs/gravitino-jobs-1.1.0.jar";
  BuilderOptions o = Options();
  o.builtin_jobs_jar = "local:///opt/gravitino/jobs/gravitino-jobs.jar";
  absl::StatusOr<BuiltApplication> built = Build(t, o);
  REQUIRE(built.ok());
  CHECK(Str(Parse(built->json)["spec"]["jars"]) ==
        "local:///opt/gravitino/jobs/gravitino-jobs.jar");

  t.executable = "https://repo/custom-jobs.jar";
  built = Build(t, o);
  REQUIRE(built.ok());
  CHECK(Str(Parse(built->json)["spec"]["jars"]) == "https://repo/custom-jobs.jar");

  t.name = "my-iceberg-job";  // Not built-in: the same local path is an error.
  t.executable = "/opt/gravitino/libs/gravitino-jobs-1.1.0.jar";
  CHECK(Build(t, o).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("Bad job ids - metalakes and templates create nothing") {
  CHECK(Build(PiTemplate(), Options(), "Job-1").status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(Build(PiTemplate(), Options(), "").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(BuildSparkApplication("1", " ", PiTemplate(), Options()).status().code() ==
        absl::StatusCode::kInvalidArgument);
  SparkTemplate t = PiTemplate();
  t.name = "";
  CHECK(Build(t).status().code() == absl::StatusCode::kInvalidArgument);
  t = PiTemplate();
  t.executable = "  ";
  CHECK(Build(t).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("Options without an image or Spark version are FAILED_PRECONDITION") {
  BuilderOptions o = Options();
  o.image = "";
  CHECK(Build(PiTemplate(), o).status().code() == absl::StatusCode::kFailedPrecondition);
  o = Options();
  o.spark_version = " ";
  CHECK(Build(PiTemplate(), o).status().code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("Strings with JSON metacharacters are escaped") {
  SparkTemplate t = PiTemplate();
  t.arguments = {"a\"b", "back\\slash", "line\nbreak", "ünï"};
  absl::StatusOr<BuiltApplication> built = BuildSparkApplication("1", "m\"l", t, Options());
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK(Str(app["spec"]["driverArgs"][0]) == "a\"b");
  CHECK(Str(app["spec"]["driverArgs"][1]) == "back\\slash");
  CHECK(Str(app["spec"]["driverArgs"][2]) == "line\nbreak");
  CHECK(Str(app["spec"]["driverArgs"][3]) == "ünï");
  CHECK(Str(app["metadata"]["annotations"]["gravitino.apache.org/metalake"]) == "m\"l");
}

}  // namespace
}  // namespace kje::spark

namespace kje::spark {
namespace {

using apache::BuildSparkApplication;

SparkTemplate BuiltinTemplate(const std::string& spark_conf) {
  SparkTemplate t;
  t.name = "builtin-iceberg-rewrite-data-files";
  t.executable = "/opt/gravitino/libs/gravitino-jobs.jar";
  t.class_name = "org.apache.gravitino.maintenance.jobs.iceberg.IcebergRewriteDataFilesJob";
  t.arguments = {"--catalog", "cat", "--table", "db.tbl", "--spark-conf", spark_conf};
  return t;
}

TEST_CASE("A built-in job's --spark-conf wins over every other source") {
  BuilderOptions o = Options();
  o.conf = {{"spark.a", "server"},
            {"spark.b", "server"},
            {"spark.c", "server"},
            {"spark.jars", "https://repo/default.jar"}};
  SparkTemplate t =
      BuiltinTemplate(R"({"spark.b":"spark_conf","spark.d":4,"spark.e":true,"spark.f":null,)"
                      R"("spark.jars":"https://repo/mine.jar","spark.executor.memory":"8g"})");
  t.configs = {{"spark.a", "template"}, {"spark.b", "template"}, {"spark.executor.memory", "1g"}};
  absl::StatusOr<BuiltApplication> built = Build(t, o);
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK(ConfValue(app, "spark.a") == "template");
  CHECK(ConfValue(app, "spark.b") == "spark_conf");
  CHECK(ConfValue(app, "spark.c") == "server");
  CHECK(ConfValue(app, "spark.d") == "4");
  CHECK(ConfValue(app, "spark.e") == "true");
  CHECK_FALSE(HasConf(app, "spark.f"));  // null is blank: unset
  CHECK(ConfValue(app, "spark.executor.memory") == "8g");
  // As the Java executor's docs warn: spark.jars in spark_conf replaces the default.
  CHECK(ConfValue(app, "spark.jars") == "https://repo/mine.jar");
  // The argument itself stays: the job reads it too.
  CHECK(Str(app["spec"]["driverArgs"][5]) == t.arguments[5]);
  CHECK(built->warnings.empty());
}

TEST_CASE("spark_conf's master - deploy mode and spark.kubernetes.* are ignored with a warning") {
  SparkTemplate t = BuiltinTemplate(
      R"({"spark.master":"local[2]","spark.submit.deployMode":"client",)"
      R"("spark.kubernetes.namespace":"other","spark.kubernetes.container.image":"x:1",)"
      R"("spark.sql.shuffle.partitions":"8"})");
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK_FALSE(HasConf(app, "spark.master"));
  CHECK_FALSE(HasConf(app, "spark.submit.deployMode"));
  CHECK(ConfValue(app, "spark.kubernetes.namespace") == "spark-jobs");
  CHECK(ConfValue(app, "spark.kubernetes.container.image") == "apache/spark:3.5.6");
  CHECK(ConfValue(app, "spark.sql.shuffle.partitions") == "8");
  REQUIRE(built->warnings.size() == 4);
  CHECK_THAT(built->warnings[0], Catch::Contains("Ignored \"spark.kubernetes.container.image\""));
  for (const std::string& w : built->warnings) {
    CHECK_THAT(w, !Catch::Contains("local[2]") && !Catch::Contains("x:1"));  // never values
  }
}

TEST_CASE("An invalid spark_conf refuses the submit - without quoting it") {
  for (const char* bad :
       {"{not_json}", "[1,2]", R"({"nested":{"a":1}})", R"({"array":[1]})", R"("just a string")"}) {
    INFO(bad);
    absl::StatusOr<BuiltApplication> built = Build(BuiltinTemplate(bad));
    REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(ErrorOf(built), Catch::Contains("builtin-iceberg-rewrite-data-files"));
    CHECK_THAT(ErrorOf(built), Catch::Contains("--spark-conf"));
  }
  CHECK_THAT(ErrorOf(Build(BuiltinTemplate(R"({"secret.key":{"x":"hunter2"}})"))),
             !Catch::Contains("hunter2"));
  SparkTemplate no_value = BuiltinTemplate("");
  no_value.arguments.pop_back();
  CHECK(Build(no_value).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("A blank or empty spark_conf - or a non-built-in template's - changes nothing") {
  for (const char* empty : {"", "  ", "{}"}) {
    INFO(empty);
    absl::StatusOr<BuiltApplication> built = Build(BuiltinTemplate(empty));
    REQUIRE(built.ok());
  }
  SparkTemplate t = BuiltinTemplate(R"({"spark.x":"1"})");
  t.name = "my-job";
  t.executable = "https://repo/jobs.jar";
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.ok());
  CHECK_FALSE(HasConf(Parse(built->json), "spark.x"));
  t.arguments.back() = "{not json}";  // Not ours to read for a non-built-in job.
  CHECK(Build(t).ok());
}

TEST_CASE("The Java executor's spark_conf example: spark.master=local[2] is ignored") {
  // IcebergUpdateStatsAndMetricsJob's own test passes --spark-conf {"spark.master":"local[2]"}.
  SparkTemplate t = BuiltinTemplate(R"({"spark.master":"local[2]"})");
  t.name = "builtin-iceberg-update-stats";
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.ok());
  CHECK_FALSE(HasConf(Parse(built->json), "spark.master"));
  CHECK(built->warnings.size() == 1);
}

TEST_CASE("spark.builtinJobsJar replaces a server-local executable and must be reachable") {
  BuilderOptions o = Options();
  o.builtin_jobs_jar = "s3a://bucket/gravitino-jobs.jar";
  absl::StatusOr<BuiltApplication> built = Build(BuiltinTemplate("{}"), o);
  REQUIRE(built.ok());
  CHECK(Str(Parse(built->json)["spec"]["jars"]) == "s3a://bucket/gravitino-jobs.jar");
  o.builtin_jobs_jar = "/opt/gravitino/jobs/gravitino-jobs.jar";
  CHECK(Build(BuiltinTemplate("{}"), o).status().code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("An application over etcd's object limit is refused before it is sent") {
  SparkTemplate t = PiTemplate();
  t.arguments.assign(100000, "--argument-of-twenty");  // about 2.3 MB of JSON
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(ErrorOf(built), Catch::Contains("more than the limit of 1572864 bytes"));
  CHECK_THAT(ErrorOf(built), Catch::Matches(".* would be [0-9]+ bytes.*"));

  BuilderOptions o = Options();
  t.arguments.assign(10, "x");
  built = Build(t, o);
  REQUIRE(built.ok());
  o.max_application_bytes = built->json.size();
  CHECK(Build(t, o).ok());  // exactly at the limit
  o.max_application_bytes = built->json.size() - 1;
  CHECK_THAT(ErrorOf(Build(t, o)),
             Catch::Contains(absl::StrCat("would be ", built->json.size(), " bytes")));
}

TEST_CASE("Control characters in config keys or the metalake are refused - naming the field") {
  SparkTemplate t = PiTemplate();
  t.configs = {{std::string("spark.a\0b", 9), "v"}};
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(ErrorOf(built), Catch::Contains("Spark configuration key \"spark.a\\x00"));
  CHECK_THAT(ErrorOf(built), Catch::Contains("job template \"spark-pi\""));
  CHECK(ErrorOf(built).find('\0') == std::string::npos);

  BuilderOptions o = Options();
  o.conf = {{"spark.line\nbreak", "v"}};
  CHECK_THAT(ErrorOf(Build(PiTemplate(), o)), Catch::Contains("executor's defaults"));

  built = Build(BuiltinTemplate(R"({"spark.x\u0001":"1"})"));
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(ErrorOf(built), Catch::Contains("spark_conf"));
  built = Build(BuiltinTemplate(R"({"spark.kubernetes.x\u0000":"1"})"));
  CHECK(built.status().code() == absl::StatusCode::kInvalidArgument);

  built = BuildSparkApplication("1", std::string("ml\0x", 4), PiTemplate(), Options());
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(ErrorOf(built), Catch::Contains("gravitino.apache.org/metalake"));
  CHECK(BuildSparkApplication("1", "ml\x7f", PiTemplate(), Options()).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("An over-long jobs jar and an over-long ignored spark_conf key are quoted bounded") {
  BuilderOptions o = Options();
  o.builtin_jobs_jar = "/" + std::string(8998, 'j') + "\x07";
  absl::StatusOr<BuiltApplication> built = Build(BuiltinTemplate(""), o);
  REQUIRE(built.status().code() == absl::StatusCode::kFailedPrecondition);
  std::string message = ErrorOf(built);
  INFO(message.substr(0, 200));
  CHECK(message.size() < 1024);
  CHECK(message.find("spark.builtinJobsJar") != std::string::npos);
  CHECK(message.find("(9000 bytes)") != std::string::npos);
  CHECK_FALSE(HasControlByte(message));

  o.builtin_jobs_jar = "local:///opt/gravitino/jobs/gravitino-jobs.jar";
  const std::string key = "spark.kubernetes." + std::string(8983, 'k');  // 9000 bytes
  built = Build(BuiltinTemplate(R"({")" + key + R"(":"v"})"), o);
  REQUIRE(built.ok());
  REQUIRE(built->warnings.size() == 1);
  INFO(built->warnings[0].substr(0, 200));
  CHECK(built->warnings[0].size() < 1024);
  CHECK(built->warnings[0].find("Ignored \"spark.kubernetes.kkk") != std::string::npos);
  CHECK(built->warnings[0].find("(9000 bytes) in the spark_conf") != std::string::npos);
}

TEST_CASE("OnFailure becomes restartConfig; Never stays the default") {
  absl::StatusOr<BuiltApplication> never = Build(PiTemplate());
  REQUIRE(never.ok());
  const rapidjson::Document never_app = Parse(never->json);
  const rapidjson::Value& never_config =
      never_app["spec"]["applicationTolerations"]["restartConfig"];
  CHECK(Str(never_config["restartPolicy"]) == "Never");
  CHECK_FALSE(never_config.HasMember("maxRestartAttempts"));

  SparkTemplate t = PiTemplate();
  t.custom_fields = {{"restartPolicy", "OnFailure"},
                     {"onFailureRetries", "2"},
                     {"onFailureRetryIntervalSeconds", "15"}};
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE(built.ok());
  const rapidjson::Document app = Parse(built->json);
  const rapidjson::Value& config = app["spec"]["applicationTolerations"]["restartConfig"];
  CHECK(Str(config["restartPolicy"]) == "OnFailure");
  CHECK(config["maxRestartAttempts"].GetInt64() == 2);
  CHECK(config["restartBackoffMillis"].GetInt64() == 15000);
}

TEST_CASE("Submission-failure retries are refused: this operator has none") {
  SparkTemplate t = PiTemplate();
  t.custom_fields = {{"restartPolicy", "OnFailure"}, {"onSubmissionFailureRetries", "1"}};
  absl::StatusOr<BuiltApplication> built = Build(t);
  REQUIRE_FALSE(built.ok());
  CHECK(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ErrorOf(built).find("onSubmissionFailureRetries") != std::string::npos);
  t.custom_fields = {{"restartPolicy", "OnFailure"}, {"onFailureRetries", "x"}};
  CHECK(ErrorOf(Build(t)).find("onFailureRetries") != std::string::npos);
}

TEST_CASE("Monitoring writes Spark's Prometheus confs and the driver's scrape annotations") {
  SparkTemplate t = PiTemplate();
  absl::StatusOr<BuiltApplication> off = Build(t);
  REQUIRE(off.ok());
  CHECK_FALSE(HasConf(Parse(off->json), "spark.ui.prometheus.enabled"));
  CHECK_FALSE(HasConf(Parse(off->json), "spark.kubernetes.driver.annotation.prometheus.io/scrape"));

  BuilderOptions options = Options();
  options.monitoring.driver = true;
  t.configs = {{"spark.ui.port", "4041"}};
  absl::StatusOr<BuiltApplication> driver = Build(t, options);
  REQUIRE(driver.ok());
  const rapidjson::Document app = Parse(driver->json);
  CHECK(ConfValue(app, "spark.metrics.conf.*.sink.prometheusServlet.class") ==
        "org.apache.spark.metrics.sink.PrometheusServlet");
  CHECK(ConfValue(app, "spark.metrics.conf.*.sink.prometheusServlet.path") ==
        "/metrics/prometheus");
  CHECK(ConfValue(app, "spark.kubernetes.driver.annotation.prometheus.io/scrape") == "true");
  CHECK(ConfValue(app, "spark.kubernetes.driver.annotation.prometheus.io/port") == "4041");
  CHECK(ConfValue(app, "spark.kubernetes.driver.annotation.prometheus.io/path") ==
        "/metrics/prometheus");
  CHECK_FALSE(HasConf(app, "spark.ui.prometheus.enabled"));

  // The template's field overrides the deployment: executors only.
  t.custom_fields = {{"monitoring", "executor"}};
  absl::StatusOr<BuiltApplication> executor = Build(t, options);
  REQUIRE(executor.ok());
  const rapidjson::Document executor_app = Parse(executor->json);
  CHECK(ConfValue(executor_app, "spark.ui.prometheus.enabled") == "true");
  CHECK(ConfValue(executor_app, "spark.kubernetes.driver.annotation.prometheus.io/path") ==
        "/metrics/executors/prometheus");
  CHECK_FALSE(HasConf(executor_app, "spark.metrics.conf.*.sink.prometheusServlet.class"));
  t.custom_fields = {{"monitoring", "bogus"}};
  CHECK(ErrorOf(Build(t, options)).find("custom field monitoring") != std::string::npos);
}

}  // namespace
}  // namespace kje::spark
