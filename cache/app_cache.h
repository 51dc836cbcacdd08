#pragma once

// The SparkApplications the service can see, one informer per namespace, started for the
// configured namespaces up front and for any other namespace on its first lookup. Disabled
// (statusCacheTtlMs <= 0, as in the Java executor), it holds nothing and every lookup misses, so
// callers GET every time.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "cache/app_informer.h"

namespace kje::cache {

class AppCache {
 public:
  // `prototype` gives everything but collection.namespace_, set per informer.
  AppCache(boost::asio::io_context& io, std::shared_ptr<k8s::Client> client,
           InformerOptions prototype, bool enabled, const Clock& clock);
  ~AppCache();

  bool enabled() const { return enabled_; }

  // Starts following `ns` if not yet; no-op when disabled.
  void Watch(const std::string& ns);
  // Stops every informer; later lookups miss.
  void Stop();

  // A miss means "ask the API server", never "doesn't exist".
  std::optional<spark::AppProjection> Find(const std::string& ns, std::string_view name);
  void ObserveWrite(const spark::AppProjection& app);
  void ObserveGone(const std::string& ns, std::string_view name);

  // Listens to the changes of `ns`'s applications (starting its informer if needed). nullopt when
  // disabled or stopped. See AppInformer::Subscribe.
  struct Subscription {
    std::string namespace_;
    uint64_t id = 0;
  };
  std::optional<Subscription> Subscribe(const std::string& ns, AppListener listener);
  void Unsubscribe(const Subscription& subscription);

  // A page of `ns`'s applications from memory (AppInformer::ListAfter), or nullopt when the cache
  // can't answer: disabled, or the namespace's informer hasn't completed its first list (it is
  // started, so a later call may answer).
  std::optional<std::vector<spark::AppProjection>> ListAfter(
      const std::string& ns, std::string_view after, size_t limit,
      const std::function<bool(const spark::AppProjection&)>& filter);

  // Whether every informer has completed its first list.
  bool AllSynced() const;
  std::vector<std::pair<std::string, InformerStats>> Stats() const;

 private:
  std::shared_ptr<AppInformer> InformerFor(const std::string& ns, bool create);

  boost::asio::io_context& io_;
  const std::shared_ptr<k8s::Client> client_;
  const InformerOptions prototype_;
  const bool enabled_;
  const Clock& clock_;

  mutable absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, std::shared_ptr<AppInformer>> informers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje::cache
