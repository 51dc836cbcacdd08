#pragma once

// An io_context run by threads of its own, for unit tests of coroutine code, that ends the way the
// service's does: what was stopped finishes before the io_context goes.
//
// Why not io.stop(): a Stop posts its cancellations to the io_context. Stopped at once, those
// never run, and a coroutine parked in a wake-up (a loop awaiting the page its fetch will hand
// over, a fetch awaiting a call) keeps its own frame alive through that wake-up's stored
// resumption: nothing ever frees it, and LeakSanitizer reports it at exit. Finish() lets the
// io_context run out of work instead: every posted cancellation runs, and so does every coroutine
// it resumes. A spawned coroutine holds work on the io_context for as long as it lives, so a call
// the test left pending must be ended first (FakeKubeClient::EndEveryCall), or Finish times out.

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace kje::testing {

class IoLoop {
 public:
  explicit IoLoop(int threads = 1) {
    for (int i = 0; i < threads; ++i) {
      threads_.emplace_back([this] {
        io_.run();
        // The first thread to return saw no work left (or the stop after a timeout).
        if (!returned_.exchange(true)) ran_out_.Notify();
      });
    }
  }
  IoLoop(const IoLoop&) = delete;
  IoLoop& operator=(const IoLoop&) = delete;
  ~IoLoop() { Finish(); }

  boost::asio::io_context& io() { return io_; }

  // Lets the io_context run until nothing is left to run: true when it got there within
  // `timeout`. Otherwise (a timer or a call still pending, which the test should have ended) it is
  // stopped, and false says so. Idempotent; the threads have ended once it returns.
  bool Finish(absl::Duration timeout = absl::Seconds(10)) {
    if (finished_) return drained_;
    finished_ = true;
    work_.reset();
    drained_ = ran_out_.WaitForNotificationWithTimeout(timeout);
    if (!drained_) io_.stop();
    for (std::thread& t : threads_) t.join();
    return drained_;
  }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_{
      io_.get_executor()};
  std::atomic<bool> returned_ = false;
  absl::Notification ran_out_;
  bool finished_ = false;
  bool drained_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace kje::testing
