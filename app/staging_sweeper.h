#pragma once

// The loop that removes staged files no application names any more: every staging.sweepIntervalMs
// it has the executor sweep (Executor::SweepStaged), one sweep at a time, on a timer of the
// io_context. Every replica runs one; the sweep is idempotent, so replicas sweeping at once only
// repeat each other's deletions.

#include <boost/asio/any_io_executor.hpp>
#include <memory>

#include "absl/time/time.h"
#include "executor/executor.h"

namespace kje::app {

class StagingSweeper {
 public:
  // `executor` and the io_context outlive the sweeper.
  StagingSweeper(const boost::asio::any_io_executor& io, executor::Executor& executor,
                 absl::Duration period, absl::Duration grace);
  StagingSweeper(const StagingSweeper&) = delete;
  StagingSweeper& operator=(const StagingSweeper&) = delete;

  void Start();
  // No sweep starts from now on, and one under way is cancelled. Waits for the strand: the
  // io_context must be running and the caller must not be on it. Idempotent.
  void Stop();

 private:
  struct Core;
  std::shared_ptr<Core> core_;
};

}  // namespace kje::app
