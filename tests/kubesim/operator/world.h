#pragma once

// A tiny world for driving op::Reconcile in tests: one SparkApplication, its pods and their
// logs, kept as local copies to which the returned actions are applied, with an injected clock.
// Every status the operator writes is validated against the real CRD schemas.

#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kubesim/operator/operator.h"
#include "kubesim/schema/crd.h"
#include "kubesim/schema/crd_overlay.h"
#include "kubesim/schema/schema.h"

namespace kubesim::testing {

namespace json = boost::json;

inline const std::string kCrdRoot = KUBESIM_CRD_ROOT;
inline constexpr const char* kFinalizer = "sparkapplications.spark.apache.org/finalizer";
// 2026-05-12T10:00:00Z
inline constexpr int64_t kStartMs = 1778580000000;

inline std::vector<std::shared_ptr<const Schema>> ApacheSchemas() {
  static const std::vector<std::shared_ptr<const Schema>> schemas = [] {
    std::vector<std::shared_ptr<const Schema>> out;
    // The v1 status schema is the same in 0.9.0 and 1.0.0 (the schema tests check the samples
    // against both); one keeps each test process quick.
    for (const char* version : {"1.0.0"}) {
      std::string error;
      auto crds = LoadCrdFile(kCrdRoot + "/apache-spark-operator/" + version +
                                  "/sparkapplications.spark.apache.org-v1.yaml",
                              &error);
      for (const auto& crd : crds) {
        for (const auto& v : crd.versions) {
          if (v.name == "v1") out.push_back(v.schema);
        }
      }
    }
    return out;
  }();
  return schemas;
}

// The v1 schema of operator 1.1: the 1.0.0 CRD with crds/apache-spark-operator/1.1.0-overlay.
inline std::vector<std::shared_ptr<const Schema>> Apache11Schemas() {
  static const std::vector<std::shared_ptr<const Schema>> schemas = [] {
    std::vector<std::shared_ptr<const Schema>> out;
    std::string error;
    auto crds = LoadCrdFile(
        kCrdRoot + "/apache-spark-operator/1.0.0/sparkapplications.spark.apache.org-v1.yaml",
        &error);
    bool applied = ApplyCrdOverlayFile(
        kCrdRoot + "/apache-spark-operator/1.1.0-overlay/sparkapplications-v1-overlay.yaml", &crds,
        &error);
    INFO(error);
    REQUIRE(applied);
    for (const auto& crd : crds) {
      for (const auto& v : crd.versions) {
        if (v.name == "v1") out.push_back(v.schema);
      }
    }
    return out;
  }();
  return schemas;
}

inline json::object LoadApp(const std::string& path) {
  return YamlToJson(YAML::LoadFile(path)).as_object();
}

inline json::object ExampleApp(const std::string& example) {
  return LoadApp(kCrdRoot + "/apache-spark-operator/examples/" + example);
}

// Sets a sparkConf entry.
inline void SetConf(json::object& app, const std::string& key, const std::string& value) {
  json::value& conf = app["spec"].as_object()["sparkConf"];
  if (!conf.is_object()) conf = json::object();
  conf.as_object()[key] = value;
}

inline json::object& Tolerations(json::object& app) {
  json::value& t = app["spec"].as_object()["applicationTolerations"];
  if (!t.is_object()) t = json::object();
  return t.as_object();
}

struct Step {
  int64_t now_ms;
  op::Actions actions;
};

class World {
 public:
  World(json::object app, double time_scale = 1.0, std::string uid = "") : app_(std::move(app)) {
    options_.time_scale = time_scale;
    json::object& meta = app_["metadata"].as_object();
    if (!meta.contains("namespace")) meta["namespace"] = "default";
    meta["uid"] = uid.empty() ? "7d6f2c3e-0000-4000-8000-000000000002" : uid;
    meta["creationTimestamp"] = "2026-05-12T10:00:00Z";
    meta["generation"] = 1;
  }

  // One Reconcile at the current time, its actions applied.
  op::Actions Reconcile() {
    REQUIRE(exists_);
    op::AppView view;
    view.app = &app_;
    view.now_ms = now_;
    for (const auto& [name, pod] : pods_) view.pods.push_back(&pod);
    op::Actions actions = op::Reconcile(view, options_);
    // Pure: the same inputs give the same answer.
    op::Actions again = op::Reconcile(view, options_);
    CHECK(Describe(again) == Describe(actions));
    Apply(actions);
    steps_.push_back({now_, actions});
    return actions;
  }

