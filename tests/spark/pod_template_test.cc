// The pod customisation a template asks for (custom fields podTemplate*, sparkConfigMap,
// hadoopConfigMap) checked against the pod rules and completed for Spark, and the Secret of the
// template's environment variables.

#include "spark/pod_template.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "rapidjson/document.h"
#include "spark/pod_spec_rules.h"

namespace kje::spark {
namespace {

using Fields = std::map<std::string, std::string>;

const std::string kName = "'spark-pi'";

rapidjson::Document Parse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

const rapidjson::Value& SparkContainer(const rapidjson::Document& doc) {
  REQUIRE(doc["spec"]["containers"].IsArray());
  REQUIRE(doc["spec"]["containers"].Size() >= 1);
  return doc["spec"]["containers"][0];
}

std::vector<std::string> MountPaths(const rapidjson::Value& container) {
  std::vector<std::string> paths;
  if (!container.HasMember("volumeMounts")) return paths;
  for (const auto& m : container["volumeMounts"].GetArray()) {
    paths.emplace_back(m["mountPath"].GetString());
  }
  return paths;
}

constexpr const char* kFull = R"({
  "metadata": {"labels": {"team": "data"}, "annotations": {"example.com/owner": "ana"}},
  "spec": {
    "volumes": [
      {"name": "conf", "configMap": {"name": "log4j", "items": [{"key": "a", "path": "log4j2.properties"}]}},
      {"name": "events", "persistentVolumeClaim": {"claimName": "spark-events"}},
      {"name": "creds", "secret": {"secretName": "s3-creds", "defaultMode": 256}},
      {"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}}],
    "containers": [
      {"volumeMounts": [{"name": "conf", "mountPath": "/etc/log4j"},
                        {"name": "events", "mountPath": "/spark-events"}],
       "env": [{"name": "TZ", "value": "UTC"}],
       "resources": {"limits": {"nvidia.com/gpu": 1}, "requests": {"ephemeral-storage": "2Gi"}},
       "securityContext": {"runAsNonRoot": true, "capabilities": {"drop": ["ALL"]}}},
      {"name": "proxy", "image": "envoy:1.30", "ports": [{"containerPort": 9901, "name": "admin"}]}],
    "initContainers": [{"name": "fetch", "image": "busybox:1.36", "command": ["true"],
                        "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}]}],
    "nodeSelector": {"disktype": "ssd"},
    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "spark", "effect": "NoSchedule"}],
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
      "nodeSelectorTerms": [{"matchExpressions": [
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]}]}]}}},
    "priorityClassName": "batch-high",
    "securityContext": {"fsGroup": 185, "runAsUser": 185}}})";

TEST_CASE("pod template: none asked for, none written", "[pod_template]") {
  absl::StatusOr<PodTemplates> t = ResolvePodTemplates({{"team", "data"}}, "", kName);
  REQUIRE(t.ok());
  CHECK(t->empty());
}

TEST_CASE("pod template: the shared template reaches both roles, Spark's containers named",
          "[pod_template]") {
  absl::StatusOr<PodTemplates> t = ResolvePodTemplates({{"podTemplate", kFull}}, "", kName);
  REQUIRE(t.ok());
  for (auto [json, name] : {std::pair{&t->driver, "spark-kubernetes-driver"},
                            std::pair{&t->executor, "spark-kubernetes-executor"}}) {
    rapidjson::Document doc = Parse(*json);
    CHECK(std::string(SparkContainer(doc)["name"].GetString()) == name);
    CHECK(doc["spec"]["volumes"].Size() == 4);
    CHECK(std::string(doc["spec"]["tolerations"][0]["value"].GetString()) == "spark");
    CHECK(std::string(doc["spec"]["containers"][1]["name"].GetString()) == "proxy");
    CHECK(MountPaths(SparkContainer(doc)) ==
          std::vector<std::string>{"/etc/log4j", "/spark-events"});
    CHECK(std::string(doc["metadata"]["labels"]["team"].GetString()) == "data");
  }
}

TEST_CASE("pod template: a role's own field replaces the shared one for that role",
          "[pod_template]") {
  Fields fields = {{"podTemplate", kFull},
                   {"podTemplate.executor", R"({"spec":{"nodeSelector":{"pool":"spot"}}})"}};
  absl::StatusOr<PodTemplates> t = ResolvePodTemplates(fields, "", kName);
  REQUIRE(t.ok());
  rapidjson::Document driver = Parse(t->driver);
  rapidjson::Document executor = Parse(t->executor);
  CHECK(std::string(driver["spec"]["nodeSelector"]["disktype"].GetString()) == "ssd");
  CHECK(std::string(executor["spec"]["nodeSelector"]["pool"].GetString()) == "spot");
  CHECK_FALSE(executor["spec"].HasMember("volumes"));
}

