#pragma once

// The Apache operator's controller over a memory store with the real 1.0.0 CRD, on an injected
// clock, for the tests that go through the store.

#include <algorithm>
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "kubesim/controller/controller.h"
#include "kubesim/schema/crd.h"
#include "kubesim/store/core_types.h"

namespace kubesim {

namespace json = boost::json;

inline constexpr int64_t kStartMs = 1764552000000;  // 2025-12-01T01:20:00Z

inline ResourceType SparkType() {
  ResourceType t;
  t.group = "spark.apache.org";
  t.version = "v1";
  t.plural = "sparkapplications";
  t.singular = "sparkapplication";
  t.kind = "SparkApplication";
  t.list_kind = "SparkApplicationList";
  t.status_subresource = true;
  return t;
}

// The real operator over the real CRD, for the events a job leaves behind.
struct OperatorWorld {
  int64_t now = kStartMs;
  std::unique_ptr<Store> store = NewMemoryStore([this] { return now; });
  ResourceType spark = SparkType();
  std::unique_ptr<Controller> controller;

  explicit OperatorWorld(op::Options options = {}) {
    for (const ResourceType& t : CoreTypes()) store->RegisterType(t);
    std::string error;
    auto crds =
        LoadCrdFile(std::string(KUBESIM_CRD_ROOT) +
                        "/apache-spark-operator/1.0.0/sparkapplications.spark.apache.org-v1.yaml",
                    &error);
    REQUIRE(crds.size() == 1);
    for (const CrdVersion& v : crds[0].versions) {
      if (v.name != "v1") continue;
      std::shared_ptr<const Schema> schema = v.schema;
      spark.validator = [schema](json::object& obj, bool strict, std::vector<std::string>* u) {
        return schema->Validate(obj, strict, u);
      };
    }
    store->RegisterType(spark);
    controller = NewController(*store, spark, {"default"}, options, [this] { return now; });
  }

  // With `conf` added to the sparkConf and `tolerations` as spec.applicationTolerations.
  void Create(const std::string& outcome, const json::object& conf,
              const json::object& tolerations = {}) {
    json::object app = json::parse(R"({
      "apiVersion": "spark.apache.org/v1", "kind": "SparkApplication",
      "metadata": {"name": "pi"},
      "spec": {
        "mainClass": "org.apache.spark.examples.SparkPi",
        "jars": "local:///opt/spark/examples/jars/spark-examples.jar",
        "sparkConf": {
          "spark.kubernetes.authenticate.driver.serviceAccountName": "spark",
          "spark.kubernetes.container.image": "apache/spark:{{SPARK_VERSION}}-scala"},
        "runtimeVersions": {"sparkVersion": "4.1.1"}}})")
                           .as_object();
    if (!outcome.empty()) {
      app["spec"].as_object()["sparkConf"].as_object()["kubesim.outcome"] = outcome;
    }
    for (const auto& kv : conf)
      app["spec"].as_object()["sparkConf"].as_object()[kv.key()] = kv.value();
    if (!tolerations.empty()) app["spec"].as_object()["applicationTolerations"] = tolerations;
    REQUIRE(store->Create(spark, "default", app, {}).ok());
  }
  void Create(const std::string& outcome) { Create(outcome, json::object()); }

  std::string State() {
    auto got = store->Get(spark, "default", "pi");
    if (!got.ok() || !got.value().contains("status")) return "";
    return std::string(
        got.value().at("status").at("currentState").at("currentStateSummary").as_string());
  }

  void RunUntil(const std::string& state) {
    for (int i = 0; i < 2000 && State() != state; ++i, now += 100) controller->RunOnce();
    REQUIRE(State() == state);
  }

  std::vector<json::object> EventsOf(const std::string& involved) {
    ListOptions options;
    options.field_selector = "involvedObject.name=" + involved;
    auto list = store->List(*store->FindType("", "v1", "events"), "default", options);
    REQUIRE(list.ok());
    std::vector<json::object> out;
    for (const json::value& e : list.value().at("items").as_array()) out.push_back(e.as_object());
    auto rv = [](const json::object& e) {
      return std::stoll(std::string(e.at("metadata").at("resourceVersion").as_string()));
    };
    std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return rv(a) < rv(b); });
    return out;
  }

  std::vector<std::string> ReasonsOf(const std::string& involved) {
    std::vector<std::string> out;
    for (const json::object& e : EventsOf(involved)) out.emplace_back(e.at("reason").as_string());
    return out;
  }
};

}  // namespace kubesim
