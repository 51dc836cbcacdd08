#pragma once

// Whether this replica should take traffic: its view of the jobs must be current. An informer
// that has synced hears from the API server at least once a minute while all is well (a change,
// or the periodic bookmark every watch gets); one that has heard nothing for longer than
// server.staleAfterMs answers from a view that may be arbitrarily old, so the replica is not
// ready until it hears again. Pure: the caller brings the informers' stats and the time.

#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "cache/app_informer.h"
#include "k8s/metrics.h"

namespace kje::app {

struct Readiness {
  bool ready = true;
  std::string reason;  // why not, or what it was judged on
};

// `requires_sync`: an informer that has never synced makes the replica not ready (otherwise it is
// left out until it has).
Readiness JudgeReadiness(const std::vector<std::pair<std::string, cache::InformerStats>>& informers,
                         absl::Time now, absl::Duration stale_after, bool requires_sync);

// Without informers (statusCacheTtlMs <= 0, or no configured namespace) the requests themselves
// tell: not ready while every request for longer than stale_after has failed (no response, 429
// or 5xx), ready again at the first answer. The caller keeps requests coming while it is quiet
// (ShouldProbe), or a replica nobody calls could never recover.
Readiness JudgeApiReadiness(const k8s::RequestMetrics::Health& health, absl::Time now,
                            absl::Duration stale_after);
// Whether the API server should be asked something now so that JudgeApiReadiness has news:
// nothing answered for half of stale_after.
bool ShouldProbe(const k8s::RequestMetrics::Health& health, absl::Time now,
                 absl::Duration stale_after);

}  // namespace kje::app
