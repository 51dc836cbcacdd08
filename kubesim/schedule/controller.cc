// The ScheduledSparkApplication controller's loop. Watches feed a due-time queue kept in wall
// time; a reconcile reads the object and its runs fresh, hands them to schedule::Reconcile at the
// operator's time, and writes the result back.
//
// Its own status writes come back as update events and reconcile it once more, as they do in
// the operator (whose event filter passes every update); that pass finds nothing to do.

#include "kubesim/schedule/controller.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "kubesim/sim/json_access.h"
#include "kubesim/sim/wake_loop.h"

namespace kubesim::schedule {
namespace {

namespace json = boost::json;
using sim::ObjectAt;
using sim::StringAt;

constexpr int64_t kMaxIdleWaitMs = 1000;  // the loop looks around at least this often
constexpr int64_t kBackoffBaseMs = 5;
constexpr int64_t kBackoffMaxMs = 1000 * 1000;

const json::object& Meta(const json::object& o) {
  static const json::object kEmpty;
  const json::object* m = ObjectAt(o, "metadata");
  return m != nullptr ? *m : kEmpty;
}

std::string KeyOf(const json::object& o) {
  return StringAt(Meta(o), "namespace") + "/" + StringAt(Meta(o), "name");
}

std::pair<std::string, std::string> SplitKey(const std::string& key) {
  size_t slash = key.find('/');
  return {key.substr(0, slash), key.substr(slash + 1)};
}

class ScheduleController : public Controller {
 public:
  ScheduleController(Store& store, ResourceType scheduled_type, ResourceType app_type,
                     std::set<std::string> namespaces, ControllerOptions options,
                     std::function<int64_t()> now_ms)
      : store_(store),
        scheduled_type_(std::move(scheduled_type)),
        app_type_(std::move(app_type)),
        namespaces_(std::move(namespaces)),
        options_(std::move(options)),
        now_ms_(std::move(now_ms)),
        anchor_ms_(now_ms_()),
        loop_([this] { return Pass(); }, now_ms_, kMaxIdleWaitMs) {
    if (namespaces_.empty()) namespaces_.insert("");
    if (!(options_.time_scale > 0)) options_.time_scale = 1.0;
  }

  ~ScheduleController() override {
    Stop();
    for (Watch& w : watches_) {
      if (w.handle) w.handle->Stop();
    }
  }

  void Start() override { loop_.Start(); }
  void Stop() override { loop_.Stop(); }

  int RunOnce() override {
    std::lock_guard<std::mutex> lock(run_mu_);
    DrainWatches();
    const int64_t now = now_ms_();
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
    bool runs = false;  // SparkApplications, else ScheduledSparkApplications
    std::string ns;
    std::shared_ptr<WatchHandle> handle;
  };

  // The operator's clock at a wall time, and back (rounded up, and a millisecond late rather
  // than early, so a requeue never fires before the operator time it asked for).
  absl::Time OperatorTime(int64_t wall_ms) const {
    if (options_.time_scale == 1.0) return absl::FromUnixMillis(wall_ms);
    return absl::FromUnixMillis(anchor_ms_) +
           absl::Milliseconds(wall_ms - anchor_ms_) * options_.time_scale;
  }

  int64_t WallMs(absl::Time op) const {
    if (options_.time_scale == 1.0) {
      const int64_t ns = absl::ToUnixNanos(op);
      return ns / 1000000 + (ns % 1000000 > 0 ? 1 : 0);
    }
    const double ms =
        absl::ToDoubleMilliseconds(op - absl::FromUnixMillis(anchor_ms_)) / options_.time_scale;
    return anchor_ms_ + static_cast<int64_t>(std::ceil(ms)) + 1;
  }

  // One pass of the loop's thread, and when the next is due.
  std::optional<int64_t> Pass() {
    RunOnce();
    std::lock_guard<std::mutex> lock(run_mu_);
    if (queue_.empty()) return std::nullopt;
    return queue_.begin()->first;
  }

  std::function<void()> Notifier() { return loop_.Notifier(); }

  // Opens the watches on first use and reopens one that ended: from the current state, so every
  // schedule is reconciled once more, as after a relist.
  void EnsureWatches() {
    if (watches_.empty()) {
      for (const std::string& ns : namespaces_) {
        watches_.push_back(Watch{false, ns, nullptr});
        if (options_.wake_on_runs) watches_.push_back(Watch{true, ns, nullptr});
      }
    }
    for (Watch& w : watches_) {
      if (w.handle) continue;
      auto r = store_.Watch(w.runs ? app_type_ : scheduled_type_, w.ns, ListOptions{}, Notifier());
      if (r.ok()) w.handle = std::move(r.value());
    }
  }

