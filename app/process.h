#pragma once

// The process the service runs in: one io_context and a few threads for every outbound
// conversation (the Kubernetes API) and for the signals that end it, and the parts it composes
// over them. Leaving the scope of a Process, on any path, stops it in the one safe order.

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <functional>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "server/config.h"

namespace kje::app {

struct ProcessOptions {
  int io_threads = 2;
  // How long the end waits for the stopped parts' coroutines to finish (see ~Process).
  absl::Duration finish_timeout = absl::Seconds(5);
};

ProcessOptions ProcessOptionsFrom(const server::Config& config);

class Process {
 public:
  // Starts the io threads and listens for SIGTERM and SIGINT.
  explicit Process(ProcessOptions options);

  // Runs the kept parts' stops (the last kept first) while the io threads still run, lets the
  // io_context run out of work (up to finish_timeout), then stops and joins the io threads, then
  // destroys the parts (the last kept first): a handler on an io thread may refer to any part, so
  // no part goes before the threads have stopped.
  //
  // Why run out of work rather than stop at once: a stop posts its cancellations (an informer's
  // loop and its page fetch). Stopped before they run, a coroutine parked in a wake-up (a loop
  // awaiting its page) holds its own frame through the wake-up's stored resumption and is never
  // freed; LeakSanitizer then fails the exit. Bounded, so work that a stop missed can't hold the
  // exit.
  ~Process();

  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  boost::asio::io_context& io() { return io_; }

  // Keeps `part` until the process ends; `stop`, when given, runs as it ends (see ~Process).
  template <typename T>
  T& Keep(std::unique_ptr<T> part, std::type_identity_t<std::function<void(T&)>> stop = nullptr) {
    T& kept = *part;
    parts_.push_back(std::shared_ptr<void>(std::move(part)));
    if (stop) stops_.push_back([&kept, stop = std::move(stop)] { stop(kept); });
    return kept;
  }

  // Blocks until SIGTERM or SIGINT has arrived.
  void WaitForShutdownSignal() { shutdown_requested_.WaitForNotification(); }

 private:
  const absl::Duration finish_timeout_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  // Set by the first io thread whose run() returns: the io_context ran out of work (or stopped).
  std::atomic<bool> returned_ = false;
  absl::Notification ran_out_;
  std::vector<std::thread> threads_;
  absl::Notification shutdown_requested_;
  boost::asio::signal_set signals_;
  std::vector<std::shared_ptr<void>> parts_;
  std::vector<std::function<void()>> stops_;
};

}  // namespace kje::app
