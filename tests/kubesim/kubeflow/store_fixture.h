#pragma once

// The Kubeflow operator's controller over a memory store with the real v2.5.2 CRD, on an
// injected clock, for the tests that go through the store.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kubesim/kubeflow/controller.h"
#include "kubesim/schema/crd.h"
#include "kubesim/store/core_types.h"

namespace kubesim::kubeflow {

namespace json = boost::json;

inline constexpr int64_t kStartMs = 1764552000000;  // 2025-12-01T01:20:00Z
inline const std::string kCrdRoot = KUBESIM_CRD_ROOT;

struct Fixture {
  int64_t now = kStartMs;
  std::unique_ptr<Store> store = NewMemoryStore([this] { return now; });
  ResourceType app_type;

  Fixture() {
    for (const ResourceType& t : CoreTypes()) store->RegisterType(t);
    std::string error;
    auto crds = LoadCrdFile(
        kCrdRoot + "/kubeflow-spark-operator/v2.5.2/sparkoperator.k8s.io_sparkapplications.yaml",
        &error);
    REQUIRE(crds.size() == 1);
    const Crd& crd = crds[0];
    app_type.group = crd.group;
    app_type.version = "v1beta2";
    app_type.plural = crd.plural;
    app_type.singular = crd.singular;
    app_type.kind = crd.kind;
    app_type.list_kind = crd.list_kind;
    app_type.status_subresource = true;
    std::shared_ptr<const Schema> schema = crd.versions.at(0).schema;
    app_type.validator = [schema](json::object& obj, bool strict, std::vector<std::string>* u) {
      return schema->Validate(obj, strict, u);
    };
    store->RegisterType(app_type);
    REQUIRE(store->Create(NamespaceType(), "", {{"metadata", {{"name", "jobs"}}}}, {}).ok());
  }

  json::object Example() {
    json::object app =
        YamlToJson(YAML::LoadFile(kCrdRoot + "/kubeflow-spark-operator/examples/spark-pi.yaml"))
            .as_object();
    app["metadata"].as_object()["namespace"] = "jobs";
    return app;
  }

  std::string State() {
    auto got = store->Get(app_type, "jobs", "spark-pi");
    if (!got.ok()) return "<gone>";
    const json::value* s = got.value().if_contains("status");
    return s == nullptr ? "<none>" : std::string(s->at("applicationState").at("state").as_string());
  }

  std::vector<std::string> Pods(const std::string& selector = "") {
    ListOptions options;
    options.label_selector = selector;
    auto list = store->List(PodType(), "jobs", options);
    REQUIRE(list.ok());
    std::vector<std::string> out;
    for (const json::value& p : list.value().at("items").as_array()) {
      out.emplace_back(p.at("metadata").at("name").as_string());
    }
    return out;
  }

  // The events about `involved` (kubectl's field selector), in the order they were recorded.
  std::vector<json::object> EventsOf(const std::string& involved) {
    ListOptions options;
    options.field_selector = "involvedObject.name=" + involved;
    auto list = store->List(*store->FindType("", "v1", "events"), "jobs", options);
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

  // Runs the controller on a 50 ms clock until `until` holds, collecting the states seen.
  std::vector<std::string> RunUntil(Controller& c, const std::function<bool()>& until) {
    std::vector<std::string> states;
    for (int i = 0; i < 2000 && !until(); ++i) {
      c.RunOnce();
      std::string s = State();
      if (states.empty() || states.back() != s) states.push_back(s);
      now += 50;
    }
    REQUIRE(until());
    return states;
  }
};

}  // namespace kubesim::kubeflow
