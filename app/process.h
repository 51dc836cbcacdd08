#pragma once

// The process the service runs in: one io_context and a few threads for every outbound
// conversation (the Kubernetes API) and for the signals that end it, and the parts it composes
// over them. Leaving the scope of a Process, on any path, stops it in the one safe order.

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
#include "server/config.h"

namespace kje::app {

struct ProcessOptions {
  int io_threads = 2;
};

ProcessOptions ProcessOptionsFrom(const server::Config& config);

class Process {
 public:
  // Starts the io threads and listens for SIGTERM and SIGINT.
  explicit Process(ProcessOptions options);

  // Runs the kept parts' stops (the last kept first) while the io threads still run, then stops
  // and joins the io threads, then destroys the parts (the last kept first): a handler on an io
  // thread may refer to any part, so no part goes before the threads have stopped.
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
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::vector<std::thread> threads_;
  absl::Notification shutdown_requested_;
  boost::asio::signal_set signals_;
  std::vector<std::shared_ptr<void>> parts_;
  std::vector<std::function<void()>> stops_;
};

}  // namespace kje::app
