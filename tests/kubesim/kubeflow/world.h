#pragma once

// A tiny world for driving kubeflow::Reconcile in tests: one v1beta2 SparkApplication, its pods
// and their logs, kept as local copies to which the returned actions are applied, with an
// injected clock. Every status written is validated against the real v2.5.2 CRD schema, and
// deleting a pod collects its dependents as the API server's garbage collector would.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kubesim/kubeflow/kubeflow.h"
#include "kubesim/schema/crd.h"
#include "kubesim/schema/schema.h"

namespace kubesim::kubeflow::testing {

namespace json = boost::json;

inline const std::string kCrdRoot = KUBESIM_CRD_ROOT;
// 2026-05-12T10:00:00Z
inline constexpr int64_t kStartMs = 1778580000000;

inline std::shared_ptr<const Schema> KubeflowSchema() {
  static const std::shared_ptr<const Schema> schema = [] {
    std::string error;
    auto crds = LoadCrdFile(
        kCrdRoot + "/kubeflow-spark-operator/v2.5.2/sparkoperator.k8s.io_sparkapplications.yaml",
        &error);
    INFO(error);
    REQUIRE(crds.size() == 1);
    return crds[0].versions.at(0).schema;
  }();
  return schema;
}

inline json::object ExampleApp(const std::string& example = "spark-pi.yaml") {
  return YamlToJson(YAML::LoadFile(kCrdRoot + "/kubeflow-spark-operator/examples/" + example))
      .as_object();
}

inline json::object& Spec(json::object& app) { return app["spec"].as_object(); }

inline void SetConf(json::object& app, const std::string& key, const std::string& value) {
  json::value& conf = Spec(app)["sparkConf"];
  if (!conf.is_object()) conf = json::object();
  conf.as_object()[key] = value;
}

inline std::string Str(const json::value& v) { return std::string(v.as_string()); }

class World {
 public:
  explicit World(json::object app, Options options = {}) : app_(std::move(app)), options_(options) {
    json::object& meta = app_["metadata"].as_object();
    meta["namespace"] = "spark";
    meta["uid"] = "5a1e7c3e-0000-4000-8000-000000000001";
    meta["creationTimestamp"] = "2026-05-12T10:00:00Z";
  }

  // One Reconcile at the current time, its actions applied.
  sim::Actions Reconcile() {
    REQUIRE(exists_);
    sim::AppView view;
    view.app = &app_;
    view.now_ms = now_;
    for (const auto& [name, pod] : pods_) view.pods.push_back(&pod);
    sim::Actions actions = kubeflow::Reconcile(view, options_);
    // Pure: the same inputs give the same answer.
    CHECK(Describe(kubeflow::Reconcile(view, options_)) == Describe(actions));
    Apply(actions);
    return actions;
  }

  // Reconciles at each requested requeue time (and again at once after a change, as a watch
  // event would) until nothing more is asked for or `max_ms` has passed.
  void Run(int64_t max_ms = 3600 * 1000) {
    const int64_t deadline = now_ + max_ms;
    for (int i = 0; i < 3000 && exists_; ++i) {
      sim::Actions a = Reconcile();
      if (!a.requeue_at_ms) {
        if (Changed(a)) continue;
        return;
      }
      if (*a.requeue_at_ms <= now_) REQUIRE(Changed(a));
      if (*a.requeue_at_ms > deadline) return;
      now_ = std::max(now_, *a.requeue_at_ms);
    }
  }

  void RunUntilState(const std::string& state, int64_t max_ms = 3600 * 1000) {
    const int64_t deadline = now_ + max_ms;
    for (int i = 0; i < 3000 && exists_; ++i) {
      if (State() == state && app_.contains("status")) return;
      sim::Actions a = Reconcile();
      if (State() == state) return;
      if (!a.requeue_at_ms) {
        REQUIRE(Changed(a));
        continue;
      }
      REQUIRE(*a.requeue_at_ms <= deadline);
      now_ = std::max(now_, *a.requeue_at_ms);
    }
    FAIL("never reached " << state);
  }

  // Deletes a pod as a client would: its dependents whose every owner is gone go too.
  void DeletePod(const std::string& name) {
    auto it = pods_.find(name);
    if (it == pods_.end()) return;
    std::string uid = Str(it->second.at("metadata").at("uid"));
    deleted_pods_[name] = it->second;
    pods_.erase(it);
    std::vector<std::string> orphans;
    for (auto& [other, pod] : pods_) {
      json::object& meta = pod["metadata"].as_object();
      json::array& refs = meta["ownerReferences"].as_array();
      auto gone = std::remove_if(refs.begin(), refs.end(),
                                 [&](const json::value& r) { return Str(r.at("uid")) == uid; });
      if (gone == refs.end()) continue;
      refs.erase(gone, refs.end());
      if (refs.empty()) orphans.push_back(other);
    }
    for (const std::string& o : orphans) DeletePod(o);
  }

  // A pod from elsewhere, e.g. one still terminating.
  void AddPod(json::object pod) {
    std::string name = Str(pod.at("metadata").at("name"));
    pods_[name] = std::move(pod);
  }

  void SetPodPhase(const std::string& name, const std::string& phase) {
    pods_.at(name)["status"].as_object()["phase"] = phase;
  }

