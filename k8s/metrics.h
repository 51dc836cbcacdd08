#pragma once

// Request counters of the Kubernetes client, for the /metrics endpoint: one entry per
// (verb, resource, code) with a count and a latency histogram. Code is the HTTP status, or "error"
// when no response arrived. Every attempt counts, retries included.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace kje::k8s {

class RequestMetrics {
 public:
  // Upper bounds in seconds, client-go's rest_client_request_duration_seconds buckets.
  static constexpr std::array<double, 12> kBuckets = {0.005, 0.025, 0.1, 0.25, 0.5, 1,
                                                      2,     4,     8,   15,   30,  60};

  struct Key {
    std::string verb;      // get, list, watch, create, update, patch, delete
    std::string resource;  // plural[/subresource]
    std::string code;      // "200", "404", ..., "error"
    auto operator<=>(const Key&) const = default;
  };
  struct Value {
    uint64_t count = 0;
    double latency_sum_seconds = 0;
    // Cumulative counts per bucket (Prometheus style); the last bucket is +Inf = count.
    std::array<uint64_t, kBuckets.size()> bucket_counts{};
  };

  // The API server's health as the requests saw it: the last time one was answered (any HTTP
  // status but 429 and 5xx: a 404 or a 403 is the API server working), and since when every
  // request has failed (no response, 429 or 5xx); InfiniteFuture while the last one was answered.
  struct Health {
    absl::Time last_answered = absl::InfinitePast();
    absl::Time failing_since = absl::InfiniteFuture();
  };

  // `now` is when the attempt ended.
  void Record(const std::string& verb, const std::string& resource, const std::string& code,
              absl::Duration latency, absl::Time now = absl::Now());
  Health ApiHealth() const;

  std::map<Key, Value> Snapshot() const;
  uint64_t Count(const std::string& verb, const std::string& resource,
                 const std::string& code) const;

 private:
  mutable absl::Mutex mu_;
  std::map<Key, Value> values_ ABSL_GUARDED_BY(mu_);
  Health health_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje::k8s
