#include "kubesim/schema/schema.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kubesim/schema/crd.h"

namespace kubesim {
namespace {

namespace json = boost::json;

const std::string kRoot = KUBESIM_CRD_ROOT;

// The real CRDs, each loaded once and only when a test needs it: parsing a 20k-line YAML file
// for every test would dominate the run.
std::shared_ptr<const Schema> LoadSchema(const std::string& file, const std::string& crd_name,
                                         const std::string& version) {
  std::string error;
  auto crds = LoadCrdFile(file, &error);
  INFO(error);
  REQUIRE(error.empty());
  for (const auto& crd : crds) {
    if (crd.name != crd_name) continue;
    for (const auto& v : crd.versions) {
      if (v.name == version) return v.schema;
    }
  }
  return nullptr;
}

const Schema& Get(const std::string& label) {
  static std::map<std::string, std::shared_ptr<const Schema>> cache;
  auto it = cache.find(label);
  if (it == cache.end()) {
    std::shared_ptr<const Schema> schema;
    if (label == "0.9.0" || label == "1.0.0") {
      schema = LoadSchema(
          kRoot + "/apache-spark-operator/" + label + "/sparkapplications.spark.apache.org-v1.yaml",
          "sparkapplications.spark.apache.org", "v1");
    } else if (label == "kubeflow") {
      schema = LoadSchema(
          kRoot + "/kubeflow-spark-operator/v2.5.2/sparkoperator.k8s.io_sparkapplications.yaml",
          "sparkapplications.sparkoperator.k8s.io", "v1beta2");
    } else if (label == "kubeflow-scheduled") {
      schema = LoadSchema(kRoot +
                              "/kubeflow-spark-operator/v2.5.2/"
                              "sparkoperator.k8s.io_scheduledsparkapplications.yaml",
                          "scheduledsparkapplications.sparkoperator.k8s.io", "v1beta2");
    }
    it = cache.emplace(label, schema).first;
  }
  REQUIRE(it->second != nullptr);
  return *it->second;
}

json::object LoadYaml(const std::string& path) {
  return YamlToJson(YAML::LoadFile(path)).as_object();
}

json::object Pi() { return LoadYaml(kRoot + "/apache-spark-operator/examples/pi.yaml"); }

json::value& At(json::object& obj, const std::string& dotted) {
  json::value* cur = nullptr;
  json::object* o = &obj;
  std::stringstream ss(dotted);
  std::string part;
  while (std::getline(ss, part, '/')) {
    cur = &(*o)[part];
    if (cur->is_null()) *cur = json::object();
    if (cur->is_object()) o = &cur->as_object();
  }
  return *cur;
}

std::string Describe(const std::vector<FieldCause>& causes) {
  std::string s;
  for (const auto& c : causes) s += "{" + c.reason + ", " + c.field + ", " + c.message + "} ";
  return s;
}

const std::vector<std::string> kApacheVersions = {"0.9.0", "1.0.0"};

TEST_CASE("Every apache example validates against the v1 schema of 0.9.0 and 1.0.0", "[schema]") {
  int checked = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(kRoot + "/apache-spark-operator/examples")) {
    for (const auto& version : kApacheVersions) {
      json::object obj = LoadYaml(entry.path().string());
      json::object before = obj;
      std::vector<std::string> unknown;
      auto causes = Get(version).Validate(obj, /*strict=*/true, &unknown);
      INFO(entry.path().string() << " against " << version << ": " << Describe(causes));
      CHECK(causes.empty());
      CHECK(unknown.empty());
      // Nothing of the example is pruned: every field it sets is still there.
      for (const auto& kv : before.at("spec").as_object()) {
        CHECK(obj.at("spec").as_object().contains(kv.key()));
      }
      ++checked;
    }
  }
  CHECK(checked == 8);
}

TEST_CASE("Every kubeflow example validates against its v1beta2 schema", "[schema]") {
  for (const char* name : {"spark-pi.yaml", "spark-pi-python.yaml"}) {
    json::object obj = LoadYaml(kRoot + "/kubeflow-spark-operator/examples/" + name);
    std::vector<std::string> unknown;
    auto causes = Get("kubeflow").Validate(obj, true, &unknown);
    INFO(name << ": " << Describe(causes));
    CHECK(causes.empty());
    CHECK(unknown.empty());
  }
  json::object scheduled =
      LoadYaml(kRoot + "/kubeflow-spark-operator/examples/spark-pi-scheduled.yaml");
  std::vector<std::string> unknown;
  auto causes = Get("kubeflow-scheduled").Validate(scheduled, true, &unknown);
  INFO(Describe(causes));
  CHECK(causes.empty());
  CHECK(unknown.empty());
}

TEST_CASE("The synthetic operator statuses validate against both apache schemas", "[schema]") {
  std::string dir = std::string(KUBESIM_SCHEMA_TESTDATA) + "/synthetic";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    for (const auto& version : kApacheVersions) {
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      json::object obj = json::parse(text.str()).as_object();
      std::vector<std::string> unknown;
      auto causes = Get(version).Validate(obj, true, &unknown);
      INFO(entry.path().string() << ": " << Describe(causes));
      CHECK(causes.empty());
      CHECK(unknown.empty());
      ++checked;
    }
  }
  CHECK(checked == 14);
}

