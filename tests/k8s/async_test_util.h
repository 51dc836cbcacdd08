#pragma once

// Helpers for tests of the asynchronous client: an io_context on its own thread, and waiting
// for a callback's value.

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "k8s/client.h"

namespace kje::k8s::testing {

inline absl::Time In(absl::Duration d) { return absl::Now() + d; }

// An io_context running on its own thread for the duration of a test.
class IoThread {
 public:
  IoThread() : guard_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  ~IoThread() {
    guard_.reset();
    io_.stop();
    thread_.join();
  }
  boost::asio::io_context& io() { return io_; }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  std::thread thread_;
};

// Runs `start(callback)` and waits for the callback's value. The 60 s bound only turns a hang
// into a failure; it never decides an outcome.
template <class T, class F>
absl::StatusOr<T> Await(F&& start) {
  auto promise = std::make_shared<std::promise<absl::StatusOr<T>>>();
  auto future = promise->get_future();
  start([promise](absl::StatusOr<T> r) { promise->set_value(std::move(r)); });
  if (future.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    FAIL("the call never completed");
  }
  return future.get();
}

inline absl::Status AwaitDone(const std::function<void(Client::DoneCallback)>& start) {
  auto promise = std::make_shared<std::promise<absl::Status>>();
  auto future = promise->get_future();
  start([promise](absl::Status s) { promise->set_value(std::move(s)); });
  if (future.wait_for(std::chrono::seconds(120)) != std::future_status::ready) {
    FAIL("the call never completed");
  }
  return future.get();
}

}  // namespace kje::k8s::testing
