#include "app/readiness_monitor.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "base/clock.h"
#include "server/config.h"

namespace kje::app {
namespace {

using Informers = std::vector<std::pair<std::string, cache::InformerStats>>;

const absl::Duration kStale = absl::Seconds(180);

// The monitor's world, every input a fake: the test moves the clock, the informers and the
// requests, calls Check() (as the timer would) and reads what readiness went through. The
// period is long enough that the monitor's own timer never fires during a test.
struct World {
  FakeClock clock;
  Informers informers;
  k8s::RequestMetrics requests;
  std::vector<bool> moves;                    // every set_ready, in order
  std::vector<absl::Time> probe_deadlines;    // one per probe asked
  std::vector<std::function<void()>> probes;  // their `done`, not yet called
  boost::asio::io_context io;

  ReadinessOptions Options(bool requires_sync, bool start_not_ready = false) {
    ReadinessOptions options;
    options.stale_after = kStale;
    options.requires_sync = requires_sync;
    options.start_not_ready = start_not_ready;
    options.period = absl::Hours(24);
    return options;
  }

  ReadinessInputs Inputs() {
    ReadinessInputs inputs;
    inputs.informers = [this] { return informers; };
    inputs.api_health = [this] { return requests.ApiHealth(); };
    inputs.probe = [this](absl::Time deadline, std::function<void()> done) {
      probe_deadlines.push_back(deadline);
      probes.push_back(std::move(done));
    };
    inputs.set_ready = [this](bool ready) { moves.push_back(ready); };
    return inputs;
  }