TEST_CASE("Defaults of the schema are applied to present parents only", "[schema]") {
  json::object obj = Pi();
  auto causes = Get("1.0.0").Validate(obj, false, nullptr);
  REQUIRE(causes.empty());
  const auto& tolerations = obj.at("spec").at("applicationTolerations").as_object();
  CHECK(tolerations.at("resourceRetainDurationMillis").as_int64() == -1);
  CHECK(tolerations.at("ttlAfterStopMillis").as_int64() == 10000);  // set by the example
  // restartConfig is absent, so its restartCounterResetMillis default is not materialised.
  CHECK_FALSE(tolerations.contains("restartConfig"));
}

TEST_CASE("A missing sparkVersion is FieldValueRequired with its path", "[schema]") {
  for (const auto& version : kApacheVersions) {
    json::object obj = Pi();
    At(obj, "spec/runtimeVersions").as_object().erase("sparkVersion");
    auto causes = Get(version).Validate(obj, false, nullptr);
    REQUIRE(causes.size() == 1);
    CHECK(causes[0].reason == "FieldValueRequired");
    CHECK(causes[0].message == "Required value");
    CHECK(causes[0].field == "spec.runtimeVersions.sparkVersion");
  }
  json::object obj = Pi();
  obj["spec"].as_object().erase("runtimeVersions");
  auto causes = Get("1.0.0").Validate(obj, false, nullptr);
  REQUIRE(causes.size() == 1);
  CHECK(causes[0].field == "spec.runtimeVersions");
}

TEST_CASE("A value of the wrong type is FieldValueTypeInvalid", "[schema]") {
  json::object obj = Pi();
  At(obj, "spec/applicationTolerations/ttlAfterStopMillis") = "10000";
  At(obj, "spec/sparkConf/spark.executor.instances") = 3;
  At(obj, "spec/mainClass") = json::object{{"a", 1}};
  auto causes = Get("1.0.0").Validate(obj, false, nullptr);
  INFO(Describe(causes));
  REQUIRE(causes.size() == 3);
  std::map<std::string, FieldCause> by_field;
  for (const auto& c : causes) by_field[c.field] = c;
  const auto& ttl = by_field.at("spec.applicationTolerations.ttlAfterStopMillis");
  CHECK(ttl.reason == "FieldValueTypeInvalid");
  CHECK(ttl.message ==
        "Invalid value: \"string\": spec.applicationTolerations.ttlAfterStopMillis in body must "
        "be of type integer: \"string\"");
  // Map values of sparkConf are addressed with a dot, as the validator does.
  const auto& conf = by_field.at("spec.sparkConf.spark.executor.instances");
  CHECK(conf.message ==
        "Invalid value: \"integer\": spec.sparkConf.spark.executor.instances in body must be of "
        "type string: \"integer\"");
  CHECK(by_field.at("spec.mainClass").message ==
        "Invalid value: \"object\": spec.mainClass in body must be of type string: \"object\"");
}

