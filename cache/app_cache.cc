#include "cache/app_cache.h"

#include <utility>

namespace kje::cache {

AppCache::AppCache(boost::asio::io_context& io, std::shared_ptr<k8s::Client> client,
                   InformerOptions prototype, bool enabled, const Clock& clock)
    : io_(io),
      client_(std::move(client)),
      prototype_(std::move(prototype)),
      enabled_(enabled),
      clock_(clock) {}

AppCache::~AppCache() { Stop(); }

std::shared_ptr<AppInformer> AppCache::InformerFor(const std::string& ns, bool create) {
  if (!enabled_) return nullptr;
  {
    // The common case, on every read: shared, so concurrent RPCs don't queue here.
    absl::ReaderMutexLock lock(&mu_);
    if (stopped_) return nullptr;
    auto it = informers_.find(ns);
    if (it != informers_.end()) return it->second;
    if (!create) return nullptr;
  }
  std::shared_ptr<AppInformer> informer;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return nullptr;
    auto it = informers_.find(ns);
    if (it != informers_.end()) return it->second;
    InformerOptions options = prototype_;
    options.collection.namespace_ = ns;
    informer = NewAppInformer(io_, client_, std::move(options), clock_);
    informers_.emplace(ns, informer);
  }
  informer->Start();
  return informer;
}

void AppCache::Watch(const std::string& ns) { InformerFor(ns, true); }

void AppCache::Stop() {
  std::map<std::string, std::shared_ptr<AppInformer>> informers;
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
    informers = informers_;
  }
  for (auto& [ns, informer] : informers) informer->Stop();
}

std::optional<spark::AppProjection> AppCache::Find(const std::string& ns, std::string_view name) {
  auto informer = InformerFor(ns, true);
  if (informer == nullptr) return std::nullopt;
  return informer->Find(name);
}

void AppCache::ObserveWrite(const spark::AppProjection& app) {
  if (auto informer = InformerFor(app.namespace_, false)) informer->ObserveWrite(app);
}

void AppCache::ObserveGone(const std::string& ns, std::string_view name) {
  if (auto informer = InformerFor(ns, false)) informer->ObserveGone(name);
}

std::optional<AppCache::Subscription> AppCache::Subscribe(const std::string& ns,
                                                          AppListener listener) {
  auto informer = InformerFor(ns, true);
  if (informer == nullptr) return std::nullopt;
  return Subscription{ns, informer->Subscribe(std::move(listener))};
}

void AppCache::Unsubscribe(const Subscription& subscription) {
  std::shared_ptr<AppInformer> informer;
  {
    // Also after Stop(): the informer still holds the listener.
    absl::MutexLock lock(&mu_);
    auto it = informers_.find(subscription.namespace_);
    if (it == informers_.end()) return;
    informer = it->second;
  }
  informer->Unsubscribe(subscription.id);
}

std::optional<std::vector<spark::AppProjection>> AppCache::ListAfter(
    const std::string& ns, std::string_view after, size_t limit,
    const std::function<bool(const spark::AppProjection&)>& filter) {
  auto informer = InformerFor(ns, true);
  if (informer == nullptr || !informer->synced()) return std::nullopt;
  return informer->ListAfter(after, limit, filter);
}

bool AppCache::AllSynced() const {
  absl::MutexLock lock(&mu_);
  for (const auto& [ns, informer] : informers_) {
    if (!informer->synced()) return false;
  }
  return true;
}

std::vector<std::pair<std::string, InformerStats>> AppCache::Stats() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::pair<std::string, InformerStats>> out;
  for (const auto& [ns, informer] : informers_) out.emplace_back(ns, informer->stats());
  return out;
}

}  // namespace kje::cache
