#include "k8s/metrics.h"

namespace kje::k8s {

void RequestMetrics::Record(const std::string& verb, const std::string& resource,
                            const std::string& code, absl::Duration latency) {
  double seconds = absl::ToDoubleSeconds(latency);
  absl::MutexLock lock(&mu_);
  Value& value = values_[Key{verb, resource, code}];
  ++value.count;
  value.latency_sum_seconds += seconds;
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) ++value.bucket_counts[i];
  }
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