TEST_CASE("An unsupported enum value lists the supported values in schema order", "[schema]") {
  json::object obj = Pi();
  At(obj, "spec/applicationTolerations/resourceRetainPolicy") = "Sometimes";
  At(obj, "spec/applicationTolerations/restartConfig/restartPolicy") = "Rarely";
  auto causes = Get("1.0.0").Validate(obj, false, nullptr);
  INFO(Describe(causes));
  REQUIRE(causes.size() == 2);
  std::map<std::string, FieldCause> by_field;
  for (const auto& c : causes) by_field[c.field] = c;
  const auto& retain = by_field.at("spec.applicationTolerations.resourceRetainPolicy");
  CHECK(retain.reason == "FieldValueNotSupported");
  CHECK(retain.message ==
        "Unsupported value: \"Sometimes\": supported values: \"Always\", \"Never\", \"OnFailure\"");
  CHECK(by_field.at("spec.applicationTolerations.restartConfig.restartPolicy").message ==
        "Unsupported value: \"Rarely\": supported values: \"Always\", \"Never\", \"OnFailure\", "
        "\"OnInfrastructureFailure\"");
}

TEST_CASE("Unknown fields are pruned, or reported and kept when strict", "[schema]") {
  auto make = [] {
    json::object obj = Pi();
    At(obj, "spec/foo") = "bar";
    At(obj, "spec/applicationTolerations/retry") = 3;
    At(obj, "spec/configMapSpecs") = json::array{json::object{{"name", "cm"}, {"extra", true}}};
    obj["topLevel"] = 1;
    return obj;
  };
  SECTION("pruned") {
    json::object obj = make();
    auto causes = Get("1.0.0").Validate(obj, false, nullptr);
    CHECK(causes.empty());
    CHECK_FALSE(obj.at("spec").as_object().contains("foo"));
    CHECK_FALSE(obj.at("spec").at("applicationTolerations").as_object().contains("retry"));
    CHECK_FALSE(obj.at("spec").at("configMapSpecs").at(0).as_object().contains("extra"));
    CHECK(obj.at("spec").at("configMapSpecs").at(0).at("name").as_string() == "cm");
    CHECK_FALSE(obj.contains("topLevel"));
    // apiVersion, kind and metadata belong to the API server and are never pruned.
    CHECK(obj.at("metadata").at("name").as_string() == "pi");
    CHECK(obj.at("kind").as_string() == "SparkApplication");
  }
  SECTION("strict") {
    json::object obj = make();
    std::vector<std::string> unknown;
    auto causes = Get("1.0.0").Validate(obj, true, &unknown);
    CHECK(causes.empty());
    std::sort(unknown.begin(), unknown.end());
    CHECK(unknown == std::vector<std::string>{"spec.applicationTolerations.retry",
                                              "spec.configMapSpecs[0].extra", "spec.foo",
                                              "topLevel"});
    CHECK(obj.at("spec").as_object().contains("foo"));
  }
}

TEST_CASE("Integers beyond int64 and fractions are not integers", "[schema]") {
  json::object ok = Pi();
  At(ok, "spec/applicationTolerations/ttlAfterStopMillis") = INT64_MAX;
  At(ok, "spec/applicationTolerations/resourceRetainDurationMillis") = 5.0;  // whole: accepted
  CHECK(Get("1.0.0").Validate(ok, false, nullptr).empty());

  json::object obj = Pi();
  At(obj, "spec/applicationTolerations/ttlAfterStopMillis") =
      json::parse("9223372036854775808");  // INT64_MAX + 1
  At(obj, "spec/applicationTolerations/resourceRetainDurationMillis") = 1.5;
  auto causes = Get("1.0.0").Validate(obj, false, nullptr);
  INFO(Describe(causes));
  REQUIRE(causes.size() == 2);
  for (const auto& c : causes) {
    CHECK(c.reason == "FieldValueTypeInvalid");
    CHECK(c.message ==
          "Invalid value: \"number\": " + c.field + " in body must be of type integer: \"number\"");
  }
}

