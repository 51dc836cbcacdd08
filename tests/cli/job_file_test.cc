#include "cli/job_file.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "base/quote.h"

namespace kje::cli {
namespace {

constexpr char kFull[] = R"(
jobId: "1001"
metalake: lake
template:
  name: spark-pi
  comment: SparkPi
  executable: local:///opt/spark/examples/jars/spark-examples.jar
  arguments: [100, "two words"]
  customFields: {team: data}
  spark:
    className: org.apache.spark.examples.SparkPi
    jars: [https://repo/a.jar]
    files: [s3a://b/f.txt]
    archives: [hdfs:///c.zip]
    configs:
      spark.executor.instances: 2
      spark.kubernetes.namespace: spark-jobs
)";

std::string Error(const std::string& text) {
  auto parsed = ParseJobFile(text, "job.yaml");
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(parsed.status().message());
}

TEST_CASE("a full job file becomes the SubmitRequest it describes") {
  auto parsed = ParseJobFile(kFull, "job.yaml");
  REQUIRE(parsed.ok());
  CHECK(parsed->job_id() == "1001");
  CHECK(parsed->metalake() == "lake");
  const auto& t = parsed->template_();
  CHECK(t.name() == "spark-pi");
  CHECK(t.comment() == "SparkPi");
  CHECK(t.executable() == "local:///opt/spark/examples/jars/spark-examples.jar");
  REQUIRE(t.arguments_size() == 2);
  CHECK(t.arguments(0) == "100");
  CHECK(t.arguments(1) == "two words");
  CHECK(t.custom_fields().at("team") == "data");
  REQUIRE(t.has_spark());
  CHECK(t.spark().class_name() == "org.apache.spark.examples.SparkPi");
  CHECK(t.spark().jars(0) == "https://repo/a.jar");
  CHECK(t.spark().files(0) == "s3a://b/f.txt");
  CHECK(t.spark().archives(0) == "hdfs:///c.zip");
  // Dotted Spark keys stay whole, numbers are read as text.
  CHECK(t.spark().configs().at("spark.executor.instances") == "2");
  CHECK(t.spark().configs().at("spark.kubernetes.namespace") == "spark-jobs");
}

TEST_CASE("snake_case proto names are accepted, and a template without spark is a Spark job") {
  auto parsed = ParseJobFile(R"(
job_id: 7
metalake: m
template: {name: py, executable: "https://x/app.py", custom_fields: {a: b}}
)",
                             "job.yaml");
  REQUIRE(parsed.ok());
  CHECK(parsed->job_id() == "7");
  CHECK(parsed->template_().has_spark());
  CHECK(parsed->template_().custom_fields().at("a") == "b");
}

TEST_CASE("a shell job is parsed (the server rejects it, with its own reason)") {
  auto parsed = ParseJobFile(R"(
jobId: "8"
metalake: m
template: {name: sh, executable: "https://x/run.sh", shell: {scripts: [a.sh, b.sh]}}
)",
                             "job.yaml");
  REQUIRE(parsed.ok());
  REQUIRE(parsed->template_().has_shell());
  CHECK(parsed->template_().shell().scripts_size() == 2);
}

TEST_CASE("bad job files get errors naming the file, the key and the rule") {
  CHECK(Error("jobId: [").rfind("job.yaml: not valid YAML: ", 0) == 0);
  std::string bad_escape = Error("jobId: \"a\\\x03\"\n");
  CHECK_THAT(bad_escape, Catch::Contains("unknown escape character: \\x03"));
  CHECK_FALSE(HasControlByte(bad_escape));
  CHECK(Error("") == "job.yaml: empty job file");
  CHECK(Error("- a\n- b\n") == "job.yaml: <document>: must be a map");
  CHECK(Error("jobId: 1\njobid: 2\n")
            .find("job.yaml: jobid: unknown key (expected one of: "
                  "jobId, metalake, template)") == 0);
  CHECK(Error("jobId: 1\njob_id: 2\n") == "job.yaml: job_id: given twice");
  CHECK(Error("jobId: [1]\n") == "job.yaml: jobId: must be a string");
  CHECK(Error("jobId: 1\nmetalake: m\ntemplate: {name: n, executable: e, sparkk: {}}\n")
            .find("job.yaml: template.sparkk: unknown key") == 0);
  CHECK(Error("jobId: 1\ntemplate: {name: n, executable: e, arguments: a}\n") ==
        "job.yaml: template.arguments: must be a list of strings");
  CHECK(Error("jobId: 1\ntemplate: {name: n, executable: e, arguments: [a, {b: c}]}\n") ==
        "job.yaml: template.arguments[1]: must be a string");
  CHECK(Error("jobId: 1\ntemplate: {name: n, executable: e, spark: {configs: [a]}}\n") ==
        "job.yaml: template.spark.configs: must be a map of strings");
  CHECK(Error("jobId: 1\ntemplate: {name: n, executable: e, spark: {configs: {a: {b: c}}}}\n") ==
        "job.yaml: template.spark.configs.a: must be a string");
  CHECK(Error("jobId: 1\ntemplate: {name: n, executable: e, spark: {}, shell: {}}\n") ==
        "job.yaml: template: has both spark and shell; a job is one or the other");
  CHECK(Error("template: {name: n, executable: e}\n") == "job.yaml: jobId: is required");
  CHECK(Error("jobId: 1\n") == "job.yaml: metalake: is required");
  CHECK(Error("jobId: 1\nmetalake: m\n") == "job.yaml: template: is required");
  CHECK(Error("jobId: 1\nmetalake: m\ntemplate: {name: ' ', executable: e}\n") ==
        "job.yaml: template.name: is required");
  CHECK(Error("jobId: 1\nmetalake: m\ntemplate: {name: n}\n") ==
        "job.yaml: template.executable: is required");
  // A key is the user's bytes: one that isn't plain is quoted, escaped.
  CHECK(Error("jobId\x08x: 1\n").rfind("job.yaml: \"jobId\\x08x\": unknown key", 0) == 0);
  CHECK(Error("jobId: 1\ntemplate: {name: n, executable: e, spark: {configs: {\"a b\": [c]}}}\n") ==
        "job.yaml: template.spark.configs.\"a b\": must be a string");
  // A pod template nested 32 deep under 64-byte keys: the path is cut, the message bounded.
  std::string deep = "jobId: 1\ntemplate: {name: n, executable: e, pod: {driver: ";
  for (int i = 0; i < 34; ++i) deep += "{" + std::string(64, 'k') + ": ";
  deep += "x" + std::string(34, '}') + "}}\n";
  const std::string nested = Error(deep);
  CHECK_THAT(nested, Catch::EndsWith(": is nested too deeply"));
  CHECK_THAT(nested, Catch::StartsWith("job.yaml: template.pod.driver.kkkk"));
  CHECK(nested.size() < 600);
}

TEST_CASE("a pod section becomes the podTemplate custom fields, typed as YAML types them") {
  auto parsed = ParseJobFile(R"(
jobId: "7"
metalake: lake
template:
  name: t
  executable: local:///e.jar
  pod:
    driver:
      spec:
        tolerations: [{key: spot, operator: Exists, effect: NoSchedule}]
        containers:
          - name: spark-kubernetes-driver
            volumeMounts: [{name: logs, mountPath: /logs, readOnly: true}]
        securityContext: {runAsUser: 185, runAsNonRoot: true}
        volumes: [{name: logs, persistentVolumeClaim: {claimName: "0123"}}]
    all:
      metadata: {labels: {team: data}}
)",
                             "job.yaml");
  REQUIRE(parsed.ok());
  const auto& fields = parsed->template_().custom_fields();
  CHECK(fields.at("podTemplate.driver") ==
        R"({"spec":{"tolerations":[{"key":"spot","operator":"Exists","effect":"NoSchedule"}],)"
        R"("containers":[{"name":"spark-kubernetes-driver","volumeMounts":[{"name":"logs",)"
        R"("mountPath":"/logs","readOnly":true}]}],"securityContext":{"runAsUser":185,)"
        R"("runAsNonRoot":true},"volumes":[{"name":"logs","persistentVolumeClaim":)"
        R"({"claimName":"0123"}}]}})");
  CHECK(fields.at("podTemplate") == R"({"metadata":{"labels":{"team":"data"}}})");
  CHECK(fields.count("podTemplate.executor") == 0);
  CHECK(Error("jobId: 1\ntemplate: {name: n, executable: e, pod: {sidecar: {}}}\n")
            .find("job.yaml: template.pod.sidecar: unknown key") == 0);
  CHECK(Error("jobId: 1\ntemplate: {name: n, executable: e, pod: {driver: [1]}}\n") ==
        "job.yaml: template.pod.driver: must be a map (a PodTemplateSpec)");
  CHECK(Error("jobId: 1\ntemplate: {name: n, executable: e, pod: {all: {}},"
              " customFields: {podTemplate: '{}'}}\n") ==
        "job.yaml: template.pod.all: and customFields.podTemplate are both given");
}

TEST_CASE("a job file checked for shape only may leave the required keys to flags") {
  auto partial = ParseJobFile("template: {executable: e}\n", "job.yaml", JobFileChecks::kShapeOnly);
  REQUIRE(partial.ok());
  CHECK(partial->job_id().empty());
  CHECK(partial->template_().executable() == "e");
  CHECK(ValidateSubmitRequest(*partial).message() == "jobId: is required");
  // The shape is still checked.
  auto bad = ParseJobFile("template: {executable: [e]}\n", "job.yaml", JobFileChecks::kShapeOnly);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() == "job.yaml: template.executable: must be a string");
}

TEST_CASE("LoadJobFile reads a file and refuses a missing or oversized one") {
  std::string path = "cli_job_file_test.yaml";
  {
    std::ofstream f(path);
    f << kFull;
  }
  auto loaded = LoadJobFile(path);
  REQUIRE(loaded.ok());
  CHECK(loaded->job_id() == "1001");
  {
    std::ofstream f(path);
    f << "jobId: \"1\"\n# " << std::string(1 << 20, 'x') << "\n";
  }
  auto big = LoadJobFile(path);
  REQUIRE_FALSE(big.ok());
  CHECK(std::string(big.status().message()).find("larger than 1048576 bytes") != std::string::npos);
  std::remove(path.c_str());
  auto missing = LoadJobFile(path);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message() == path + ": can't read the job file");
}

}  // namespace
}  // namespace kje::cli
