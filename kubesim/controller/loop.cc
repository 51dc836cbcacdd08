// The operator's control loop over the Store. Like a real controller it only talks to the API
// (the Store): watches feed a due-time queue, a reconcile reads the application fresh, hands it
// with its pods to the reconciler, and writes the result back with optimistic concurrency.
//
// Events caused by the controller's own writes are recognised by their resourceVersion and do
// not trigger another reconcile; otherwise every write would reconcile the application again.
// Requeues are kept per application at the earliest requested time, and a requeue in the past
// waits at least kMinRequeueMs, so a reconciler that always asks for "now" cannot spin.

#include "kubesim/controller/loop.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "kubesim/sim/events.h"
#include "kubesim/sim/json_access.h"
#include "kubesim/sim/termination_message.h"
#include "kubesim/sim/wake_loop.h"
#include "kubesim/store/core_types.h"

namespace kubesim {
namespace {

using sim::ObjectAt;
using sim::StringAt;

namespace json = boost::json;

constexpr int kMaxAttempts = 4;             // reconcile attempts on write conflicts
constexpr int64_t kConflictBackoffMs = 50;  // after the attempts are used up
constexpr int64_t kMinRequeueMs = 5;
constexpr int64_t kRefusedBackoffMs = 1000;
constexpr int64_t kMaxIdleWaitMs = 1000;  // the loop looks around at least this often
constexpr size_t kOwnRvLimit = 100000;

const json::object& Meta(const json::object& o) {
  static const json::object kEmpty;
  const json::object* m = ObjectAt(o, "metadata");
  return m != nullptr ? *m : kEmpty;
}

std::string Rv(const json::object& o) { return StringAt(Meta(o), "resourceVersion"); }

std::string KeyOf(const json::object& o) {
  return StringAt(Meta(o), "namespace") + "/" + StringAt(Meta(o), "name");
}

std::pair<std::string, std::string> SplitKey(const std::string& key) {
  size_t slash = key.find('/');
  return {key.substr(0, slash), key.substr(slash + 1)};
}

// How applying a reconcile's actions ended: done, a stale read (re-read and retry), the
// application gone, or a write refused for another reason (retried later, and said on stderr:
// it means the reconciler produced something the API does not accept).
enum class Applied { kOk, kConflict, kGone, kRefused };

class ControllerImpl : public Controller {
 public:
  ControllerImpl(Store& store, LoopConfig config)
      : store_(store),
        spark_type_(std::move(config.app_type)),
        pod_type_(PodType()),
        namespaces_(std::move(config.namespaces)),
        now_ms_(std::move(config.now_ms)),
        reconcile_(std::move(config.reconcile)),
        finalizer_(std::move(config.finalizer)),
        pod_owner_(std::move(config.pod_owner)),
        loop_([this] { return Pass(); }, now_ms_, kMaxIdleWaitMs) {
    if (namespaces_.empty()) namespaces_.insert("");  // every namespace
  }

  ~ControllerImpl() override {
    Stop();
    for (Watch& w : watches_) {
      if (w.handle) w.handle->Stop();
    }
  }

  void Start() override { loop_.Start(); }
  void Stop() override { loop_.Stop(); }

  int RunOnce() override {
    std::lock_guard<std::mutex> lock(run_mu_);
    EnsureWatches();
    DrainWatches();
    int64_t now = now_ms_();
    std::vector<std::string> due;
    while (!queue_.empty() && queue_.begin()->first <= now) {
      due.push_back(queue_.begin()->second);
      due_at_.erase(queue_.begin()->second);
      queue_.erase(queue_.begin());
    }
    for (const std::string& key : due) Reconcile(key, now);
    return static_cast<int>(due.size());
  }

 private:
  struct Watch {
    bool pods = false;  // pods, else applications
    std::string ns;
    std::shared_ptr<WatchHandle> handle;
  };

  // One pass of the loop's thread, and when the next is due.
  std::optional<int64_t> Pass() {
    RunOnce();
    std::lock_guard<std::mutex> lock(run_mu_);
    if (queue_.empty()) return std::nullopt;
    return queue_.begin()->first;
  }

  std::function<void()> Notifier() { return loop_.Notifier(); }

  // Opens the watches on first use, and reopens one that ended (410 or a failed start): from
  // the current state, so every application gets reconciled once more, as after a relist.
  void EnsureWatches() {
    if (watches_.empty()) {
      for (const std::string& ns : namespaces_) {
        watches_.push_back(Watch{false, ns, nullptr});
        watches_.push_back(Watch{true, ns, nullptr});
      }
    }
    for (Watch& w : watches_) {
      if (w.handle) continue;
      if (w.pods) ForgetPods(w.ns);
      auto r = store_.Watch(w.pods ? pod_type_ : spark_type_, w.ns, ListOptions{}, Notifier());
      if (r.ok()) w.handle = std::move(r.value());
    }
  }

