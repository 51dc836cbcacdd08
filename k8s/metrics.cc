#include "k8s/metrics.h"

#include <algorithm>

namespace kje::k8s {

namespace {

// A response the API server gave as itself: not a lost request, a throttle or a server error.
bool IsAnswer(const std::string& code) {
  return !code.empty() && code != "error" && code != "429" && code[0] != '5';
}

}  // namespace

void RequestMetrics::Record(const std::string& verb, const std::string& resource,
                            const std::string& code, absl::Duration latency, absl::Time now) {
  double seconds = absl::ToDoubleSeconds(latency);
  absl::MutexLock lock(&mu_);
  if (IsAnswer(code)) {
    health_.last_answered = std::max(health_.last_answered, now);
    health_.failing_since = absl::InfiniteFuture();
  } else if (health_.failing_since == absl::InfiniteFuture()) {
    health_.failing_since = now;
  }
  Value& value = values_[Key{verb, resource, code}];
  ++value.count;
  value.latency_sum_seconds += seconds;
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) ++value.bucket_counts[i];
  }
}

RequestMetrics::Health RequestMetrics::ApiHealth() const {
  absl::MutexLock lock(&mu_);
  return health_;
}

std::map<RequestMetrics::Key, RequestMetrics::Value> RequestMetrics::Snapshot() const {
  absl::MutexLock lock(&mu_);
  return values_;
}

uint64_t RequestMetrics::Count(const std::string& verb, const std::string& resource,
                               const std::string& code) const {
  absl::MutexLock lock(&mu_);
  auto it = values_.find(Key{verb, resource, code});
  return it == values_.end() ? 0 : it->second.count;
}

}  // namespace kje::k8s
