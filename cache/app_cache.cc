#include "cache/app_cache.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/strings.h"

namespace kje::cache {

AppCache::AppCache(boost::asio::io_context& io, std::shared_ptr<k8s::Client> client,
                   InformerOptions prototype, CacheOptions options, const Clock& clock)
    : io_(io),
      client_(std::move(client)),
      prototype_(std::move(prototype)),
      options_(options),
      clock_(clock) {}

AppCache::~AppCache() { Stop(); }

std::shared_ptr<AppInformer> AppCache::NewInformer(const std::string& ns) {
  InformerOptions options = prototype_;
  options.collection.namespace_ = ns;
  return NewAppInformer(io_, client_, std::move(options), clock_);
}

const std::shared_ptr<AppInformer>* AppCache::InformerLocked(std::string_view ns) const {
  if (stopped_) return nullptr;
  auto it = informers_.find(ToAbsl(ns));
  return it == informers_.end() ? nullptr : &it->second.informer;
}

std::shared_ptr<AppInformer> AppCache::Existing(std::string_view ns) const {
  if (!options_.enabled) return nullptr;
  absl::ReaderMutexLock lock(&mu_);
  const std::shared_ptr<AppInformer>* informer = InformerLocked(ns);
  return informer == nullptr ? nullptr : *informer;
}

void AppCache::Pin(const std::string& ns) {
  if (!options_.enabled) return;
  std::shared_ptr<AppInformer> started;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    auto [it, inserted] = informers_.try_emplace(ns);
    it->second.pinned = true;
    if (!inserted) return;
    it->second.informer = NewInformer(ns);
    started = it->second.informer;
  }
  started->Start();
}

void AppCache::Stop() {
  decltype(informers_) informers;
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
    informers.swap(informers_);
  }
  for (auto& [ns, entry] : informers) entry.informer->Stop();
}

AppPtr AppCache::Find(std::string_view ns, std::string_view name) const {
  if (!options_.enabled) return nullptr;
  // The informer is asked under this lock (Subscribe takes the two in the same order): a lookup,
  // which every cached Status makes, takes and drops no reference to it.
  absl::ReaderMutexLock lock(&mu_);
  const std::shared_ptr<AppInformer>* informer = InformerLocked(ns);
  return informer == nullptr ? nullptr : (*informer)->Find(name);
}

void AppCache::ObserveWrite(const spark::AppProjection& app) {
  if (auto informer = Existing(app.namespace_())) informer->ObserveWrite(app);
}

void AppCache::ObserveGone(const std::string& ns, std::string_view name) {
  if (auto informer = Existing(ns)) informer->ObserveGone(name);
}

absl::StatusOr<AppCache::Subscribed> AppCache::Subscribe(
    const std::string& ns, std::vector<std::string> names,
    std::shared_ptr<Mailbox<AppEvent>> mailbox) {
  if (!options_.enabled) {
    return absl::FailedPreconditionError(
        "following changes needs the informer cache, which is disabled (statusCacheTtlMs <= 0)");
  }
  std::shared_ptr<AppInformer> informer;
  std::shared_ptr<Subscription> subscription;
  bool start = false;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return absl::UnavailableError("the informer cache is shutting down");
    auto it = informers_.find(ns);
    if (it != informers_.end()) {
      informer = it->second.informer;
    } else {
      size_t on_demand = 0;
      for (const auto& [n, entry] : informers_) on_demand += entry.pinned ? 0 : 1;
      if (on_demand >= options_.max_on_demand) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "namespace ", ns, " isn't followed, and ", on_demand,
            " other namespaces are already followed on demand (the limit, "
            "server.maxOnDemandInformers); watch jobs of the configured namespaces, or retry "
            "later"));
      }
      informer = NewInformer(ns);
      informers_.emplace(ns, Entry{informer, false});
      start = true;
    }
    // Under the lock, so an Unsubscribe that finds the informer idle can't stop it in between.
    subscription = informer->Subscribe(std::move(names), std::move(mailbox));
  }
  if (start) {
    log::Info("following a namespace on demand").Kv("namespace", ns);
    informer->Start();
  }
  return Subscribed{std::move(informer), std::move(subscription)};
}

void AppCache::Unsubscribe(const std::string& ns, const Subscribed& subscribed) {
  subscribed.informer->Unsubscribe(subscribed.subscription);
  std::shared_ptr<AppInformer> idle;
  {
    absl::MutexLock lock(&mu_);
    auto it = informers_.find(ns);
    if (it == informers_.end() || it->second.pinned || it->second.informer != subscribed.informer ||
        subscribed.informer->subscribers() > 0) {
      return;
    }
    idle = std::move(it->second.informer);
    informers_.erase(it);
  }
  log::Info("stopped following an idle namespace").Kv("namespace", ns);
  idle->Stop();
}

std::optional<std::vector<AppPtr>> AppCache::ListAfter(
    const std::string& ns, std::string_view after, size_t limit,
    const std::function<bool(const spark::AppProjection&)>& filter) const {
  auto informer = Existing(ns);
  if (informer == nullptr || !informer->synced()) return std::nullopt;
  return informer->ListAfter(after, limit, filter);
}

bool AppCache::PinnedSynced() const {
  absl::ReaderMutexLock lock(&mu_);
  for (const auto& [ns, entry] : informers_) {
    if (entry.pinned && !entry.informer->synced()) return false;
  }
  return true;
}

bool AppCache::Follows(const std::string& ns) const { return Existing(ns) != nullptr; }

std::vector<std::pair<std::string, InformerStats>> AppCache::Stats() const {
  return StatsOf(/*pinned_only=*/false);
}

std::vector<std::pair<std::string, InformerStats>> AppCache::PinnedStats() const {
  return StatsOf(/*pinned_only=*/true);
}

std::vector<std::pair<std::string, InformerStats>> AppCache::StatsOf(bool pinned_only) const {
  std::vector<std::shared_ptr<AppInformer>> informers;
  std::vector<std::pair<std::string, InformerStats>> out;
  {
    absl::ReaderMutexLock lock(&mu_);
    for (const auto& [ns, entry] : informers_) {
      if (pinned_only && !entry.pinned) continue;
      out.emplace_back(ns, InformerStats{});
      informers.push_back(entry.informer);
    }
  }
  for (size_t i = 0; i < informers.size(); ++i) out[i].second = informers[i]->stats();
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });  // by namespace
  return out;
}

}  // namespace kje::cache