  void DrainWatches() {
    int64_t now = now_ms_();
    for (Watch& w : watches_) {
      if (!w.handle) continue;
      for (WatchEvent& e : w.handle->Drain()) {
        if (e.type == "ERROR") {
          w.handle->Stop();
          w.handle.reset();
          break;
        }
        if (w.pods) {
          OnPodEvent(e, now);
        } else {
          OnAppEvent(e, now);
        }
      }
    }
    EnsureWatches();  // reopen what ended; its initial events arrive with the next drain
  }

  bool IsOwnWrite(const json::object& obj) {
    auto it = own_rvs_.find(Rv(obj));
    if (it == own_rvs_.end()) return false;
    own_rvs_.erase(it);
    return true;
  }

  void RememberOwn(const json::object& obj) {
    if (own_rvs_.size() >= kOwnRvLimit) own_rvs_.clear();  // events lost to a relist
    own_rvs_.insert(Rv(obj));
  }

  void OnAppEvent(const WatchEvent& e, int64_t now) {
    std::string key = KeyOf(e.object);
    if (e.type == "DELETED") {
      own_rvs_.erase(Rv(e.object));
      Unschedule(key);
      return;
    }
    if (IsOwnWrite(e.object)) return;
    Schedule(key, now);
  }

  // The application a pod belongs to: "ns/name" and uid (empty: any).
  std::optional<PodOwner> OwnerOf(const json::object& pod) const {
    if (pod_owner_) return pod_owner_(pod);
    auto refs = Meta(pod).find("ownerReferences");
    if (refs == Meta(pod).end() || !refs->value().is_array()) return std::nullopt;
    for (const json::value& r : refs->value().get_array()) {
      if (!r.is_object()) continue;
      const json::object& ref = r.get_object();
      std::string api_version = StringAt(ref, "apiVersion");
      if (StringAt(ref, "kind") != spark_type_.kind) continue;
      if (api_version.substr(0, api_version.find('/')) != spark_type_.group) continue;
      return PodOwner{StringAt(Meta(pod), "namespace") + "/" + StringAt(ref, "name"),
                      StringAt(ref, "uid")};
    }
    return std::nullopt;
  }

  void OnPodEvent(WatchEvent& e, int64_t now) {
    std::string key = KeyOf(e.object);
    bool own = IsOwnWrite(e.object);
    auto old = pods_.find(key);
    if (old != pods_.end()) {
      RemoveOwned(old->second.owner_key, key);
      pods_.erase(old);
    }
    std::optional<PodOwner> owner = OwnerOf(e.object);
    if (!owner) return;  // not an application's pod
    if (e.type == "DELETED") {
      // The kubelet stops what still runs in a deleted pod, whoever deleted it (the operator, a
      // user, the garbage collector): only the loop sees every such deletion.
      std::vector<json::object> killing;
      sim::AppendKillingEvents(e.object, now, &killing);
      for (json::object& event : killing)
        PublishEvent(StringAt(Meta(e.object), "namespace"), event);
    } else {
      pods_[key] = CachedPod{json::serialize(e.object), owner->app_key, owner->uid};
      owned_[owner->app_key].insert(key);
    }
    if (!own) Schedule(owner->app_key, now);
  }

  void RemoveOwned(const std::string& app_key, const std::string& pod_key) {
    auto it = owned_.find(app_key);
    if (it == owned_.end()) return;
    it->second.erase(pod_key);
    if (it->second.empty()) owned_.erase(it);
  }

  void ForgetPods(const std::string& ns) {
    for (auto it = pods_.begin(); it != pods_.end();) {
      if (!ns.empty() && SplitKey(it->first).first != ns) {
        ++it;
        continue;
      }
      RemoveOwned(it->second.owner_key, it->first);
      it = pods_.erase(it);
    }
  }

  void Schedule(const std::string& key, int64_t at) {
    auto it = due_at_.find(key);
    if (it != due_at_.end()) {
      if (it->second <= at) return;
      queue_.erase({it->second, key});
    }
    due_at_[key] = at;
    queue_.insert({at, key});
  }

  void Unschedule(const std::string& key) {
    auto it = due_at_.find(key);
    if (it == due_at_.end()) return;
    queue_.erase({it->second, key});
    due_at_.erase(it);
  }