  // Reconciles, moving the clock to each requested requeue time (and again at once after a change,
  // as a watch event would), until the operator has nothing more to do or `max_ms` of wall time
  // has passed. A requeue that is already due must come
  // with progress, or the operator would spin.
  void Run(int64_t max_ms = 24LL * 3600 * 1000) {
    const int64_t deadline = now_ + max_ms;
    for (int i = 0; i < 2000 && exists_; ++i) {
      op::Actions a = Reconcile();
      if (!a.requeue_at_ms) {
        // A change to the application is a watch event: the controller reconciles again.
        if (Changed(a)) continue;
        return;
      }
      if (*a.requeue_at_ms <= now_) {
        INFO("requeue now without progress at " << now_ << ": " << Describe(a));
        REQUIRE(Changed(a));
      }
      if (*a.requeue_at_ms > deadline) return;
      now_ = std::max(now_, *a.requeue_at_ms);
    }
  }

  // Runs until the current state is `state` (or fails).
  void RunUntilState(const std::string& state, int64_t max_ms = 24LL * 3600 * 1000) {
    const int64_t deadline = now_ + max_ms;
    for (int i = 0; i < 2000 && exists_; ++i) {
      if (CurrentState() == state) return;
      op::Actions a = Reconcile();
      if (CurrentState() == state) return;
      REQUIRE(a.requeue_at_ms);
      REQUIRE(*a.requeue_at_ms <= deadline);
      now_ = std::max(now_, *a.requeue_at_ms);
    }
    FAIL("never reached " << state);
  }

  void MarkDeleted() {
    json::object& meta = app_["metadata"].as_object();
    if (Finalizers().empty()) {
      exists_ = false;
      return;
    }
    meta["deletionTimestamp"] = "2026-05-12T12:00:00Z";
    meta["deletionGracePeriodSeconds"] = 0;
  }

  void DeletePod(const std::string& name) {
    auto it = pods_.find(name);
    REQUIRE(it != pods_.end());
    deleted_pods_[name] = it->second;
    pods_.erase(it);
  }

  void SetVersion(op::OperatorVersion version) { options_.version = version; }
  const std::vector<json::object>& events() const { return events_; }
  // The log of one container of a pod.
  std::string Log(const std::string& pod, const std::string& container) const {
    auto it = container_logs_.find(pod + "/" + container);
    return it == container_logs_.end() ? "" : it->second;
  }
  void Advance(int64_t ms) { now_ += ms; }
  void SetNow(int64_t ms) { now_ = ms; }
  int64_t now() const { return now_; }
  bool exists() const { return exists_; }
  const json::object& app() const { return app_; }
  json::object& mutable_app() { return app_; }
  const std::map<std::string, json::object>& pods() const { return pods_; }
  const std::map<std::string, json::object>& deleted_pods() const { return deleted_pods_; }
  const std::vector<std::string>& created_pods() const { return created_; }
  const std::vector<Step>& steps() const { return steps_; }
  std::string Log(const std::string& pod) const {
    auto it = logs_.find(pod);
    return it == logs_.end() ? "" : it->second;
  }
  int app_delete_requests() const { return app_delete_requests_; }

  std::vector<std::string> Finalizers() const {
    std::vector<std::string> out;
    const json::object& meta = app_.at("metadata").as_object();
    if (const json::value* f = meta.if_contains("finalizers")) {
      for (const auto& item : f->as_array()) out.emplace_back(item.as_string());
    }
    return out;
  }

  const json::object& Status() const { return app_.at("status").as_object(); }

  std::string CurrentState() const {
    const json::value* s = app_.if_contains("status");
    if (s == nullptr) return "";
    return std::string(s->at("currentState").at("currentStateSummary").as_string());
  }

  // The whole state sequence across attempts (previous attempt's trimmed history first).
  std::vector<std::string> States() const {
    std::vector<std::string> out;
    for (const auto& [k, e] : AllEntries())
      out.emplace_back(e.at("currentStateSummary").as_string());
    return out;
  }

