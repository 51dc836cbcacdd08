#include "app/readiness.h"

#include "absl/strings/str_cat.h"

namespace kje::app {

Readiness JudgeReadiness(const std::vector<std::pair<std::string, cache::InformerStats>>& informers,
                         absl::Time now, absl::Duration stale_after, bool requires_sync) {
  for (const auto& [ns, stats] : informers) {
    if (!stats.synced) {
      if (requires_sync) {
        return {false, absl::StrCat("the informer of namespace ", ns, " has not synced yet")};
      }
      continue;
    }
    absl::Duration quiet = now - stats.last_sync;
    if (quiet > stale_after) {
      return {false, absl::StrCat("the informer of namespace ", ns, " has heard nothing from the ",
                                  "API server for ", absl::ToInt64Milliseconds(quiet),
                                  " ms (server.staleAfterMs: ",
                                  absl::ToInt64Milliseconds(stale_after), ")")};
    }
  }
  return {true, informers.empty() ? "no informers" : "every informer is current"};
}

Readiness JudgeApiReadiness(const k8s::RequestMetrics::Health& health, absl::Time now,
                            absl::Duration stale_after) {
  if (health.failing_since != absl::InfiniteFuture() && now - health.failing_since > stale_after) {
    return {false, absl::StrCat(
                       "every request to the API server has failed for ",
                       absl::ToInt64Milliseconds(now - health.failing_since),
                       " ms (server.staleAfterMs: ", absl::ToInt64Milliseconds(stale_after), ")")};
  }
  return {true, health.last_answered == absl::InfinitePast() ? "no request has failed yet"
                                                             : "the API server answers"};
}

bool ShouldProbe(const k8s::RequestMetrics::Health& health, absl::Time now,
                 absl::Duration stale_after) {
  return now - health.last_answered > stale_after / 2;
}

}  // namespace kje::app