TEST_CASE("pod template: the Spark and Hadoop ConfigMaps and the env Secret in both roles",
          "[pod_template]") {
  Fields fields = {{"sparkConfigMap", "spark-defaults"}, {"hadoopConfigMap", " hadoop-site "}};
  absl::StatusOr<PodTemplates> t = ResolvePodTemplates(fields, "gravitino-job-7-env", kName);
  REQUIRE(t.ok());
  for (const std::string* json : {&t->driver, &t->executor}) {
    rapidjson::Document doc = Parse(*json);
    const rapidjson::Value& c = SparkContainer(doc);
    CHECK(MountPaths(c) == std::vector<std::string>{"/etc/spark/conf", "/etc/hadoop/conf"});
    CHECK(std::string(doc["spec"]["volumes"][0]["configMap"]["name"].GetString()) ==
          "spark-defaults");
    CHECK(std::string(doc["spec"]["volumes"][1]["configMap"]["name"].GetString()) == "hadoop-site");
    CHECK(std::string(c["env"][0]["name"].GetString()) == "HADOOP_CONF_DIR");
    CHECK(std::string(c["envFrom"][0]["secretRef"]["name"].GetString()) == "gravitino-job-7-env");
  }
}

TEST_CASE("pod template: each malformed value is refused naming the field and the path",
          "[pod_template]") {
  struct Case {
    std::string field;
    std::string value;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"podTemplate", "{not json", "isn't valid JSON"},
      {"podTemplate", "[1]", "must be an object"},
      {"podTemplate.driver", R"({"spec":{"hostNetwork":true}})", "spec.\"hostNetwork\""},
      {"podTemplate", R"({"kind":"Pod"})", "\"kind\": isn't a supported field"},
      {"podTemplate", R"({"spec":{"volumes":[{"name":"Conf","emptyDir":{}}]}})",
       "spec.volumes[0].name: must be a DNS-1123 label"},
      {"podTemplate",
       R"({"spec":{"volumes":[{"name":"a","emptyDir":{},"configMap":{"name":"x"}}]}})",
       "spec.volumes[0]: must have exactly one of"},
      {"podTemplate",
       R"({"spec":{"volumes":[{"name":"a","emptyDir":{}},{"name":"a","emptyDir":{}}]}})",
       "names two volumes"},
      {"podTemplate", R"({"spec":{"volumes":[{"name":"spark-local-dir-1","emptyDir":{}}]}})",
       "Spark or the service gives its own volumes"},
      {"podTemplate", R"({"spec":{"volumes":[{"name":"a","persistentVolumeClaim":{}}]}})",
       "persistentVolumeClaim.claimName: is required"},
      {"podTemplate",
       R"({"spec":{"containers":[{"volumeMounts":[{"name":"nope","mountPath":"/x"}]}]}})",
       "isn't a volume of the template's spec.volumes"},
      {"podTemplate",
       R"({"spec":{"volumes":[{"name":"a","emptyDir":{}}],"containers":[{"volumeMounts":[{"name":"a","mountPath":"rel"}]}]}})",
       "spec.containers[0].volumeMounts[0].mountPath: must be an absolute path"},
      {"podTemplate",
       R"({"spec":{"volumes":[{"name":"a","emptyDir":{}}],"containers":[{"volumeMounts":[{"name":"a","mountPath":"/opt/spark/conf"}]}]}})",
       "where Spark mounts its own conf"},
      {"podTemplate", R"({"spec":{"containers":[{"name":"main"}]}})",
       "name it spark-kubernetes-driver or leave the name out"},
      {"podTemplate", R"({"spec":{"containers":[{"image":"mine:1"}]}})",
       "spec.containers[0].\"image\": isn't a supported field"},
      {"podTemplate", R"({"spec":{"containers":[{},{"name":"side"}]}})",
       "spec.containers[1].image: is required"},
      {"podTemplate", R"({"spec":{"containers":[{"env":[{"name":"1BAD","value":"x"}]}]}})",
       "must be an environment variable name"},
      {"podTemplate", R"({"spec":{"containers":[{"resources":{"limits":{"memory":"lots"}}}]}})",
       "must be a quantity"},
      {"podTemplate", R"({"spec":{"tolerations":[{"key":"k","operator":"Exists","value":"v"}]}})",
       "must be empty when the operator is Exists"},
      {"podTemplate", R"({"spec":{"tolerations":[{"key":"k","operator":"Maybe"}]}})",
       "spec.tolerations[0].operator: must be one of Equal, Exists"},
      {"podTemplate",
       R"({"spec":{"tolerations":[{"key":"k","effect":"NoSchedule","tolerationSeconds":5}]}})",
       "needs the effect NoExecute"},
      {"podTemplate",
       R"({"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In"}]}]}}}}})",
       "must not be empty for In and NotIn"},
      {"podTemplate", R"({"spec":{"nodeSelector":{"bad key!":"x"}}})",
       "the key must be a label key"},
      {"podTemplate", R"({"metadata":{"labels":{"team":"not a value"}}})", "must be a label value"},
      {"podTemplate", R"({"metadata":{"labels":{"gravitino.apache.org/job-id":"9"}}})",
       "the service or the queue sets itself"},
      {"podTemplate", R"({"spec":{"priorityClassName":"High_Prio"}})",
       "spec.priorityClassName: must be a DNS-1123 subdomain"},
      {"podTemplate", R"({"spec":{"securityContext":{"runAsUser":-1}}})",
       "spec.securityContext.runAsUser: must be a whole number"},
      {"sparkConfigMap", "Not_A_Name", "must name a ConfigMap"},
      {"podTemplate.drivers", "{}", "isn't known"},
  };
  for (const Case& c : cases) {
    INFO(c.field << " = " << c.value);
    absl::StatusOr<PodTemplates> t = ResolvePodTemplates({{c.field, c.value}}, "", kName);
    REQUIRE(t.status().code() == absl::StatusCode::kInvalidArgument);
    const std::string message(t.status().message());
    CHECK(message.find(c.expected) != std::string::npos);
    CHECK(message.find("custom field") != std::string::npos);
    CHECK(message.find(kName) != std::string::npos);
  }
}