  void DrainWatches() {
    EnsureWatches();
    const int64_t now = now_ms_();
    for (Watch& w : watches_) {
      if (!w.handle) continue;
      for (WatchEvent& e : w.handle->Drain()) {
        if (e.type == "ERROR") {
          w.handle->Stop();
          w.handle.reset();
          break;
        }
        if (e.type != "ADDED" && e.type != "MODIFIED") continue;  // Delete events are dropped
        if (!w.runs) {
          Enqueue(KeyOf(e.object), now);
          continue;
        }
        const json::object* labels = ObjectAt(ObjectAt(&e.object, "metadata"), "labels");
        if (labels == nullptr) continue;
        const std::string owner = StringAt(*labels, kLabelScheduledAppName);
        if (!owner.empty()) Enqueue(StringAt(Meta(e.object), "namespace") + "/" + owner, now);
      }
    }
    EnsureWatches();  // reopen what ended; its initial events arrive with the next drain
  }

  void Enqueue(const std::string& key, int64_t at) {
    auto it = due_at_.find(key);
    if (it != due_at_.end()) {
      if (it->second <= at) return;
      queue_.erase({it->second, key});
    }
    due_at_[key] = at;
    queue_.insert({at, key});
  }

  void Reconcile(const std::string& key, int64_t now) {
    auto [ns, name] = SplitKey(key);
    auto got = store_.Get(scheduled_type_, ns, name);
    if (!got.ok()) {
      failures_.erase(key);
      return;
    }
    const json::object app = std::move(got.value());
    ListOptions list;
    list.label_selector = std::string(kLabelScheduledAppName) + "=" + name;
    auto runs = store_.List(app_type_, ns, list);
    if (!runs.ok()) return Failed(key, now, "listing runs: " + runs.error().message);
    View view;
    view.app = &app;
    for (const json::value& item : runs.value().at("items").as_array()) {
      if (item.is_object()) view.runs.push_back(&item.get_object());
    }
    view.now = OperatorTime(now);
    Actions actions = schedule::Reconcile(view, options_.reconcile);
    std::string error;
    if (!Apply(ns, name, app, actions, &error)) return Failed(key, now, error);
    failures_.erase(key);
    if (actions.requeue_at) Enqueue(key, std::max(WallMs(*actions.requeue_at), now + 1));
  }

  bool DeleteRun(const std::string& ns, const std::string& run, std::string* error) {
    DeleteOptions del;
    del.grace_period_seconds = 0;
    auto r = store_.Delete(app_type_, ns, run, del);
    if (r.ok() || r.error().code == 404) return true;
    *error = "deleting " + run + ": " + r.error().message;
    return false;
  }

  bool Apply(const std::string& ns, const std::string& name, const json::object& app,
             Actions& actions, std::string* error) {
    for (const std::string& run : actions.delete_runs) {
      if (!DeleteRun(ns, run, error)) return false;
    }
    if (actions.create_run) {
      auto r = store_.Create(app_type_, ns, std::move(*actions.create_run), WriteOptions{});
      if (!r.ok()) {
        *error = "creating a run: " + r.error().message;
        return false;
      }
    }
    for (const std::string& run : actions.prune_runs) {
      if (!DeleteRun(ns, run, error)) return false;
    }
    if (!actions.error.empty()) {
      *error = actions.error;
      return false;
    }
    if (actions.status) {
      json::object body = app;
      body["status"] = std::move(*actions.status);
      auto r = store_.Update(scheduled_type_, ns, name, std::move(body), true, WriteOptions{});
      if (!r.ok()) {
        *error = "updating the status: " + r.error().message;
        return false;
      }
    }
    return true;
  }

  // controller-runtime's per-item exponential backoff, in operator time.
  void Failed(const std::string& key, int64_t now, const std::string& error) {
    std::fprintf(stderr, "kubesim schedule controller: %s: %s\n", key.c_str(), error.c_str());
    const int n = std::min(failures_[key]++, 30);
    const int64_t delay = std::min<int64_t>(kBackoffBaseMs << n, kBackoffMaxMs);
    const double wall = std::ceil(static_cast<double>(delay) / options_.time_scale);
    Enqueue(key, now + std::max<int64_t>(1, static_cast<int64_t>(wall)));
  }

  Store& store_;
  const ResourceType scheduled_type_;
  const ResourceType app_type_;
  std::set<std::string> namespaces_;
  ControllerOptions options_;
  const std::function<int64_t()> now_ms_;
  const int64_t anchor_ms_;

  // Everything below belongs to whoever holds run_mu_ (RunOnce).
  std::mutex run_mu_;
  std::vector<Watch> watches_;
  std::set<std::pair<int64_t, std::string>> queue_;  // (due wall ms, "ns/name")
  std::unordered_map<std::string, int64_t> due_at_;
  std::unordered_map<std::string, int> failures_;

  sim::WakeLoop loop_;  // last: stopped before the members its passes use
};

}  // namespace

std::unique_ptr<Controller> NewController(Store& store, ResourceType scheduled_type,
                                          ResourceType app_type, std::set<std::string> namespaces,
                                          ControllerOptions options,
                                          std::function<int64_t()> now_ms) {
  return std::make_unique<ScheduleController>(store, std::move(scheduled_type), std::move(app_type),
                                              std::move(namespaces), std::move(options),
                                              std::move(now_ms));
}

}  // namespace kubesim::schedule
