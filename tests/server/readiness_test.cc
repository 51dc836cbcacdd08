#include "server/readiness.h"

#include <catch2/catch.hpp>

namespace kje::server {
namespace {

using Informers = std::vector<std::pair<std::string, cache::InformerStats>>;

const absl::Time kNow = absl::FromUnixSeconds(1800000000);
const absl::Duration kStale = absl::Seconds(180);

cache::InformerStats Synced(absl::Duration ago) {
  cache::InformerStats s;
  s.synced = true;
  s.last_sync = kNow - ago;
  return s;
}

cache::InformerStats Unsynced() { return cache::InformerStats{}; }

TEST_CASE("readiness: no informers, or all current, is ready", "[readiness]") {
  CHECK(JudgeReadiness({}, kNow, kStale, true).ready);
  Readiness r =
      JudgeReadiness({{"a", Synced(absl::Seconds(1))}, {"b", Synced(kStale)}}, kNow, kStale, true);
  CHECK(r.ready);  // exactly at the bound is still current
  CHECK(r.reason == "every informer is current");
}

TEST_CASE("readiness: an unsynced informer counts only when sync is required", "[readiness]") {
  Informers informers = {{"a", Synced(absl::Seconds(1))}, {"jobs", Unsynced()}};
  Readiness r = JudgeReadiness(informers, kNow, kStale, /*requires_sync=*/true);
  CHECK_FALSE(r.ready);
  CHECK(r.reason == "the informer of namespace jobs has not synced yet");
  CHECK(JudgeReadiness(informers, kNow, kStale, /*requires_sync=*/false).ready);
}

TEST_CASE("readiness: a synced informer quiet past the bound is not ready", "[readiness]") {
  Informers informers = {{"a", Synced(absl::Seconds(1))},
                         {"jobs", Synced(kStale + absl::Milliseconds(1))}};
  for (bool requires_sync : {true, false}) {
    Readiness r = JudgeReadiness(informers, kNow, kStale, requires_sync);
    CHECK_FALSE(r.ready);
    CHECK(r.reason ==
          "the informer of namespace jobs has heard nothing from the API server for 180001 ms "
          "(server.staleAfterMs: 180000)");
  }
  // It hears again (a bookmark): ready.
  informers[1].second.last_sync = kNow;
  CHECK(JudgeReadiness(informers, kNow, kStale, true).ready);
}

TEST_CASE("readiness: a clock behind the informer's last sync is current", "[readiness]") {
  CHECK(JudgeReadiness({{"a", Synced(-absl::Seconds(5))}}, kNow, kStale, true).ready);
}

}  // namespace
}  // namespace kje::server
