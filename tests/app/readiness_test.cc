#include "app/readiness.h"

#include <catch2/catch.hpp>

namespace kje::app {
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

TEST_CASE("readiness without informers: the requests tell, answered or not", "[readiness]") {
  k8s::RequestMetrics requests;
  auto at = [](absl::Duration d) { return kNow - absl::Hours(1) + d; };
  // Nothing asked yet: ready, and worth a probe.
  CHECK(JudgeApiReadiness(requests.ApiHealth(), at(absl::ZeroDuration()), kStale).ready);
  CHECK(ShouldProbe(requests.ApiHealth(), at(absl::ZeroDuration()), kStale));
  requests.Record("get", "raw", "200", absl::Milliseconds(2), at(absl::ZeroDuration()));
  CHECK_FALSE(ShouldProbe(requests.ApiHealth(), at(kStale / 2), kStale));
  CHECK(ShouldProbe(requests.ApiHealth(), at(kStale / 2 + absl::Milliseconds(1)), kStale));
  // A 404 or a 403 is the API server answering; no response, 429 and 5xx are not.
  requests.Record("get", "pods", "404", absl::Milliseconds(2), at(absl::Seconds(1)));
  requests.Record("get", "pods", "error", absl::Seconds(10), at(absl::Seconds(20)));
  requests.Record("get", "pods", "503", absl::Milliseconds(2), at(absl::Seconds(30)));
  requests.Record("get", "pods", "429", absl::Milliseconds(2), at(absl::Seconds(40)));
  k8s::RequestMetrics::Health health = requests.ApiHealth();
  CHECK(health.last_answered == at(absl::Seconds(1)));
  CHECK(health.failing_since == at(absl::Seconds(20)));
  CHECK(JudgeApiReadiness(health, at(absl::Seconds(20)) + kStale, kStale).ready);
  Readiness down =
      JudgeApiReadiness(health, at(absl::Seconds(20)) + kStale + absl::Milliseconds(1), kStale);
  CHECK_FALSE(down.ready);
  CHECK(down.reason ==
        "every request to the API server has failed for 180001 ms (server.staleAfterMs: 180000)");
  // The first answer heals it.
  requests.Record("get", "raw", "200", absl::Milliseconds(2), at(absl::Minutes(5)));
  CHECK(JudgeApiReadiness(requests.ApiHealth(), at(absl::Minutes(5)), kStale).ready);
  CHECK(requests.ApiHealth().failing_since == absl::InfiniteFuture());
}

}  // namespace
}  // namespace kje::app
