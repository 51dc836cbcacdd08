#include "server/readiness.h"

#include "absl/strings/str_cat.h"

namespace kje::server {

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

}  // namespace kje::server
