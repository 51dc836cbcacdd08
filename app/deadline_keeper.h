#pragma once

// The loop that stops jobs whose deadline has passed while nobody asks for their status: every
// period it has the executor sweep the followed namespaces (Executor::SweepDeadlines), one sweep
// at a time, on a timer of the io_context. Every replica runs one; the mark on the application
// makes each stop happen once, whichever replica gets there first.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <memory>

#include "absl/time/time.h"
#include "executor/executor.h"

namespace kje::app {

class DeadlineKeeper {
 public:
  // `executor` outlives the keeper; so does the io_context.
  DeadlineKeeper(const boost::asio::any_io_executor& io, executor::Executor& executor,
                 absl::Duration period);
  DeadlineKeeper(const DeadlineKeeper&) = delete;
  DeadlineKeeper& operator=(const DeadlineKeeper&) = delete;

  void Start();
  // No sweep starts from now on, and one under way is cancelled. Waits for the strand, so the
  // io_context must be running and the caller must not be on the strand. Idempotent.
  void Stop();

 private:
  // Shared with the timer's and the sweep's callbacks, which may come after Stop.
  struct Core;
  std::shared_ptr<Core> core_;
};

}  // namespace kje::app