TEST_CASE("Errors inside arrays carry the item index", "[schema]") {
  json::object obj = Pi();
  At(obj, "spec/driverArgs") = json::array{"ok", 7};
  At(obj, "spec/configMapSpecs") =
      json::array{json::object{{"name", "a"}}, json::object{{"data", json::object{{"k", "v"}}}}};
  auto causes = Get("1.0.0").Validate(obj, false, nullptr);
  INFO(Describe(causes));
  REQUIRE(causes.size() == 2);
  std::map<std::string, FieldCause> by_field;
  for (const auto& c : causes) by_field[c.field] = c;
  CHECK(by_field.at("spec.driverArgs[1]").message ==
        "Invalid value: \"integer\": spec.driverArgs[1] in body must be of type string: "
        "\"integer\"");
  CHECK(by_field.at("spec.configMapSpecs[1].name").reason == "FieldValueRequired");
}

TEST_CASE("Status is validated too: a bogus state is rejected", "[schema]") {
  json::object obj = Pi();
  At(obj, "status/currentState/currentStateSummary") = "Exploded";
  At(obj, "status/currentAttemptSummary/attemptInfo/id") = "zero";
  auto causes = Get("0.9.0").Validate(obj, false, nullptr);
  INFO(Describe(causes));
  REQUIRE(causes.size() == 2);
  std::map<std::string, FieldCause> by_field;
  for (const auto& c : causes) by_field[c.field] = c;
  CHECK(by_field.at("status.currentState.currentStateSummary").reason == "FieldValueNotSupported");
  CHECK(by_field.at("status.currentAttemptSummary.attemptInfo.id").reason ==
        "FieldValueTypeInvalid");
}

TEST_CASE("Nulls: non-nullable fields are dropped or defaulted, nullable ones kept", "[schema]") {
  json::object obj = Pi();
  At(obj, "spec/mainClass") = nullptr;
  At(obj, "spec/applicationTolerations/resourceRetainDurationMillis") = nullptr;
  CHECK(Get("1.0.0").Validate(obj, false, nullptr).empty());
  CHECK_FALSE(obj.at("spec").as_object().contains("mainClass"));
  CHECK(obj.at("spec").at("applicationTolerations").at("resourceRetainDurationMillis").as_int64() ==
        -1);

  // kubeflow's status.terminationTime is nullable.
  json::object kf = LoadYaml(kRoot + "/kubeflow-spark-operator/examples/spark-pi.yaml");
  At(kf, "status/terminationTime") = nullptr;
  At(kf, "status/driverInfo") = json::object();
  auto causes = Get("kubeflow").Validate(kf, false, nullptr);
  INFO(Describe(causes));
  CHECK(causes.empty());
  CHECK(kf.at("status").as_object().contains("terminationTime"));
  CHECK(kf.at("status").at("terminationTime").is_null());
  // A null inside an array is not pruned: it fails the item type.
  json::object obj2 = Pi();
  At(obj2, "spec/driverArgs") = json::array{nullptr};
  causes = Get("1.0.0").Validate(obj2, false, nullptr);
  REQUIRE(causes.size() == 1);
  CHECK(causes[0].message ==
        "Invalid value: \"null\": spec.driverArgs[0] in body must be of type string: \"null\"");
}