  void MarkDeleted() { app_["metadata"].as_object()["deletionTimestamp"] = "2026-05-12T12:00:00Z"; }

  std::string State() const {
    const json::value* s = app_.if_contains("status");
    return s == nullptr ? "" : Str(s->at("applicationState").at("state"));
  }
  const json::object& Status() const { return app_.at("status").as_object(); }
  // Every state written, in order (repeats collapsed).
  const std::vector<std::string>& states() const { return states_; }
  // The reasons of the events about `name` (default: the application), in order.
  std::vector<std::string> EventReasons(const std::string& name = "") const {
    std::vector<std::string> out;
    for (const auto& e : events_) {
      const json::object& involved = e.at("involvedObject").as_object();
      bool match = name.empty() ? involved.at("kind") == "SparkApplication"
                                : involved.at("name").as_string() == name;
      if (match) out.push_back(Str(e.at("reason")));
    }
    return out;
  }
  const std::vector<json::object>& events() const { return events_; }
  std::string Log(const std::string& pod, const std::string& container) const {
    auto it = logs_.find(pod + "/" + container);
    return it == logs_.end() ? "" : it->second;
  }
  void Advance(int64_t ms) { now_ += ms; }
  int64_t now() const { return now_; }
  bool exists() const { return exists_; }
  json::object& app() { return app_; }
  const std::map<std::string, json::object>& pods() const { return pods_; }
  const std::map<std::string, json::object>& deleted_pods() const { return deleted_pods_; }
  std::vector<std::string> PodsWithRole(const std::string& role) const {
    std::vector<std::string> out;
    for (const auto& [name, pod] : pods_) {
      if (pod.at("metadata").at("labels").at("spark-role") == role.c_str()) out.push_back(name);
    }
    return out;
  }

  static std::string Describe(const sim::Actions& a) {
    json::object o;
    if (a.status) o["status"] = *a.status;
    o["create_pods"] = json::value_from(a.create_pods);
    json::array ps;
    for (const auto& p : a.pod_status)
      ps.push_back(json::object{{"name", p.name}, {"s", p.status}});
    o["pod_status"] = std::move(ps);
    o["delete_pods"] = json::value_from(a.delete_pods);
    json::array logs;
    for (const auto& l : a.logs) logs.push_back(json::array{l.pod.c_str(), l.text.c_str()});
    o["logs"] = std::move(logs);
    o["events"] = json::value_from(a.events);
    json::object ann;
    for (const auto& [k, v] : a.set_annotations) ann[k] = v;
    o["annotations"] = std::move(ann);
    o["delete_app"] = a.delete_app;
    if (a.requeue_at_ms) o["requeue_at_ms"] = *a.requeue_at_ms;
    return json::serialize(o);
  }

 private:
  static bool Changed(const sim::Actions& a) {
    return a.status || !a.create_pods.empty() || !a.pod_status.empty() || !a.delete_pods.empty() ||
           !a.logs.empty() || a.delete_app || !a.set_annotations.empty();
  }

  void Apply(const sim::Actions& a) {
    for (const auto& l : a.logs) {
      REQUIRE(pods_.contains(l.pod));
      logs_[l.pod + "/" + l.container] += l.text;
    }
    if (a.status) {
      json::object copy = app_;
      copy["status"] = *a.status;
      std::vector<std::string> unknown;
      auto causes = KubeflowSchema()->Validate(copy, /*strict=*/true, &unknown);
      INFO(json::serialize(*a.status));
      CHECK(causes.empty());
      CHECK(unknown.empty());
      app_["status"] = *a.status;
      std::string state = State();
      if (states_.empty() || states_.back() != state) states_.push_back(state);
    }
    json::object& meta = app_["metadata"].as_object();
    for (const auto& [k, v] : a.set_annotations) {
      json::value& ann = meta["annotations"];
      if (!ann.is_object()) ann = json::object();
      ann.as_object()[k] = v;
    }
    for (const auto& pod : a.create_pods) {
      std::string name = Str(pod.at("metadata").at("name"));
      if (pods_.contains(name)) continue;  // AlreadyExists
      json::object p = pod;
      p["metadata"].as_object()["uid"] = "pod-uid-" + name;
      pods_[name] = std::move(p);
    }
    for (const auto& update : a.pod_status) {
      auto it = pods_.find(update.name);
      if (it != pods_.end()) it->second["status"] = update.status;
    }
    for (const auto& event : a.events) {
      std::string name = Str(event.at("metadata").at("name"));
      if (std::find(event_names_.begin(), event_names_.end(), name) != event_names_.end()) continue;
      event_names_.push_back(name);
      events_.push_back(event);
    }
    for (const auto& name : a.delete_pods) DeletePod(name);
    if (a.delete_app) exists_ = false;
  }

  json::object app_;
  Options options_;
  int64_t now_ = kStartMs;
  bool exists_ = true;
  std::map<std::string, json::object> pods_;
  std::map<std::string, json::object> deleted_pods_;
  std::map<std::string, std::string> logs_;
  std::vector<json::object> events_;
  std::vector<std::string> event_names_;
  std::vector<std::string> states_;
};

}  // namespace kubesim::kubeflow::testing