  void Reconcile(const std::string& key, int64_t now) {
    auto [ns, name] = SplitKey(key);
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
      if (attempt > 0) DrainWatches();  // see our own and others' writes before retrying
      auto got = store_.Get(spark_type_, ns, name);
      if (!got.ok()) return;  // deleted meanwhile: nothing left to do
      json::object app = std::move(got.value());
      std::string uid = StringAt(Meta(app), "uid");
      std::deque<json::object> parsed;  // stable addresses for the view
      std::vector<const json::object*> pods;
      auto owned = owned_.find(key);
      if (owned != owned_.end()) {
        for (const std::string& pod_key : owned->second) {
          const CachedPod& pod = pods_.at(pod_key);
          if (!pod.owner_uid.empty() && pod.owner_uid != uid) continue;  // a namesake's leftover
          boost::system::error_code ec;
          json::value v = json::parse(pod.text, ec);
          if (ec || !v.is_object()) continue;
          parsed.push_back(std::move(v.get_object()));
          pods.push_back(&parsed.back());
        }
      }
      sim::AppView view;
      view.app = &app;
      view.pods = std::move(pods);
      view.now_ms = now;
      view.lookup = [this, ns = ns](std::string_view resource,
                                    std::string_view object) -> std::optional<json::object> {
        const ResourceType* type = store_.FindType("", "v1", std::string(resource));
        if (type == nullptr) return std::nullopt;
        auto r = store_.Get(*type, ns, std::string(object));
        if (!r.ok()) return std::nullopt;
        return std::move(r.value());
      };
      view.fetch = [](const sim::FetchStep& step) { return sim::FetchForReal(step, {}); };
      sim::Actions actions = reconcile_(view);
      std::string refusal;
      Applied applied = Apply(ns, name, app, actions, &refusal);
      if (applied == Applied::kGone) return;
      if (applied == Applied::kRefused) {
        std::fprintf(stderr, "kubesim controller: %s: %s\n", key.c_str(), refusal.c_str());
        Schedule(key, now + kRefusedBackoffMs);
        return;
      }
      if (applied == Applied::kConflict) continue;
      if (actions.requeue_at_ms) {
        Schedule(key, std::max(*actions.requeue_at_ms,
                               now + (*actions.requeue_at_ms <= now ? kMinRequeueMs : 0)));
      }
      return;
    }
    Schedule(key, now + kConflictBackoffMs);
  }

  static Applied Failed(const ApiError& e, std::string* refusal) {
    if (e.code == 409) return Applied::kConflict;
    if (e.code == 404) return Applied::kGone;
    *refusal = e.message;
    return Applied::kRefused;
  }