  static std::vector<std::pair<int64_t, json::object>> Entries(const json::value* history) {
    std::vector<std::pair<int64_t, json::object>> out;
    if (history == nullptr) return out;
    for (const auto& kv : history->as_object()) {
      out.emplace_back(std::stoll(std::string(kv.key())), kv.value().as_object());
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
  }

  std::vector<std::pair<int64_t, json::object>> AllEntries() const {
    std::vector<std::pair<int64_t, json::object>> out;
    const json::value* s = app_.if_contains("status");
    if (s == nullptr) return out;
    const json::object& status = s->as_object();
    if (const json::value* prev = status.if_contains("previousAttemptSummary")) {
      out = Entries(prev->as_object().if_contains("stateTransitionHistory"));
    }
    auto main = Entries(status.if_contains("stateTransitionHistory"));
    out.insert(out.end(), main.begin(), main.end());
    return out;
  }

  static std::string Describe(const op::Actions& a) {
    json::object o;
    o["add_finalizer"] = a.add_finalizer;
    o["remove_finalizer"] = a.remove_finalizer;
    if (a.status) o["status"] = *a.status;
    o["create_pods"] = json::value_from(a.create_pods);
    json::array ps;
    for (const auto& p : a.pod_status)
      ps.push_back(json::object{{"name", p.name}, {"status", p.status}});
    o["pod_status"] = std::move(ps);
    o["delete_pods"] = json::value_from(a.delete_pods);
    json::array logs;
    for (const auto& l : a.logs)
      logs.push_back(json::array{l.pod.c_str(), l.container.c_str(), l.text.c_str()});
    o["logs"] = std::move(logs);
    o["events"] = json::value_from(a.events);
    o["delete_app"] = a.delete_app;
    if (a.requeue_at_ms) o["requeue_at_ms"] = *a.requeue_at_ms;
    return json::serialize(o);
  }

 private:
  bool Changed(const op::Actions& a) const {
    return a.add_finalizer || a.remove_finalizer || a.status || !a.create_pods.empty() ||
           !a.pod_status.empty() || !a.delete_pods.empty() || !a.logs.empty() || a.delete_app;
  }

  void Apply(const op::Actions& a) {
    json::object& meta = app_["metadata"].as_object();
    if (a.add_finalizer) {
      json::value& f = meta["finalizers"];
      if (!f.is_array()) f = json::array();
      f.as_array().push_back(json::string(kFinalizer));
    }
    if (a.status) {
      // The API server validates the status subresource write against the schema.
      for (const auto& schema :
           options_.version == op::OperatorVersion::k1_1 ? Apache11Schemas() : ApacheSchemas()) {
        json::object copy = app_;
        copy["status"] = *a.status;
        std::vector<std::string> unknown;
        auto causes = schema->Validate(copy, /*strict=*/true, &unknown);
        INFO(json::serialize(*a.status));
        CHECK(causes.empty());
        CHECK(unknown.empty());
      }
      app_["status"] = *a.status;
    }
    for (const auto& pod : a.create_pods) {
      std::string name(pod.at("metadata").at("name").as_string());
      INFO("pod " << name << " created twice");
      REQUIRE_FALSE(pods_.contains(name));
      json::object p = pod;
      p["metadata"].as_object()["uid"] = "pod-uid-" + name;
      p["metadata"].as_object()["creationTimestamp"] = "2026-05-12T10:00:00Z";
      pods_[name] = std::move(p);
      created_.push_back(name);
    }
    for (const auto& update : a.pod_status) {
      auto it = pods_.find(update.name);
      REQUIRE(it != pods_.end());
      it->second["status"] = update.status;
    }
    for (const auto& l : a.logs) {
      REQUIRE(pods_.contains(l.pod));
      // Every log belongs to a container of its pod; Log(pod) is the driver's (the first).
      const json::array& containers = pods_.at(l.pod).at("spec").at("containers").as_array();
      bool known = false;
      for (const auto& c : containers) known = known || c.at("name").as_string() == l.container;
      CHECK(known);
      if (containers.at(0).at("name").as_string() == l.container) logs_[l.pod] += l.text;
      container_logs_[l.pod + "/" + l.container] += l.text;
    }
    for (const auto& name : a.delete_pods) {
      auto it = pods_.find(name);
      if (it == pods_.end()) continue;  // 404 on a repeated delete is fine
      deleted_pods_[name] = it->second;
      pods_.erase(it);
    }
    for (const auto& e : a.events) {
      std::string name(e.at("metadata").at("name").as_string());
      bool seen = false;
      for (auto& old : events_) {
        if (old.at("metadata").at("name").as_string() != name) continue;
        seen = true;
        // A repeated name is 409; a higher count is a recurrence the recorder writes over it.
        if (e.at("count").as_int64() > old.at("count").as_int64()) old = e;
      }
      if (!seen) events_.push_back(e);
    }
    if (a.delete_app) {
      ++app_delete_requests_;
      MarkDeleted();
    }
    if (a.remove_finalizer) {
      json::array kept;
      for (const auto& f : meta["finalizers"].as_array()) {
        if (f.as_string() != kFinalizer) kept.push_back(f);
      }
      meta["finalizers"] = kept;
      if (meta.contains("deletionTimestamp") && kept.empty()) exists_ = false;
    }
  }

  json::object app_;
  op::Options options_;
  int64_t now_ = kStartMs;
  bool exists_ = true;
  std::map<std::string, json::object> pods_;
  std::map<std::string, json::object> deleted_pods_;
  std::map<std::string, std::string> logs_;
  std::map<std::string, std::string> container_logs_;
  std::vector<json::object> events_;
  std::vector<std::string> created_;
  std::vector<Step> steps_;
  int app_delete_requests_ = 0;
};

}  // namespace kubesim::testing