  cache::InformerStats Synced(absl::Duration ago) {
    cache::InformerStats s;
    s.synced = true;
    s.last_sync = clock.Now() - ago;
    return s;
  }
};

TEST_CASE("readiness monitor: waits for the sync, then moves only on a changed verdict",
          "[readiness_monitor]") {
  World w;
  w.informers = {{"jobs", cache::InformerStats{}}};
  ReadinessMonitor monitor(w.io.get_executor(), w.Options(/*requires_sync=*/true), w.Inputs(),
                           w.clock);
  CHECK_FALSE(monitor.ready().has_value());
  monitor.Check();
  CHECK(w.moves == std::vector<bool>{false});
  monitor.Check();  // the same verdict: readiness is not moved again
  CHECK(w.moves == std::vector<bool>{false});

  w.informers[0].second = w.Synced(absl::ZeroDuration());
  monitor.Check();
  CHECK(w.moves == std::vector<bool>{false, true});
  CHECK(monitor.ready() == true);
  CHECK(w.probes.empty());  // informers tell: the API server is never probed
}

TEST_CASE("readiness monitor: an informer quiet past the bound, then heard again",
          "[readiness_monitor]") {
  World w;
  w.informers = {{"jobs", w.Synced(absl::ZeroDuration())}};
  ReadinessMonitor monitor(w.io.get_executor(), w.Options(/*requires_sync=*/false), w.Inputs(),
                           w.clock);
  monitor.Check();
  CHECK(w.moves == std::vector<bool>{true});

  w.clock.Advance(kStale);  // exactly at the bound: still current
  monitor.Check();
  CHECK(w.moves == std::vector<bool>{true});
  w.clock.Advance(absl::Milliseconds(1));
  monitor.Check();
  CHECK(w.moves == std::vector<bool>{true, false});

  w.informers[0].second = w.Synced(absl::ZeroDuration());  // a bookmark
  monitor.Check();
  CHECK(w.moves == std::vector<bool>{true, false, true});
}

TEST_CASE(
    "readiness monitor: without informers, failing requests make it not ready and an "
    "answer brings it back",
    "[readiness_monitor]") {
  World w;
  ReadinessMonitor monitor(w.io.get_executor(), w.Options(/*requires_sync=*/true), w.Inputs(),
                           w.clock);
  const absl::Time start = w.clock.Now();
  w.requests.Record("get", "raw", "200", absl::Milliseconds(2), start);
  monitor.Check();
  CHECK(w.moves == std::vector<bool>{true});
  CHECK(w.probes.empty());  // it was just answered

  w.clock.Advance(absl::Seconds(10));
  w.requests.Record("get", "pods", "503", absl::Milliseconds(2), w.clock.Now());
  const absl::Time failing_since = w.clock.Now();
  w.clock.Set(failing_since + kStale);
  monitor.Check();
  CHECK(w.moves == std::vector<bool>{true});  // failing, but not for longer than the bound
  w.clock.Set(failing_since + kStale + absl::Milliseconds(1));
  monitor.Check();
  CHECK(w.moves == std::vector<bool>{true, false});

  w.requests.Record("get", "pods", "404", absl::Milliseconds(2), w.clock.Now());  // an answer
  monitor.Check();
  CHECK(w.moves == std::vector<bool>{true, false, true});
}

TEST_CASE("readiness monitor: a quiet replica probes, one probe at a time", "[readiness_monitor]") {
  World w;
  ReadinessMonitor monitor(w.io.get_executor(), w.Options(/*requires_sync=*/false), w.Inputs(),
                           w.clock);
  monitor.Check();  // nothing asked yet: ready, and worth a probe
  CHECK(w.moves == std::vector<bool>{true});
  REQUIRE(w.probes.size() == 1);
  // Half the bound, capped at 10 s.
  CHECK(w.probe_deadlines[0] == w.clock.Now() + absl::Seconds(10));
  monitor.Check();
  CHECK(w.probes.size() == 1);  // the first one is still under way

  w.probes[0]();  // it ends (its answer or error is recorded by the client, not here)
  w.io.poll();    // the monitor hears of it on its strand
  monitor.Check();
  CHECK(w.probes.size() == 2);

  // Once something answers, nothing is probed until it has been quiet for half the bound.
  w.probes[1]();
  w.io.poll();
  w.requests.Record("get", "raw", "200", absl::Milliseconds(2), w.clock.Now());
  w.clock.Advance(kStale / 2);
  monitor.Check();
  CHECK(w.probes.size() == 2);
  w.clock.Advance(absl::Milliseconds(1));
  monitor.Check();
  CHECK(w.probes.size() == 3);
}

TEST_CASE("readiness monitor: starts NOT_SERVING when it must sync, and nothing moves after Stop",
          "[readiness_monitor]") {
  World w;
  w.informers = {{"jobs", w.Synced(absl::ZeroDuration())}};
  absl::Mutex mu;
  std::vector<bool> moves;
  ReadinessInputs inputs = w.Inputs();
  inputs.set_ready = [&](bool ready) {
    absl::MutexLock lock(&mu);
    moves.push_back(ready);
  };
  auto work = boost::asio::make_work_guard(w.io);
  std::thread io_thread([&] { w.io.run(); });
  {
    ReadinessMonitor monitor(w.io.get_executor(),
                             w.Options(/*requires_sync=*/true, /*start_not_ready=*/true),
                             std::move(inputs), w.clock);
    monitor.Start();
    {
      absl::MutexLock lock(&mu);
      // NOT_SERVING at once, then the first verdict on the strand: the informer has synced.
      auto judged = [&] { return moves.size() == 2; };
      REQUIRE(mu.AwaitWithTimeout(absl::Condition(&judged), absl::Seconds(60)));
      CHECK(moves == std::vector<bool>{false, true});
    }
    monitor.Stop();
    w.clock.Advance(kStale + absl::Seconds(1));
    monitor.Check();  // stale now, but readiness is the drain's
    monitor.Stop();   // idempotent
    absl::MutexLock lock(&mu);
    CHECK(moves == std::vector<bool>{false, true});
  }
  work.reset();
  w.io.stop();
  io_thread.join();
}

TEST_CASE("readiness monitor: options from the configuration", "[readiness_monitor]") {
  server::Config config;
  config.server.stale_after_ms = 180000;
  config.server.readiness_requires_sync = true;
  ReadinessOptions o = ReadinessOptionsFrom(config);
  CHECK(o.stale_after == absl::Seconds(180));
  CHECK(o.requires_sync);
  CHECK(o.start_not_ready);
  CHECK(o.period == absl::Seconds(1));  // a quarter of the bound, at most a second
  config.server.stale_after_ms = 20;
  CHECK(ReadinessOptionsFrom(config).period == absl::Milliseconds(10));  // at least 10 ms
  config.server.stale_after_ms = 2000;
  CHECK(ReadinessOptionsFrom(config).period == absl::Milliseconds(500));
  config.status_cache_ttl_ms = 0;  // no cache, nothing to sync
  CHECK_FALSE(ReadinessOptionsFrom(config).start_not_ready);
}

}  // namespace
}  // namespace kje::app