  Applied Apply(const std::string& ns, const std::string& name, json::object app,
                sim::Actions& actions, std::string* refusal) {
    WriteOptions write;
    if (actions.add_finalizer) {
      json::object& meta = app["metadata"].as_object();
      json::value& f = meta["finalizers"];
      if (!f.is_array()) f = json::array();
      auto& list = f.as_array();
      if (std::find(list.begin(), list.end(), json::value(finalizer_)) == list.end()) {
        list.push_back(json::string(finalizer_));
        auto r = store_.Update(spark_type_, ns, name, app, false, write);
        if (!r.ok()) return Failed(r.error(), refusal);
        app = std::move(r.value());
        RememberOwn(app);
      }
    }
    if (!actions.set_spec.empty()) {
      json::value& spec = app["spec"];
      if (!spec.is_object()) spec = json::object();
      for (const auto& kv : actions.set_spec) spec.as_object()[kv.key()] = kv.value();
      // Not remembered as our own: the reconciler reacts to the new spec, as the operator would.
      auto r = store_.Update(spark_type_, ns, name, app, false, write);
      if (!r.ok()) return Failed(r.error(), refusal);
      app = std::move(r.value());
    }
    std::map<std::string, json::object> created;  // pod name → its metadata as stored
    for (json::object& pod : actions.create_pods) {
      std::string pod_ns = StringAt(Meta(pod), "namespace");
      if (pod_ns.empty()) pod_ns = ns;
      std::string pod_name = StringAt(Meta(pod), "name");
      std::optional<json::value> status;
      if (auto it = pod.find("status"); it != pod.end()) status = it->value();
      auto r = store_.Create(pod_type_, pod_ns, pod, write);
      if (!r.ok()) continue;  // AlreadyExists: the operator adopts it on the next pass
      RememberOwn(r.value());
      created[pod_name] = Meta(r.value());
      if (status && r.value().at("status") != *status) SetPodStatus(pod_ns, pod_name, *status);
    }
    // A container writes its log before it terminates: a follower that sees the termination
    // must already have every line to read.
    for (const sim::LogAppend& log : actions.logs) {
      store_.AppendLog(ns, log.pod, log.container, log.text);
    }
    for (json::object& event : actions.events) {
      FillPodReference(ns, created, event);
      PublishEvent(ns, event);
    }
    for (sim::ObjectWrite& w : actions.write_objects) WriteObject(ns, w);
    for (sim::PodStatusUpdate& update : actions.pod_status) {
      SetPodStatus(ns, update.name, json::value(std::move(update.status)));
    }
    for (const std::string& pod : actions.delete_pods) {
      // Not remembered as our own: the reconciler wants to see its pods gone.
      store_.Delete(pod_type_, ns, pod, DeleteOptions{});
    }
    if (actions.status) {
      json::object body = app;
      body["status"] = std::move(*actions.status);
      auto r = store_.Update(spark_type_, ns, name, std::move(body), true, write);
      if (!r.ok()) return Failed(r.error(), refusal);
      app = std::move(r.value());
      RememberOwn(app);
    }
    if (!actions.set_annotations.empty()) {
      json::object& meta = app["metadata"].as_object();
      json::value& a = meta["annotations"];
      if (!a.is_object()) a = json::object();
      bool changed = false;
      for (const auto& [key, value] : actions.set_annotations) {
        json::value& slot = a.as_object()[key];
        if (slot.is_string() && slot.get_string() == value) continue;
        slot = json::string(value);
        changed = true;
      }
      if (changed) {
        auto r = store_.Update(spark_type_, ns, name, app, false, write);
        if (!r.ok()) return Failed(r.error(), refusal);
        app = std::move(r.value());
        RememberOwn(app);
      }
    }
    if (actions.remove_finalizer) {
      json::object& meta = app["metadata"].as_object();
      auto f = meta.find("finalizers");
      if (f != meta.end() && f->value().is_array()) {
        json::array& list = f->value().as_array();
        auto it = std::find(list.begin(), list.end(), json::value(finalizer_));
        if (it != list.end()) {
          list.erase(it);
          auto r = store_.Update(spark_type_, ns, name, app, false, write);
          if (!r.ok()) return Failed(r.error(), refusal);
          RememberOwn(r.value());
          app = std::move(r.value());
        }
      }
    }
    if (actions.delete_app) {
      DeleteOptions del;
      del.precondition_uid = StringAt(Meta(app), "uid");
      // Not remembered as our own either: with the finalizer, the deletion is only marked, and
      // the reconciler must see it to clean up.
      store_.Delete(spark_type_, ns, name, del);
      return Applied::kGone;
    }
    return Applied::kOk;
  }

  // A pod created in the same pass had no uid when the reconciler described it: the reference
  // gets the pod's uid and resourceVersion as stored.
  void FillPodReference(const std::string& ns, const std::map<std::string, json::object>& created,
                        json::object& event) {
    json::value* ref = event.if_contains("involvedObject");
    if (ref == nullptr || !ref->is_object()) return;
    json::object& obj = ref->as_object();
    if (StringAt(obj, "kind") != "Pod" || !StringAt(obj, "uid").empty()) return;
    const std::string name = StringAt(obj, "name");
    json::object meta;
    if (auto it = created.find(name); it != created.end()) {
      meta = it->second;
    } else if (auto got = store_.Get(pod_type_, ns, name); got.ok()) {
      meta = Meta(got.value());
    } else {
      return;
    }
    obj["uid"] = StringAt(meta, "uid");
    obj["resourceVersion"] = StringAt(meta, "resourceVersion");
  }

  // Creates an event; a name already taken is the same event published before (409): a higher
  // count is a recurrence, which the recorder writes as count and lastTimestamp on the old one.
  void PublishEvent(const std::string& ns, const json::object& event) {
    const ResourceType* type = store_.FindType("", "v1", "events");
    if (type == nullptr) return;
    auto r = store_.Create(*type, ns, event, WriteOptions{});
    if (r.ok() || r.error().code != 409) return;
    const std::string name = StringAt(Meta(event), "name");
    auto got = store_.Get(*type, ns, name);
    if (!got.ok()) return;
    json::object old = std::move(got.value());
    auto count = [](const json::object& o) {
      const json::value* c = o.if_contains("count");
      return c != nullptr && c->is_int64() ? c->get_int64() : 0;
    };
    if (count(event) <= count(old)) return;
    for (const char* key : {"count", "lastTimestamp", "message"}) {
      if (const json::value* v = event.if_contains(key)) old[key] = *v;
    }
    store_.Update(*type, ns, name, std::move(old), false, WriteOptions{});
  }

