#pragma once

// The SparkApplications the service can see: one informer per followed namespace.
//
// Which namespaces are followed is bounded by configuration, never by callers: the configured
// ("pinned") namespaces from the start, plus at most `max_on_demand` others, each started for a
// subscriber (WatchStatus, FollowOutput) and stopped as soon as its last subscriber leaves.
// Reads of any other namespace miss, and the caller GETs what it needs: a made-up namespace costs
// one request, not a LIST+WATCH for ever (nor a metric series).
//
// Disabled (statusCacheTtlMs <= 0, as in the Java executor), it holds nothing and every lookup
// misses, so callers GET every time.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cache/app_informer.h"

namespace kje::cache {

struct CacheOptions {
  bool enabled = true;
  // Informers started on demand for namespaces outside the pinned ones, at most this many at once.
  size_t max_on_demand = 8;
};

class AppCache {
 public:
  // `prototype` gives everything but collection.namespace_, set per informer.
  AppCache(boost::asio::io_context& io, std::shared_ptr<k8s::Client> client,
           InformerOptions prototype, CacheOptions options, const Clock& clock);
  ~AppCache();

  bool enabled() const { return options_.enabled; }

  // Follows `ns` from now on (a configured namespace); no-op when disabled.
  void Pin(const std::string& ns);
  // Stops every informer and closes every subscription; later lookups miss.
  void Stop();

  // A miss means "ask the API server", never "doesn't exist".
  AppPtr Find(std::string_view ns, std::string_view name) const;
  void ObserveWrite(const spark::AppProjection& app);
  void ObserveGone(const std::string& ns, std::string_view name);

  // Changes of `names` in `ns` (see AppInformer::Subscribe), starting an on-demand informer when
  // `ns` isn't followed yet. FailedPrecondition when disabled; ResourceExhausted when the
  // on-demand bound is reached; Unavailable when stopped.
  struct Subscribed {
    std::shared_ptr<AppInformer> informer;
    std::shared_ptr<Subscription> subscription;
  };
  absl::StatusOr<Subscribed> Subscribe(const std::string& ns, std::vector<std::string> names,
                                       std::shared_ptr<Mailbox<AppEvent>> mailbox);
  // Never waits; an on-demand informer left without subscribers stops.
  void Unsubscribe(const std::string& ns, const Subscribed& subscribed);

  // A page of `ns`'s applications from memory (AppInformer::ListAfter), or nullopt when the cache
  // can't answer: disabled, not followed, or not synced yet.
  std::optional<std::vector<AppPtr>> ListAfter(
      const std::string& ns, std::string_view after, size_t limit,
      const std::function<bool(const spark::AppProjection&)>& filter) const;

  // Whether every pinned informer has completed its first list.
  bool PinnedSynced() const;
  // Whether `ns` is followed now (pinned or on demand).
  bool Follows(const std::string& ns) const;
  // Each followed namespace's informer, ordered by namespace.
  std::vector<std::pair<std::string, InformerStats>> Stats() const;
  // The pinned informers only: what readiness is judged on (an on-demand informer is a caller's
  // stream, and a caller must not be able to take the replica out of rotation).
  std::vector<std::pair<std::string, InformerStats>> PinnedStats() const;

 private:
  struct Entry {
    std::shared_ptr<AppInformer> informer;
    bool pinned = false;
  };
  std::vector<std::pair<std::string, InformerStats>> StatsOf(bool pinned_only) const;
  // The followed namespace's informer; nullptr when it isn't followed or the cache has stopped.
  const std::shared_ptr<AppInformer>* InformerLocked(std::string_view ns) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  std::shared_ptr<AppInformer> Existing(std::string_view ns) const;
  std::shared_ptr<AppInformer> NewInformer(const std::string& ns);

  boost::asio::io_context& io_;
  const std::shared_ptr<k8s::Client> client_;
  const InformerOptions prototype_;
  const CacheOptions options_;
  const Clock& clock_;

  mutable absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_map<std::string, Entry> informers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje::cache