TEST_CASE("int-or-string accepts integers and strings only", "[schema]") {
  json::object obj = Pi();
  json::value& limits = At(obj, "spec/driverSpec/podTemplateSpec/spec/containers");
  limits = json::array{json::object{
      {"name", "c"},
      {"resources", json::object{{"limits", json::object{{"cpu", 2}, {"memory", "1Gi"}}},
                                 {"requests", json::object{{"cpu", true}}}}}}};
  auto causes = Get("1.0.0").Validate(obj, false, nullptr);
  INFO(Describe(causes));
  REQUIRE(causes.size() == 2);
  const std::string path =
      "spec.driverSpec.podTemplateSpec.spec.containers[0].resources.requests.cpu";
  CHECK(causes[0].field == path);
  CHECK(causes[0].message ==
        "Invalid value: \"\": \"" + path + "\" must validate at least one schema (anyOf)");
  CHECK(causes[1].reason == "FieldValueTypeInvalid");
  CHECK(causes[1].message ==
        "Invalid value: \"boolean\": " + path + " in body must be of type integer: \"boolean\"");
}

std::unique_ptr<Schema> CompileText(const std::string& text) {
  std::string error;
  auto schema = Schema::Compile(json::parse(text), &error);
  INFO(error);
  REQUIRE(schema != nullptr);
  return schema;
}

TEST_CASE("Value constraints: min/max, lengths, pattern, items, sets", "[schema]") {
  auto schema = CompileText(R"({"type": "object", "properties": {"spec": {"type": "object",
    "properties": {
      "replicas": {"type": "integer", "minimum": 1, "maximum": 5},
      "ratio": {"type": "number", "maximum": 1, "exclusiveMaximum": true},
      "name": {"type": "string", "maxLength": 3, "minLength": 2},
      "code": {"type": "string", "pattern": "^[a-z]+$"},
      "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"},
               "x-kubernetes-list-type": "set"},
      "ports": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["port"],
                "items": {"type": "object", "properties": {"port": {"type": "integer"}}}}}}}})");
  json::object ok = json::parse(R"({"spec": {"replicas": 3, "ratio": 0.5, "name": "abc",
      "code": "xyz", "tags": ["a", "b"], "ports": [{"port": 1}, {"port": 2}]}})")
                        .as_object();
  CHECK(schema->Validate(ok, false, nullptr).empty());

  json::object bad = json::parse(R"({"spec": {"replicas": 9, "ratio": 1, "name": "abcd",
      "code": "X1", "tags": ["a", "a", "b"], "ports": [{"port": 1}, {"port": 1}]}})")
                         .as_object();
  auto causes = schema->Validate(bad, false, nullptr);
  INFO(Describe(causes));
  std::map<std::string, std::vector<FieldCause>> by_field;
  for (const auto& c : causes) by_field[c.field].push_back(c);
  CHECK(by_field.at("spec.replicas")[0].message ==
        "Invalid value: 9: spec.replicas in body should be less than or equal to 5");
  CHECK(by_field.at("spec.ratio")[0].message ==
        "Invalid value: 1: spec.ratio in body should be less than 1");
  CHECK(by_field.at("spec.name")[0].reason == "FieldValueTooLong");
  CHECK(by_field.at("spec.name")[0].message == "Too long: may not be more than 3 bytes");
  CHECK(by_field.at("spec.code")[0].message ==
        "Invalid value: \"X1\": spec.code in body should match '^[a-z]+$'");
  CHECK(by_field.at("spec.tags")[0].reason == "FieldValueTooMany");
  CHECK(by_field.at("spec.tags[1]")[0].reason == "FieldValueDuplicate");
  CHECK(by_field.at("spec.ports[1]")[0].reason == "FieldValueDuplicate");
  CHECK(causes.size() == 7);
}

