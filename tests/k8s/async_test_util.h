#pragma once

// Helpers for tests of the asynchronous client: an io_context on its own thread, and running a
// call on it as a coroutine.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <exception>
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

// A call running on a strand of its own, as an RPC's coroutine runs: its result arrives in
// `result`; Cancel() cancels it as the RPC's cancellation would (on the strand, once).
template <class T>
class Started : public std::enable_shared_from_this<Started<T>> {
 public:
  explicit Started(boost::asio::io_context& io) : strand_(boost::asio::make_strand(io)) {}

  void Run(boost::asio::awaitable<T> call) {
    boost::asio::co_spawn(
        strand_, std::move(call),
        boost::asio::bind_cancellation_slot(
            signal_.slot(), [self = this->shared_from_this()](std::exception_ptr e, T value) {
              self->finished_ = true;
              self->signal_.slot().clear();
              if (e) {
                self->promise_.set_exception(e);
              } else {
                self->promise_.set_value(std::move(value));
              }
            }));
  }

  void Cancel() {
    boost::asio::post(strand_, [self = this->shared_from_this()] {
      if (!self->finished_) self->signal_.emit(boost::asio::cancellation_type::terminal);
    });
  }

  std::future<T>& result() { return future_; }

 private:
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::cancellation_signal signal_;
  bool finished_ = false;  // strand only
  std::promise<T> promise_;
  std::future<T> future_ = promise_.get_future();
};

template <class T>
std::shared_ptr<Started<T>> Start(boost::asio::io_context& io, boost::asio::awaitable<T> call) {
  auto started = std::make_shared<Started<T>>(io);
  started->Run(std::move(call));
  return started;
}

// Runs `call` on a strand of `io` and waits for its result. The 120 s bound only turns a hang
// into a failure; it never decides an outcome.
template <class T>
T Await(boost::asio::io_context& io, boost::asio::awaitable<T> call) {
  auto started = Start(io, std::move(call));
  if (started->result().wait_for(std::chrono::seconds(120)) != std::future_status::ready) {
    FAIL("the call never completed");
  }
  return started->result().get();
}

}  // namespace kje::k8s::testing