TEST_CASE("pod template: a ConfigMap field can't mount where the template already does",
          "[pod_template]") {
  Fields fields = {
      {"sparkConfigMap", "spark-defaults"},
      {"podTemplate",
       R"({"spec":{"volumes":[{"name":"a","emptyDir":{}}],"containers":[{"volumeMounts":[{"name":"a","mountPath":"/etc/spark/conf"}]}]}})"}};
  absl::StatusOr<PodTemplates> t = ResolvePodTemplates(fields, "", kName);
  REQUIRE(t.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(t.status().message()).find("sparkConfigMap") != std::string::npos);
}

TEST_CASE("pod template: the rules of names and quantities", "[pod_template]") {
  for (std::string_view good : {"1", "500m", "2Gi", "1.5", "1e3", "+1", ".5"}) {
    CHECK(IsQuantity(good));
  }
  for (std::string_view bad : {"", "Gi", "1gb", "1e", "--1", "1 Gi"}) CHECK_FALSE(IsQuantity(bad));
  CHECK(IsQualifiedName("topology.kubernetes.io/zone"));
  CHECK(IsQualifiedName("team"));
  CHECK_FALSE(IsQualifiedName("/team"));
  CHECK_FALSE(IsQualifiedName("Bad_Prefix/team"));
  CHECK(IsLabelValue(""));
  CHECK_FALSE(IsLabelValue("-x"));
  CHECK(IsEnvVarName("JAVA_HOME"));
  CHECK(IsEnvVarName("my.var-1"));
  CHECK_FALSE(IsEnvVarName("1X"));
  CHECK_FALSE(IsEnvVarName("A=B"));
  CHECK_FALSE(IsEnvVarName(""));
}

TEST_CASE("pod template: the env Secret holds the values and the app's labels", "[pod_template]") {
  const std::string secret = BuildEnvironmentSecret(
      "gravitino-job-7-env", "jobs", {{"gravitino.apache.org/job-id", "7"}}, {{"TOKEN", "s3cr3t"}});
  rapidjson::Document doc = Parse(secret);
  CHECK(std::string(doc["kind"].GetString()) == "Secret");
  CHECK(std::string(doc["metadata"]["namespace"].GetString()) == "jobs");
  CHECK(std::string(doc["metadata"]["labels"]["gravitino.apache.org/job-id"].GetString()) == "7");
  CHECK(std::string(doc["stringData"]["TOKEN"].GetString()) == "s3cr3t");
  CHECK(EnvironmentSecretName("gravitino-job-7") == "gravitino-job-7-env");
}

}  // namespace
}  // namespace kje::spark
