#include "app/readiness_monitor.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <chrono>

#include "absl/synchronization/notification.h"
#include "app/readiness.h"
#include "base/log.h"

namespace kje::app {

ReadinessOptions ReadinessOptionsFrom(const server::Config& config) {
  ReadinessOptions options;
  options.stale_after = absl::Milliseconds(config.server.stale_after_ms);
  options.requires_sync = config.server.readiness_requires_sync;
  // Without the cache nothing is synced, so nothing is waited for.
  options.start_not_ready = config.status_cache_ttl_ms > 0 && options.requires_sync;
  options.period =
      absl::Milliseconds(std::clamp<int64_t>(config.server.stale_after_ms / 4, 10, 1000));
  return options;
}

ReadinessMonitor::ReadinessMonitor(const boost::asio::any_io_executor& executor,
                                   ReadinessOptions options, ReadinessInputs inputs,
                                   const Clock& clock)
    : options_(options),
      inputs_(std::move(inputs)),
      clock_(clock),
      strand_(boost::asio::make_strand(executor)),
      timer_(strand_) {}

void ReadinessMonitor::Start() {
  if (options_.start_not_ready) inputs_.set_ready(false);
  boost::asio::post(strand_, [this] { Check(); });
}

void ReadinessMonitor::Stop() {
  absl::Notification stopped;
  boost::asio::post(strand_, [this, &stopped] {
    stopped_ = true;
    timer_.cancel();
    stopped.Notify();
  });
  stopped.WaitForNotification();
}

void ReadinessMonitor::Check() {
  if (stopped_) return;
  const absl::Time now = clock_.Now();
  std::vector<std::pair<std::string, cache::InformerStats>> informers = inputs_.informers();
  Readiness verdict;
  if (!informers.empty()) {
    verdict = JudgeReadiness(informers, now, options_.stale_after, options_.requires_sync);
  } else {
    k8s::RequestMetrics::Health health = inputs_.api_health();
    verdict = JudgeApiReadiness(health, now, options_.stale_after);
    if (!probing_ && ShouldProbe(health, now, options_.stale_after)) Probe();
  }
  if (verdict.ready != ready_) {
    if (verdict.ready) {
      log::Info("ready").Kv("reason", verdict.reason);
    } else {
      log::Warn("not ready").Kv("reason", verdict.reason);
    }
    inputs_.set_ready(verdict.ready);
    ready_ = verdict.ready;
  }
  ArmTimer();
}

void ReadinessMonitor::Probe() {
  probing_ = true;
  const absl::Duration timeout = std::min(options_.stale_after / 2, absl::Seconds(10));
  inputs_.probe(clock_.Now() + timeout,
                [this] { boost::asio::post(strand_, [this] { probing_ = false; }); });
}

void ReadinessMonitor::ArmTimer() {
  timer_.expires_after(absl::ToChronoMilliseconds(options_.period));
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) Check();
  });
}

}  // namespace kje::app
