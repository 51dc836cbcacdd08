#include "cache/app_informer.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <chrono>
#include <cstdlib>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "async/one_shot.h"
#include "async/strand_task.h"
#include "base/log.h"
#include "base/strings.h"
#include "cache/subscriber_index.h"
#include "k8s/errors.h"

namespace kje::cache {
namespace {

namespace asio = boost::asio;

// The snapshot holds each application once, found by the projection's own name: a map keyed by a
// copy of the name would hold every name twice, which counts at 100k applications.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view name) const {
    return absl::Hash<absl::string_view>{}(ToAbsl(name));
  }
  size_t operator()(const AppPtr& app) const { return (*this)(std::string_view(app->name())); }
};
struct NameEq {
  using is_transparent = void;
  static std::string_view Name(std::string_view name) { return name; }
  static std::string_view Name(const AppPtr& app) { return app->name(); }
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return Name(a) == Name(b);
  }
};
using Map = absl::flat_hash_set<AppPtr, NameHash, NameEq>;

// Puts `app` in place of any application of the same name.
void Put(Map& map, AppPtr app) {
  auto it = map.find(app->name());
  if (it != map.end()) map.erase(it);
  map.insert(std::move(app));
}

// True when `candidate` may replace `current`: it is newer, or the two can't be compared (then
// the later arrival wins, as with any informer).
bool Supersedes(std::string_view candidate, std::string_view current) {
  auto cmp = CompareResourceVersions(candidate, current);
  return !cmp.has_value() || *cmp >= 0;
}

