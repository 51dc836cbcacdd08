#include "cache/app_informer.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <map>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "base/strings.h"
#include "k8s/errors.h"

namespace kje::cache {
namespace {

using Map = absl::flat_hash_map<std::string, spark::AppProjection>;

// True when `candidate` may replace `current`: it is newer, or the two can't be compared (then
// the later arrival wins, as with any informer).
bool Supersedes(std::string_view candidate, std::string_view current) {
  auto cmp = CompareResourceVersions(candidate, current);
  return !cmp.has_value() || *cmp >= 0;
}

class AppInformerImpl final : public AppInformer,
                              public std::enable_shared_from_this<AppInformerImpl> {
 public:
  AppInformerImpl(boost::asio::io_context& io, std::shared_ptr<k8s::Client> client,
                  InformerOptions options, const Clock& clock)
      : client_(std::move(client)), options_(std::move(options)), clock_(clock), timer_(io) {}

  void Start() override {
    absl::MutexLock lock(&mu_);
    if (running_) return;
    running_ = true;
    StartListLocked();
  }

  void Stop() override {
    std::shared_ptr<k8s::CallHandle> call;
    {
      absl::MutexLock lock(&mu_);
      if (!running_) return;
      running_ = false;
      ++generation_;
      call = std::move(call_);
      timer_.cancel();
    }
    if (call) call->Cancel();
  }

  bool synced() const override {
    absl::MutexLock lock(&mu_);
    return synced_;
  }

  std::optional<spark::AppProjection> Find(std::string_view name) const override {
    absl::ReaderMutexLock lock(&mu_);
    auto it = apps_.find(ToAbsl(name));
    if (it == apps_.end()) return std::nullopt;
    return it->second;
  }

  void ObserveWrite(const spark::AppProjection& app) override {
    {
      absl::MutexLock lock(&mu_);
      UpsertLocked(app);
    }
    Notify();
  }

  void ObserveGone(std::string_view name) override {
    {
      absl::MutexLock lock(&mu_);
      auto it = apps_.find(ToAbsl(name));
      if (it != apps_.end()) {
        QueueLocked(AppEvent::Type::kDeleted, it->second);
        apps_.erase(it);
      }
    }
    Notify();
  }

  uint64_t Subscribe(AppListener listener) override {
    absl::MutexLock lock(&listeners_mu_);
    uint64_t id = ++last_listener_id_;
    listeners_.emplace(id, std::move(listener));
    has_listeners_.store(true, std::memory_order_release);
    return id;
  }

  void Unsubscribe(uint64_t id) override {
    if (notifying_thread_.load(std::memory_order_acquire) == std::this_thread::get_id()) {
      // From inside a listener: the lock is ours already; Notify() drops it after the call.
      removed_in_callback_.push_back(id);
      return;
    }
    absl::MutexLock lock(&listeners_mu_);
    listeners_.erase(id);
    has_listeners_.store(!listeners_.empty(), std::memory_order_release);
  }

  std::vector<spark::AppProjection> ListAfter(
      std::string_view after, size_t limit,
      const std::function<bool(const spark::AppProjection&)>& filter) const override {
    std::vector<const spark::AppProjection*> matches;
    absl::ReaderMutexLock lock(&mu_);
    for (const auto& [name, app] : apps_) {
      if (name > after && filter(app)) matches.push_back(&app);
    }
    auto by_name = [](const spark::AppProjection* a, const spark::AppProjection* b) {
      return a->name < b->name;
    };
    size_t n = std::min(limit, matches.size());
    std::partial_sort(matches.begin(), matches.begin() + static_cast<ptrdiff_t>(n), matches.end(),
                      by_name);
    std::vector<spark::AppProjection> page;
    page.reserve(n);
    for (size_t i = 0; i < n; ++i) page.push_back(*matches[i]);
    return page;
  }

  InformerStats stats() const override {
    absl::MutexLock lock(&mu_);
    InformerStats s = stats_;
    s.objects = static_cast<int64_t>(apps_.size());
    s.synced = synced_;
    s.resource_version = resource_version_;
    return s;
  }

 private:
  void UpsertLocked(const spark::AppProjection& app) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = apps_.find(app.name);
    if (it == apps_.end()) {
      apps_.emplace(app.name, app);
    } else if (Supersedes(app.resource_version, it->second.resource_version)) {
      if (it->second.resource_version == app.resource_version) return;  // nothing new
      it->second = app;
    } else {
      return;
    }
    QueueLocked(AppEvent::Type::kUpserted, app);
  }