TEST_CASE("Maps, preserve-unknown-fields and nullable in a hand-written schema", "[schema]") {
  auto schema = CompileText(R"({"type": "object", "properties": {
    "spec": {"type": "object", "properties": {
      "labels": {"type": "object", "additionalProperties": {"type": "string"}},
      "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
               "properties": {"known": {"type": "integer"}}},
      "maybe": {"type": "string", "nullable": true}}}}})");
  json::object obj = json::parse(R"({"spec": {"labels": {"a": "x", "b": 2},
      "free": {"anything": {"deep": [1]}, "known": "no"}, "maybe": null, "gone": 1}})")
                         .as_object();
  auto causes = schema->Validate(obj, false, nullptr);
  INFO(Describe(causes));
  REQUIRE(causes.size() == 2);
  std::sort(causes.begin(), causes.end(),
            [](const FieldCause& a, const FieldCause& b) { return a.field < b.field; });
  CHECK(causes[0].field == "spec.free.known");
  CHECK(causes[1].field == "spec.labels.b");
  const auto& spec = obj.at("spec").as_object();
  CHECK(spec.at("free").at("anything").at("deep").at(0).as_int64() == 1);
  CHECK(spec.at("maybe").is_null());
  CHECK_FALSE(spec.contains("gone"));
}

TEST_CASE("Compile rejects schemas it can't use", "[schema]") {
  std::string error;
  CHECK(Schema::Compile(json::parse(R"({"type": "array"})"), &error) == nullptr);
  CHECK(Schema::Compile(json::parse(R"({"properties": {"a": {"$ref": "#/x"}}})"), &error) ==
        nullptr);
  CHECK(error.find("$ref") != std::string::npos);
  CHECK(Schema::Compile(json::parse(R"({"properties": {"a": {"items": [{}]}}})"), &error) ==
        nullptr);
  CHECK(Schema::Compile(json::parse("[]"), &error) == nullptr);
}

}  // namespace
}  // namespace kubesim

namespace kubesim {
namespace {

// Every leaf and container of `v`, as (path, pointer) pairs, in the validator's path syntax.
void CollectPaths(json::value& v, const std::string& path,
                  std::vector<std::pair<std::string, json::value*>>* out) {
  if (!path.empty()) out->emplace_back(path, &v);
  if (v.is_object()) {
    for (auto& kv : v.as_object()) {
      std::string key(kv.key());
      CollectPaths(kv.value(), path.empty() ? key : path + "." + key, out);
    }
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.as_array().size(); ++i) {
      CollectPaths(v.as_array()[i], path + "[" + std::to_string(i) + "]", out);
    }
  }
}

TEST_CASE("Any value swapped anywhere gives causes at or under that path only", "[schema]") {
  std::ifstream in(std::string(KUBESIM_SCHEMA_TESTDATA) +
                   "/synthetic/04-restart-onfailure-trimmed-history.json");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const json::object base = json::parse(text.str()).as_object();
  const std::vector<json::value> replacements = {nullptr,
                                                 json::value(7),
                                                 json::value("x"),
                                                 json::value(true),
                                                 json::array{json::value(1)},
                                                 json::object{{"k", "v"}}};
  int mutations = 0;
  int rejected = 0;
  json::value probe = base;
  std::vector<std::pair<std::string, json::value*>> paths;
  CollectPaths(probe, "", &paths);
  for (size_t p = 0; p < paths.size(); ++p) {
    const std::string& path = paths[p].first;
    if (path.starts_with("metadata") || path == "apiVersion" || path == "kind") continue;
    for (const auto& replacement : replacements) {
      json::value copy = base;
      std::vector<std::pair<std::string, json::value*>> copy_paths;
      CollectPaths(copy, "", &copy_paths);
      *copy_paths[p].second = replacement;
      std::vector<std::string> unknown;
      auto causes = Get("1.0.0").Validate(copy.as_object(), true, &unknown);
      ++mutations;
      rejected += !causes.empty();
      for (const auto& c : causes) {
        INFO(path << " := " << json::serialize(replacement) << ": " << Describe(causes));
        // The cause names the swapped field, something inside it, or (for a dropped required
        // field) its parent's requirement.
        bool inside =
            c.field == path || c.field.starts_with(path + ".") || c.field.starts_with(path + "[");
        bool required = c.reason == "FieldValueRequired" && c.field == path;
        CHECK((inside || required));
      }
    }
  }
  CHECK(mutations > 1000);
  CHECK(rejected > mutations / 2);  // the schema is typed nearly everywhere
}

}  // namespace
}  // namespace kubesim
