#pragma once

// The loop that keeps the readiness health status truthful (app/readiness.h judges): with
// server.readinessRequiresSync NOT_SERVING until the configured namespaces have synced, and at
// any time while one of their informers has heard nothing from the API server for
// server.staleAfterMs (without the cache: while every request has failed that long); SERVING
// again once it hears. It judges on a timer of the io_context, never by blocking a thread, and
// moves readiness only when the verdict changes.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "base/clock.h"
#include "cache/app_informer.h"
#include "k8s/metrics.h"
#include "server/config.h"

namespace kje::app {

struct ReadinessOptions {
  // Heard nothing from the API server this long: not ready (server.staleAfterMs).
  absl::Duration stale_after = absl::Minutes(3);
  // An informer that has never synced makes the replica not ready.
  bool requires_sync = false;
  // NOT_SERVING from Start() until the first verdict, for a replica that must sync first.
  bool start_not_ready = false;
  // How often it judges.
  absl::Duration period = absl::Seconds(1);
};

// Often enough to notice within a fraction of the bound, never more than once a second.
ReadinessOptions ReadinessOptionsFrom(const server::Config& config);

// What the monitor reads and what it moves. Each is called on the monitor's strand.
struct ReadinessInputs {
  // The configured namespaces' informers; empty without the cache.
  std::function<std::vector<std::pair<std::string, cache::InformerStats>>()> informers;
  // The requests' health, judged when there is no informer.
  std::function<k8s::RequestMetrics::Health()> api_health;
  // Asks the API server something answered to every authenticated client, by `deadline`, and
  // calls `done` (from any thread) once it has an answer or an error: a quiet replica without
  // informers would otherwise never notice the API server's recovery.
  std::function<void(absl::Time deadline, std::function<void()> done)> probe;
  // Moves the readiness health status.
  std::function<void(bool ready)> set_ready;
};

class ReadinessMonitor {
 public:
  // `clock` (not owned) outlives the monitor; so does the executor's io_context.
  ReadinessMonitor(const boost::asio::any_io_executor& executor, ReadinessOptions options,
                   ReadinessInputs inputs, const Clock& clock);

  ReadinessMonitor(const ReadinessMonitor&) = delete;
  ReadinessMonitor& operator=(const ReadinessMonitor&) = delete;

  // Judges now, then every period, on its strand.
  void Start();

  // Readiness is the drain's from now on: no verdict moves it and the loop ends. Waits for the
  // strand, so the io_context must be running and the caller must not be on the strand.
  // Idempotent.
  void Stop();

  // One judgement, moving readiness when the verdict changed. On the strand (a test without an
  // io thread calls it from its own).
  void Check();

  // The last verdict applied; none before the first.
  std::optional<bool> ready() const { return ready_; }

 private:
  void Probe();
  void ArmTimer();

  const ReadinessOptions options_;
  const ReadinessInputs inputs_;
  const Clock& clock_;
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  boost::asio::steady_timer timer_;
  // The strand's only.
  std::optional<bool> ready_;
  bool probing_ = false;
  bool stopped_ = false;
};

}  // namespace kje::app