  // Creates the object, or brings its status up to date; conditions keep their transition time
  // while their status stays.
  void WriteObject(const std::string& ns, sim::ObjectWrite& w) {
    const ResourceType* type = store_.FindType(w.group, w.version, w.plural);
    if (type == nullptr) return;
    std::string obj_ns = StringAt(Meta(w.object), "namespace");
    if (obj_ns.empty()) obj_ns = ns;
    const std::string name = StringAt(Meta(w.object), "name");
    json::value status = w.object.contains("status") ? w.object.at("status") : json::value();
    auto got = store_.Get(*type, obj_ns, name);
    if (!got.ok()) {
      w.object.erase("status");
      auto r = store_.Create(*type, obj_ns, w.object, WriteOptions{});
      if (!r.ok()) return;
      got = std::move(r);
    }
    json::object current = std::move(got.value());
    if (status.is_object()) KeepTransitionTimes(current, status.as_object());
    if (current.contains("status") && current.at("status") == status) return;
    current["status"] = std::move(status);
    store_.Update(*type, obj_ns, name, std::move(current), true, WriteOptions{});
  }

  static void KeepTransitionTimes(const json::object& current, json::object& status) {
    const json::object* old_status = ObjectAt(current, "status");
    const json::value* old =
        old_status != nullptr ? old_status->if_contains("conditions") : nullptr;
    json::value* next = status.if_contains("conditions");
    if (old == nullptr || !old->is_array() || next == nullptr || !next->is_array()) return;
    for (json::value& c : next->as_array()) {
      if (!c.is_object()) continue;
      for (const json::value& o : old->as_array()) {
        if (!o.is_object() || StringAt(o.as_object(), "type") != StringAt(c.as_object(), "type") ||
            StringAt(o.as_object(), "status") != StringAt(c.as_object(), "status")) {
          continue;
        }
        if (const json::value* t = o.as_object().if_contains("lastTransitionTime")) {
          c.as_object()["lastTransitionTime"] = *t;
        }
      }
    }
  }

  // Pods are a core type: the status subresource takes an unconditional write, as the kubelet's.
  void SetPodStatus(const std::string& ns, const std::string& name, json::value status) {
    // The kubelet reads a container's log when it ends, for its termination message.
    if (status.is_object() && sim::NeedsTerminationMessage(status.as_object())) {
      if (auto pod = store_.Get(pod_type_, ns, name); pod.ok()) {
        const json::value* spec = pod.value().if_contains("spec");
        auto read_log = [&](std::string_view container) {
          LogOptions options;
          options.container = std::string(container);
          auto log = store_.ReadLog(ns, name, options);
          return log.ok() ? std::move(log.value()) : std::string();
        };
        if (spec != nullptr && spec->is_object()) {
          sim::FillTerminationMessages(spec->as_object(), read_log, &status.as_object());
        }
      }
    }
    json::object body{{"metadata", json::object{{"name", name}}}, {"status", std::move(status)}};
    auto r = store_.Update(pod_type_, ns, name, std::move(body), true, WriteOptions{});
    if (r.ok()) RememberOwn(r.value());
  }

  Store& store_;
  const ResourceType spark_type_;
  const ResourceType pod_type_;
  std::set<std::string> namespaces_;
  const std::function<int64_t()> now_ms_;
  const std::function<sim::Actions(const sim::AppView&)> reconcile_;
  const std::string finalizer_;
  const std::function<std::optional<PodOwner>(const json::object&)> pod_owner_;

  // Everything below belongs to whoever holds run_mu_ (RunOnce).
  std::mutex run_mu_;
  std::vector<Watch> watches_;
  std::set<std::pair<int64_t, std::string>> queue_;  // (due ms, "ns/name")
  std::unordered_map<std::string, int64_t> due_at_;
  // Pods owned by applications, kept serialized: a parsed pod costs several times the memory,
  // and only the pods of the application being reconciled are needed parsed.
  struct CachedPod {
    std::string text;
    std::string owner_key;  // "ns/name" of the application
    std::string owner_uid;
  };
  std::unordered_map<std::string, CachedPod> pods_;               // "ns/name" → pod
  std::unordered_map<std::string, std::set<std::string>> owned_;  // app key → pod keys
  std::unordered_set<std::string> own_rvs_;

  sim::WakeLoop loop_;  // last: stopped before the members its passes use
};

}  // namespace

std::unique_ptr<Controller> NewControlLoop(Store& store, LoopConfig config) {
  return std::make_unique<ControllerImpl>(store, std::move(config));
}

}  // namespace kubesim