  // Changes are queued under mu_, in the order they are made, and delivered by Notify() outside
  // it: a listener never holds up reads, and delivery order is change order.
  void QueueLocked(AppEvent::Type type, const spark::AppProjection& app)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!has_listeners_.load(std::memory_order_acquire)) return;
    pending_.push_back(AppEvent{type, app});
  }

  void Notify() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock deliver(&listeners_mu_);
    std::vector<AppEvent> events;
    {
      absl::MutexLock lock(&mu_);
      events.swap(pending_);
    }
    if (events.empty()) return;
    notifying_thread_.store(std::this_thread::get_id(), std::memory_order_release);
    for (const AppEvent& event : events) {
      for (auto& [id, listener] : listeners_) {
        if (std::find(removed_in_callback_.begin(), removed_in_callback_.end(), id) ==
            removed_in_callback_.end()) {
          listener(event);
        }
      }
    }
    notifying_thread_.store(std::thread::id(), std::memory_order_release);
    for (uint64_t id : removed_in_callback_) listeners_.erase(id);
    removed_in_callback_.clear();
    has_listeners_.store(!listeners_.empty(), std::memory_order_release);
  }

  void StartListLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    building_.clear();
    ListPageLocked("");
  }

  void ListPageLocked(std::string continue_token) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    k8s::ListOptions list;
    list.label_selector = options_.label_selector;
    list.limit = options_.page_size;
    list.continue_token = std::move(continue_token);
    uint64_t gen = generation_;
    std::weak_ptr<AppInformerImpl> weak = weak_from_this();
    call_ = client_->List(options_.collection, list, absl::Now() + options_.list_timeout,
                          [weak, gen](absl::StatusOr<k8s::ListPage> page) {
                            if (auto self = weak.lock()) self->OnListPage(gen, std::move(page));
                          });
  }

  void OnListPage(uint64_t gen, absl::StatusOr<k8s::ListPage> page) {
    // Projections are computed outside the lock: reads must not wait for JSON parsing.
    std::vector<spark::AppProjection> parsed;
    if (page.ok()) {
      parsed.reserve(page->items.size());
      for (const std::string& item : page->items) {
        auto app = spark::ProjectAppJson(item);
        if (app.ok()) {
          parsed.push_back(*std::move(app));
        } else {
          log::Warn("informer skipped an unreadable object")
              .Kv("namespace", options_.collection.namespace_)
              .Kv("error", std::string(app.status().message()));
        }
      }
    }
    OnListPageLocked(gen, std::move(page), std::move(parsed));
    Notify();
  }

  void OnListPageLocked(uint64_t gen, absl::StatusOr<k8s::ListPage> page,
                        std::vector<spark::AppProjection> parsed) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    if (gen != generation_ || !running_) return;
    call_.reset();
    if (!page.ok()) {
      ++stats_.errors;
      log::Warn("informer list failed")
          .Kv("namespace", options_.collection.namespace_)
          .Kv("error", std::string(page.status().message()));
      // An expired continue token (410) or any other failure: the whole list starts over.
      RetryLaterLocked([this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        ++stats_.relists;
        StartListLocked();
      });
      return;
    }
    for (auto& app : parsed) {
      std::string name = app.name;
      building_.insert_or_assign(std::move(name), std::move(app));
    }
    if (!page->continue_token.empty()) {
      ListPageLocked(page->continue_token);
      return;
    }
    SwapInSnapshotLocked(page->resource_version);
    consecutive_errors_ = 0;
    StartWatchLocked();
  }

  // Replaces the snapshot with the list just completed at `list_rv`, keeping what is known to be
  // newer than the list: our own writes made while the list was running.
  void SwapInSnapshotLocked(const std::string& list_rv) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (auto& [name, app] : apps_) {
      auto cmp = CompareResourceVersions(app.resource_version, list_rv);
      if (!cmp.has_value() || *cmp <= 0) continue;
      auto it = building_.find(name);
      if (it == building_.end() ||
          CompareResourceVersions(app.resource_version, it->second.resource_version) > 0) {
        building_.insert_or_assign(name, std::move(app));
      }
    }
    if (has_listeners_.load(std::memory_order_acquire)) {
      // What the relist found that the watch had missed, as events.
      for (const auto& [name, app] : building_) {
        auto old = apps_.find(name);
        if (old == apps_.end() || old->second.resource_version != app.resource_version) {
          QueueLocked(AppEvent::Type::kUpserted, app);
        }
      }
      for (const auto& [name, app] : apps_) {
        if (!building_.contains(name)) QueueLocked(AppEvent::Type::kDeleted, app);
      }
    }
    apps_.swap(building_);
    building_.clear();
    resource_version_ = list_rv;
    if (!synced_) {
      log::Info("informer synced")
          .Kv("namespace", options_.collection.namespace_)
          .Kv("objects", static_cast<int64_t>(apps_.size()));
    }
    synced_ = true;
    stats_.last_sync = clock_.Now();
  }

  void StartWatchLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    k8s::WatchOptions watch;
    watch.label_selector = options_.label_selector;
    watch.resource_version = resource_version_;
    watch.allow_bookmarks = true;
    watch.resume = true;
    uint64_t gen = generation_;
    std::weak_ptr<AppInformerImpl> weak = weak_from_this();
    call_ = client_->Watch(
        options_.collection, watch, absl::Now() + options_.watch_period,
        [weak, gen](const k8s::WatchEvent& event) {
          if (auto self = weak.lock()) self->OnEvent(gen, event);
        },
        [weak, gen](const absl::Status& status) {
          if (auto self = weak.lock()) self->OnWatchDone(gen, status);
        });
  }

  void OnEvent(uint64_t gen, const k8s::WatchEvent& event) {
    std::optional<spark::AppProjection> app;
    if (event.type != k8s::WatchEvent::Type::kBookmark) {
      auto parsed = spark::ProjectAppJson(event.object);
      if (!parsed.ok()) {
        log::Warn("informer skipped an unreadable event")
            .Kv("namespace", options_.collection.namespace_)
            .Kv("error", std::string(parsed.status().message()));
      } else {
        app = *std::move(parsed);
      }
    }
    ApplyEvent(gen, event, std::move(app));
    Notify();
  }

  void ApplyEvent(uint64_t gen, const k8s::WatchEvent& event,
                  std::optional<spark::AppProjection> app) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    if (gen != generation_ || !running_) return;
    if (!event.resource_version.empty()) resource_version_ = event.resource_version;
    stats_.last_sync = clock_.Now();
    consecutive_errors_ = 0;
    if (!app) return;
    if (event.type == k8s::WatchEvent::Type::kDeleted) {
      auto it = apps_.find(app->name);
      if (it != apps_.end() && Supersedes(app->resource_version, it->second.resource_version)) {
        apps_.erase(it);
        QueueLocked(AppEvent::Type::kDeleted, *app);
      }
    } else {
      UpsertLocked(*app);
    }
  }

  void OnWatchDone(uint64_t gen, const absl::Status& status) {
    absl::MutexLock lock(&mu_);
    if (gen != generation_ || !running_) return;
    call_.reset();
    if (status.ok() || absl::IsDeadlineExceeded(status)) {
      // The watch period ended or the server closed the stream: carry on from where it was.
      ++stats_.watch_restarts;
      StartWatchLocked();
      return;
    }
    if (k8s::IsK8sGone(status)) {
      // The resourceVersion is too old for the server: only a new LIST can catch up.
      log::Info("informer relisting after 410 Gone")
          .Kv("namespace", options_.collection.namespace_);
      ++stats_.relists;
      StartListLocked();
      return;
    }
    ++stats_.errors;
    log::Warn("informer watch failed")
        .Kv("namespace", options_.collection.namespace_)
        .Kv("error", std::string(status.message()));
    RetryLaterLocked([this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      ++stats_.watch_restarts;
      StartWatchLocked();
    });
  }

  // Runs `then` (under the lock) after an exponential backoff, unless stopped meanwhile.
  template <typename Fn>
  void RetryLaterLocked(Fn then) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    absl::Duration delay = options_.min_backoff;
    for (int i = 0; i < consecutive_errors_ && delay < options_.max_backoff; ++i) delay *= 2;
    delay = std::min(delay, options_.max_backoff);
    ++consecutive_errors_;
    uint64_t gen = generation_;
    std::weak_ptr<AppInformerImpl> weak = weak_from_this();
    timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        absl::ToChronoNanoseconds(delay)));
    timer_.async_wait([weak, gen, then](const boost::system::error_code& ec) {
      if (ec) return;
      auto self = weak.lock();
      if (!self) return;
      absl::MutexLock lock(&self->mu_);
      if (gen != self->generation_ || !self->running_) return;
      then();
    });
  }

  const std::shared_ptr<k8s::Client> client_;
  const InformerOptions options_;
  const Clock& clock_;

  mutable absl::Mutex mu_;
  Map apps_ ABSL_GUARDED_BY(mu_);
  Map building_ ABSL_GUARDED_BY(mu_);  // the list in progress
  std::string resource_version_ ABSL_GUARDED_BY(mu_);
  bool running_ ABSL_GUARDED_BY(mu_) = false;
  bool synced_ ABSL_GUARDED_BY(mu_) = false;
  // Bumped by Stop(): completions of calls made before it are ignored.
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  int consecutive_errors_ ABSL_GUARDED_BY(mu_) = 0;
  std::shared_ptr<k8s::CallHandle> call_ ABSL_GUARDED_BY(mu_);
  boost::asio::steady_timer timer_ ABSL_GUARDED_BY(mu_);
  InformerStats stats_ ABSL_GUARDED_BY(mu_);
  std::vector<AppEvent> pending_ ABSL_GUARDED_BY(mu_);

  // Held while listeners run, so they run one at a time and in order. Taken before mu_.
  absl::Mutex listeners_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  std::map<uint64_t, AppListener> listeners_ ABSL_GUARDED_BY(listeners_mu_);
  uint64_t last_listener_id_ ABSL_GUARDED_BY(listeners_mu_) = 0;
  std::vector<uint64_t> removed_in_callback_ ABSL_GUARDED_BY(listeners_mu_);
  std::atomic<std::thread::id> notifying_thread_;
  // Lets the hot paths skip queueing when nobody listens.
  std::atomic<bool> has_listeners_ = false;
};

}  // namespace

std::optional<int> CompareResourceVersions(std::string_view a, std::string_view b) {
  uint64_t x;
  uint64_t y;
  if (!absl::SimpleAtoi(ToAbsl(a), &x) || !absl::SimpleAtoi(ToAbsl(b), &y)) return std::nullopt;
  if (x < y) return -1;
  if (x > y) return 1;
  return 0;
}

std::shared_ptr<AppInformer> NewAppInformer(boost::asio::io_context& io,
                                            std::shared_ptr<k8s::Client> client,
                                            InformerOptions options, const Clock& clock) {
  return std::make_shared<AppInformerImpl>(io, std::move(client), std::move(options), clock);
}

}  // namespace kje::cache
