#pragma once

// A replica's periodic sweep: every period it starts one sweep of the executor's (the deadline
// sweep, the staged files' sweep), one at a time, on a timer of the io_context. A sweep may take
// longer than a period: the next one waits for it. Every replica runs its own; the sweeps are
// idempotent, so replicas sweeping at once only repeat each other's work.

#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "executor/executor.h"

namespace kje::app {

class PeriodicSweep {
 public:
  using Done = std::function<void(absl::StatusOr<int64_t>)>;
  // Starts one sweep that must end by `deadline` and calls `done` with what it did; the handle
  // cancels it.
  using StartFn =
      std::function<std::shared_ptr<executor::RpcHandle>(absl::Time deadline, Done done)>;
  // Says how a sweep ended (never called for one that Stop cancelled).
  using ReportFn = std::function<void(const absl::StatusOr<int64_t>& result)>;

  // Each sweep gets a period plus `slack` to finish. The io_context outlives the loop.
  PeriodicSweep(const boost::asio::any_io_executor& io, absl::Duration period, absl::Duration slack,
                StartFn start, ReportFn report);
  PeriodicSweep(const PeriodicSweep&) = delete;
  PeriodicSweep& operator=(const PeriodicSweep&) = delete;

  void Start();
  // No sweep starts from now on, and one under way is cancelled. Waits for the strand: the
  // io_context must be running and the caller must not be on it. Idempotent.
  void Stop();

 private:
  // Shared with the timer's and the sweep's callbacks, which may come after Stop.
  struct Core;
  std::shared_ptr<Core> core_;
};

}  // namespace kje::app