class AppInformerImpl final : public AppInformer,
                              public std::enable_shared_from_this<AppInformerImpl> {
 public:
  AppInformerImpl(asio::io_context& io, std::shared_ptr<k8s::Client> client,
                  InformerOptions options, const Clock& clock)
      : client_(std::move(client)),
        options_(std::move(options)),
        clock_(clock),
        strand_(asio::make_strand(io)),
        fetch_strand_(asio::make_strand(io)) {}

  void Start() override {
    if (started_.exchange(true)) return;
    auto loop =
        async::StrandTask::Spawn(strand_, Loop(shared_from_this()), [](const absl::Status&) {});
    bool stopped = false;
    {
      absl::MutexLock lock(&tasks_mu_);
      stopped = stopped_.load();
      if (!stopped) loop_ = loop;
    }
    if (stopped) loop->Cancel();
  }

  void Stop() override {
    if (stopped_.exchange(true)) return;
    // Whatever runs now is cancelled; whatever starts later sees stopped_ under tasks_mu_ and
    // cancels itself (Start, StartPage).
    std::shared_ptr<async::StrandTask> loop;
    std::shared_ptr<async::StrandTask> fetch;
    {
      absl::MutexLock lock(&tasks_mu_);
      loop = std::move(loop_);
      fetch = std::move(fetch_);
    }
    if (loop != nullptr) loop->Cancel();
    if (fetch != nullptr) fetch->Cancel();
    SubscriberIndex::List subs;
    {
      absl::MutexLock lock(&subs_mu_);
      subs = subscribers_.TakeAll();
    }
    for (const auto& sub : subs) sub->mailbox().Close();
  }

  bool synced() const override { return synced_.load(std::memory_order_acquire); }

  AppPtr Find(std::string_view name) const override {
    absl::ReaderMutexLock lock(&mu_);
    auto it = apps_.find(name);
    return it == apps_.end() ? nullptr : *it;
  }

  void ObserveWrite(const spark::AppProjection& app) override {
    auto ptr = std::make_shared<const spark::AppProjection>(app);
    bool changed = false;
    {
      absl::MutexLock lock(&mu_);
      // A write's answer can arrive after the watch has delivered a later state. If that state
      // is one without the app (deleted, or out of the selector), putting the older version
      // back would keep a deleted app forever: no event is left to take it out again.
      auto cmp = CompareResourceVersions(app.resource_version(), seen_version_);
      bool behind = cmp.has_value() && *cmp <= 0;
      changed = !(behind && !apps_.contains(app.name())) && UpsertLocked(ptr);
    }
    if (changed) Publish(AppEvent{AppEvent::Type::kUpserted, std::move(ptr)});
  }

  void ObserveGone(std::string_view name) override {
    AppPtr gone;
    {
      absl::MutexLock lock(&mu_);
      auto it = apps_.find(name);
      if (it == apps_.end()) return;
      gone = *it;
      apps_.erase(it);
    }
    Publish(AppEvent{AppEvent::Type::kDeleted, std::move(gone)});
  }

  std::shared_ptr<Subscription> Subscribe(std::vector<std::string> names,
                                          std::shared_ptr<Mailbox<AppEvent>> mailbox) override {
    auto sub = std::make_shared<Subscription>(std::move(names), std::move(mailbox));
    {
      // Asked under the lock: Stop sets stopped_ before it takes every subscription out, so a
      // subscription is either refused here or closed there.
      absl::MutexLock lock(&subs_mu_);
      if (!stopped_.load()) {
        subscribers_.Add(sub, sub->names());
        return sub;
      }
    }
    sub->mailbox().Close();
    return sub;
  }

  void Unsubscribe(const std::shared_ptr<Subscription>& subscription) override {
    subscription->mailbox().Close();
    absl::MutexLock lock(&subs_mu_);
    subscribers_.Remove(subscription, subscription->names());
  }

  size_t subscribers() const override {
    absl::MutexLock lock(&subs_mu_);
    return subscribers_.size();
  }

  std::vector<AppPtr> ListAfter(
      std::string_view after, size_t limit,
      const std::function<bool(const spark::AppProjection&)>& filter) const override {
    std::vector<AppPtr> matches;
    {
      absl::ReaderMutexLock lock(&mu_);
      for (const AppPtr& app : apps_) {
        if (app->name() > after) matches.push_back(app);
      }
    }
    // The filter is the caller's code: it runs on the shared versions, outside the lock.
    matches.erase(std::remove_if(matches.begin(), matches.end(),
                                 [&](const AppPtr& app) { return !filter(*app); }),
                  matches.end());
    auto by_name = [](const AppPtr& a, const AppPtr& b) { return a->name() < b->name(); };
    size_t n = std::min(limit, matches.size());
    std::partial_sort(matches.begin(), matches.begin() + static_cast<ptrdiff_t>(n), matches.end(),
                      by_name);
    matches.resize(n);
    return matches;
  }

  InformerStats stats() const override {
    InformerStats s;
    {
      absl::MutexLock lock(&stats_mu_);
      s = stats_;
    }
    {
      absl::ReaderMutexLock lock(&mu_);
      s.objects = static_cast<int64_t>(apps_.size());
    }
    s.synced = synced();
    return s;
  }

 private:
  // Takes `app` unless a newer (or the same) version is held. Returns whether it changed.
  bool UpsertLocked(const AppPtr& app) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = apps_.find(app->name());
    if (it != apps_.end() && ((*it)->resource_version() == app->resource_version() ||
                              !Supersedes(app->resource_version(), (*it)->resource_version()))) {
      return false;
    }
    Put(apps_, app);
    return true;
  }

  // Hands `event` to every subscriber that wants it. No lock is held: the lists are immutable
  // snapshots, and a mailbox push never blocks.
  void Publish(const AppEvent& event) {
    SubscriberIndex::Wanting wanting;
    {
      absl::MutexLock lock(&subs_mu_);
      wanting = subscribers_.For(event.app->name());
    }
    for (const auto* list : {wanting.all.get(), wanting.named.get()}) {
      if (list == nullptr) continue;
      for (const auto& sub : *list) sub->mailbox().Push(event);
    }
  }

  void UpdateStats(const std::function<void(InformerStats&)>& update) {
    absl::MutexLock lock(&stats_mu_);
    update(stats_);
  }

  absl::Duration Backoff() {
    absl::Duration delay = options_.min_backoff;
    for (int i = 0; i < consecutive_errors_ && delay < options_.max_backoff; ++i) delay *= 2;
    ++consecutive_errors_;
    return std::min(delay, options_.max_backoff);
  }

  asio::awaitable<void> Sleep(absl::Duration d) {
    asio::steady_timer timer(strand_);
    timer.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        absl::ToChronoNanoseconds(d)));
    co_await timer.async_wait(asio::use_awaitable);
  }

  // The version the snapshot holds of `object` when it is that very version (same name and
  // resourceVersion), else null. A relist keeps what didn't change instead of projecting it
  // again, so its peak is the changed objects, not a second copy of the snapshot.
  AppPtr Unchanged(const rapidjson::Value& object) const {
    std::string_view name = k8s::MetadataField(object, "name");
    std::string_view rv = k8s::MetadataField(object, "resourceVersion");
    if (name.empty() || rv.empty()) return nullptr;
    AppPtr held = Find(name);
    return held != nullptr && held->resource_version() == rv ? held : nullptr;
  }

  // One LIST page asked on the fetch strand: while the loop projects a page, the next one is
  // served, read and parsed beside it (a 100k-app list is 200 pages of about 1 MB). At most one
  // is in flight, a task of its own that Stop cancels. Its first answer stays: the page, or how
  // the task ended without one.
  using PageFetch = async::OneShot<absl::StatusOr<k8s::ListPage>>;

  std::shared_ptr<PageFetch> StartPage(const std::string& continue_token) {
    k8s::ListOptions list;
    list.label_selector = options_.label_selector;
    list.limit = options_.page_size;
    list.continue_token = continue_token;
    auto fetch = PageFetch::New();
    auto request = [](std::shared_ptr<k8s::Client> client, k8s::ResourceRef collection,
                      k8s::ListOptions options, absl::Time deadline,
                      std::shared_ptr<PageFetch> fetch) -> asio::awaitable<absl::Status> {
      auto listed = client->List(std::move(collection), std::move(options), deadline);
      fetch->Set(co_await std::move(listed));
      co_return absl::OkStatus();
    };
    auto task = async::StrandTask::Spawn(
        fetch_strand_,
        request(client_, options_.collection, std::move(list), absl::Now() + options_.list_timeout,
                fetch),
        // A fetch cancelled before it started, or that threw, still answers its waiter.
        [fetch](absl::Status status) {
          if (!status.ok()) fetch->Set(std::move(status));
        });
    bool stopped = false;
    {
      absl::MutexLock lock(&tasks_mu_);
      stopped = stopped_.load();
      if (!stopped) fetch_ = task;
    }
    if (stopped) task->Cancel();
    return fetch;
  }

  // The page once it is there, or CANCELLED when the informer stops while it waits.
  static asio::awaitable<absl::StatusOr<k8s::ListPage>> AwaitPage(
      std::shared_ptr<PageFetch> fetch) {
    // Without a deadline the wait ends without the page only when the informer is cancelled.
    absl::StatusOr<absl::StatusOr<k8s::ListPage>> page = co_await fetch->Wait();
    if (!page.ok()) co_return absl::CancelledError("informer stopped");
    co_return *std::move(page);
  }

  // The whole collection, page by page, the next page asked for as soon as this one's continue
  // token is known. A page that timed out waiting for its answer is asked again at once (a slow
  // API server under a large list is not a failure); an expired continue token or another
  // error ends the list.
  asio::awaitable<absl::StatusOr<std::pair<Map, std::string>>> ListAll() {
    Map building;
    std::string continue_token;
    int timeouts = 0;
    std::shared_ptr<PageFetch> next = StartPage(continue_token);
    for (;;) {
      auto page = co_await AwaitPage(std::move(next));
      if (!page.ok()) {
        // Ours or the API server's (504): a page of a big namespace can take a while.
        bool timed_out =
            absl::IsDeadlineExceeded(page.status()) || k8s::HttpCode(page.status()) == 504;
        if (timed_out && ++timeouts <= kMaxPageTimeouts) {
          log::Warn("informer list page timed out; asking again")
              .Kv("namespace", options_.collection.namespace_);
          next = StartPage(continue_token);
          continue;
        }
        co_return page.status();
      }
      timeouts = 0;
      if (!page->continue_token.empty()) {
        continue_token = page->continue_token;
        next = StartPage(continue_token);
      }
      for (const k8s::ParsedJson& item : page->items) {
        if (AppPtr same = Unchanged(item.value())) {
          Put(building, std::move(same));
          continue;
        }
        auto app = options_.project(item.value());
        if (!app.ok()) {
          log::Warn("informer skipped an unreadable object")
              .Kv("namespace", options_.collection.namespace_)
              .Kv("error", std::string(app.status().message()));
          continue;
        }
        Put(building, std::make_shared<const spark::AppProjection>(*std::move(app)));
      }
      if (page->continue_token.empty()) {
        co_return std::make_pair(std::move(building), page->resource_version);
      }
    }
  }

  // Replaces the snapshot with a list completed at `list_rv`, keeping what is known to be newer
  // than the list (our own writes made while it ran), and publishes the differences. The new
  // snapshot is moved in, never copied: a relist of 100k applications holds two of them at its
  // peak (the old one and the list), not three.
  void SwapIn(Map listed, const std::string& list_rv) {
    Map old;
    std::vector<AppEvent> changes;
    size_t objects = 0;
    {
      absl::MutexLock lock(&mu_);
      // Asked under mu_: a subscriber that comes later reads the new snapshot (its first read
      // waits for this lock), so it needs none of the differences.
      bool subscribed = subscribers() > 0;
      for (const AppPtr& app : apps_) {
        auto cmp = CompareResourceVersions(app->resource_version(), list_rv);
        if (!cmp.has_value() || *cmp <= 0) continue;
        auto it = listed.find(app->name());
        if (it == listed.end() ||
            CompareResourceVersions(app->resource_version(), (*it)->resource_version()) > 0) {
          Put(listed, app);
        }
      }
      // The differences are gathered here and published once the lock is released.
      if (subscribed) {
        for (const AppPtr& app : listed) {
          auto it = apps_.find(app->name());
          if (it == apps_.end() || (*it)->resource_version() != app->resource_version()) {
            changes.push_back(AppEvent{AppEvent::Type::kUpserted, app});
          }
        }
        for (const AppPtr& app : apps_) {
          if (!listed.contains(app->name())) {
            changes.push_back(AppEvent{AppEvent::Type::kDeleted, app});
          }
        }
      }
      old.swap(apps_);
      apps_.swap(listed);
      seen_version_ = list_rv;
      objects = apps_.size();
    }
    // The previous snapshot's last references to unchanged versions go outside the lock.
    old.clear();
    resource_version_ = list_rv;
    for (const AppEvent& change : changes) Publish(change);
    if (!synced()) {
      log::Info("informer synced")
          .Kv("namespace", options_.collection.namespace_)
          .Kv("objects", static_cast<int64_t>(objects));
    }
    synced_.store(true, std::memory_order_release);
    absl::Time now = clock_.Now();
    UpdateStats([&](InformerStats& s) {
      s.last_sync = now;
      s.resource_version = list_rv;
    });
  }

  // In the order the watch delivered the events, one at a time, before the watch's completion.
  void Apply(k8s::WatchEvent::Type type, const std::string& rv, AppPtr app) {
    if (!rv.empty()) {
      resource_version_ = rv;
      absl::MutexLock lock(&mu_);
      seen_version_ = rv;
    }
    consecutive_errors_ = 0;
    absl::Time now = clock_.Now();
    UpdateStats([&](InformerStats& s) {
      s.last_sync = now;
      if (!rv.empty()) s.resource_version = rv;
    });
    if (!app) return;
    bool changed = false;
    if (type == k8s::WatchEvent::Type::kDeleted) {
      absl::MutexLock lock(&mu_);
      auto it = apps_.find(app->name());
      if (it != apps_.end() && Supersedes(app->resource_version(), (*it)->resource_version())) {
        apps_.erase(it);
        changed = true;
      }
    } else {
      absl::MutexLock lock(&mu_);
      changed = UpsertLocked(app);
    }
    if (changed) {
      Publish(AppEvent{type == k8s::WatchEvent::Type::kDeleted ? AppEvent::Type::kDeleted
                                                               : AppEvent::Type::kUpserted,
                       std::move(app)});
    }
  }

  // One watch call, until it ends. Each event is projected and applied on the client's thread as
  // it arrives: the client reads the next one only when this returns, so a slow apply slows the
  // watch instead of queueing work without bound. The loop's own state may be touched there:
  // every event callback runs before the watch's completion resumes the loop.
  asio::awaitable<absl::Status> WatchOnce() {
    k8s::WatchOptions watch;
    watch.label_selector = options_.label_selector;
    watch.resource_version = resource_version_;
    watch.allow_bookmarks = true;
    watch.resume = true;
    std::weak_ptr<AppInformerImpl> weak = weak_from_this();
    auto on_event = [weak, ns = options_.collection.namespace_](const k8s::WatchEvent& event) {
      auto self = weak.lock();
      if (!self || self->stopped_.load()) return;
      AppPtr app;
      if (event.type != k8s::WatchEvent::Type::kBookmark) {
        auto parsed = self->options_.project(event.object.value());
        if (!parsed.ok()) {
          log::Warn("informer skipped an unreadable event")
              .Kv("namespace", ns)
              .Kv("error", std::string(parsed.status().message()));
        } else {
          app = std::make_shared<const spark::AppProjection>(*std::move(parsed));
        }
      }
      self->Apply(event.type, event.resource_version, std::move(app));
    };
    auto watching =
        client_->Watch(options_.collection, watch, absl::Now() + options_.watch_period, on_event);
    co_return co_await std::move(watching);
  }

  static asio::awaitable<absl::Status> Loop(std::shared_ptr<AppInformerImpl> self) {
    co_await Run(std::move(self));
    co_return absl::OkStatus();
  }

  static asio::awaitable<void> Run(std::shared_ptr<AppInformerImpl> self) {
    bool first = true;
    while (!self->stopped_.load()) {
      if (!first) self->UpdateStats([](InformerStats& s) { ++s.relists; });
      first = false;
      auto listed = co_await self->ListAll();
      if (self->stopped_.load()) co_return;
      if (!listed.ok()) {
        self->UpdateStats([](InformerStats& s) { ++s.errors; });
        log::Warn("informer list failed")
            .Kv("namespace", self->options_.collection.namespace_)
            .Kv("error", std::string(listed.status().message()));
        co_await self->Sleep(self->Backoff());
        continue;
      }
      self->SwapIn(std::move(listed->first), listed->second);
      self->consecutive_errors_ = 0;
      // Watch until only a relist can catch up.
      while (!self->stopped_.load()) {
        absl::Status status = co_await self->WatchOnce();
        if (self->stopped_.load()) co_return;
        if (k8s::IsK8sGone(status)) {
          log::Info("informer relisting after 410 Gone")
              .Kv("namespace", self->options_.collection.namespace_);
          break;
        }
        if (!status.ok() && !absl::IsDeadlineExceeded(status)) {
          self->UpdateStats([](InformerStats& s) { ++s.errors; });
          log::Warn("informer watch failed")
              .Kv("namespace", self->options_.collection.namespace_)
              .Kv("error", std::string(status.message()));
          co_await self->Sleep(self->Backoff());
        }
        self->UpdateStats([](InformerStats& s) { ++s.watch_restarts; });
      }
    }
  }

  static constexpr int kMaxPageTimeouts = 3;

  const std::shared_ptr<k8s::Client> client_;
  const InformerOptions options_;
  const Clock& clock_;
  asio::strand<asio::io_context::executor_type> strand_;
  // The LIST page fetched ahead (StartPage) runs on a strand of its own.
  asio::strand<asio::io_context::executor_type> fetch_strand_;
  // The loop and the page in flight, for Stop to cancel.
  absl::Mutex tasks_mu_;
  std::shared_ptr<async::StrandTask> loop_ ABSL_GUARDED_BY(tasks_mu_);
  std::shared_ptr<async::StrandTask> fetch_ ABSL_GUARDED_BY(tasks_mu_);
  std::atomic<bool> started_ = false;
  std::atomic<bool> stopped_ = false;
  std::atomic<bool> synced_ = false;

  // The loop's own state: touched on the strand, and by the watch's event callbacks, which all
  // run while the loop awaits that watch.
  std::string resource_version_;
  int consecutive_errors_ = 0;

  // Guards the map alone; held for a lookup or a single insert, never while other code runs.
  // SwapIn asks for the subscriber count under it (mu_ before subs_mu_, never the reverse).
  mutable absl::Mutex mu_;
  Map apps_ ABSL_GUARDED_BY(mu_);
  // The collection's version the map reflects: the last list's, or the last watch event's.
  std::string seen_version_ ABSL_GUARDED_BY(mu_);

  mutable absl::Mutex stats_mu_;
  InformerStats stats_ ABSL_GUARDED_BY(stats_mu_);

  // Its lists are replaced, never changed in place: Publish() hands a change over outside the lock.
  mutable absl::Mutex subs_mu_;
  SubscriberIndex subscribers_ ABSL_GUARDED_BY(subs_mu_);
};

}  // namespace

Subscription::Subscription(std::vector<std::string> names,
                           std::shared_ptr<Mailbox<AppEvent>> mailbox)
    : names_(std::move(names)), mailbox_(std::move(mailbox)) {}

std::optional<int> CompareResourceVersions(std::string_view a, std::string_view b) {
  uint64_t x;
  uint64_t y;
  if (!absl::SimpleAtoi(ToAbsl(a), &x) || !absl::SimpleAtoi(ToAbsl(b), &y)) return std::nullopt;
  if (x < y) return -1;
  if (x > y) return 1;
  return 0;
}

std::shared_ptr<AppInformer> NewAppInformer(asio::io_context& io,
                                            std::shared_ptr<k8s::Client> client,
                                            InformerOptions options, const Clock& clock) {
  // Which operator's objects these are is the caller's to say: there is no default.
  if (!options.project) {
    log::Error("an informer was made without its operator's projection");
    std::abort();
  }
  return std::make_shared<AppInformerImpl>(io, std::move(client), std::move(options), clock);
}

}  // namespace kje::cache
