#pragma once

// A coroutine on a strand with a cancellation of its own: the one way the service runs a piece
// of work that someone else may want to stop (an RPC's coroutine, an informer's loop, the LIST
// page fetched ahead, the log read beside a follow). Asio-heavy: .cc files only.
//
// Why a signal per task: an Asio cancellation signal is not thread-safe, its slot holds one
// handler, and a handler left in it after its coroutine ended points into a freed frame. Two tasks
// sharing one signal (one after the other) let the first's completion clear the second's handler,
// and a stop then reached nothing. Here each task owns its signal, emits it only on its strand and
// only while its coroutine runs, and clears it when the coroutine ends.

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/system/system_error.hpp>
#include <exception>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "async/cancellable.h"

namespace kje::async {

namespace asio = boost::asio;

// What a coroutine that threw ends with: CANCELLED when Asio threw because it was cancelled
// (it throws at the next await once cancelled), INTERNAL for anything else (a bug).
inline absl::Status StatusFromException(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const boost::system::system_error& error) {
    if (error.code() == asio::error::operation_aborted) {
      return absl::CancelledError("the call was cancelled");
    }
    return absl::InternalError(error.what());
  } catch (const std::exception& error) {
    return absl::InternalError(error.what());
  }
}

// Whether the running coroutine has been cancelled.
inline asio::awaitable<bool> Cancelled() {
  auto state = co_await asio::this_coro::cancellation_state;
  co_return state.cancelled() != asio::cancellation_type::none;
}

class StrandTask final : public Cancellable, public std::enable_shared_from_this<StrandTask> {
 public:
  // Use Spawn.
  explicit StrandTask(asio::any_io_executor strand) : strand_(std::move(strand)) {}
  StrandTask(const StrandTask&) = delete;
  StrandTask& operator=(const StrandTask&) = delete;

  // Runs `work` on `strand` (which must be a strand: the task's state is touched only there) and
  // calls `done(result)` there once it ends; a coroutine that threw ends with
  // StatusFromException's status. R is absl::Status or absl::StatusOr<T>. Cancel may come at any
  // time, also before the coroutine starts: then `work` never runs and `done` gets CANCELLED.
  template <class R, class Done>
  static std::shared_ptr<StrandTask> Spawn(asio::any_io_executor strand, asio::awaitable<R> work,
                                           Done done) {
    auto task = std::make_shared<StrandTask>(strand);
    asio::co_spawn(strand, Guarded(task, std::move(work)),
                   asio::bind_cancellation_slot(
                       task->signal_.slot(),
                       asio::bind_executor(strand, [task, done = std::move(done)](
                                                       std::exception_ptr e, R result) mutable {
                         task->ended_ = true;
                         task->signal_.slot().clear();
                         done(e ? R(StatusFromException(e)) : std::move(result));
                       })));
    return task;
  }

  // Any thread, any number of times, before the start, while it runs, or after the end: the
  // coroutine sees one terminal cancellation (Asio then throws at its next await), emitted on
  // its strand and only while it runs.
  void Cancel() override {
    if (cancel_requested_.exchange(true)) return;
    asio::post(strand_, [self = shared_from_this()] {
      if (self->started_ && !self->ended_) self->signal_.emit(asio::cancellation_type::terminal);
    });
  }

  bool cancel_requested() const { return cancel_requested_.load(); }

 private:
  template <class R>
  static asio::awaitable<R> Guarded(std::shared_ptr<StrandTask> task, asio::awaitable<R> work) {
    // On the strand: a Cancel posted before this line finds started_ unset and emits nothing,
    // and this reads its flag; one posted after it emits.
    task->started_ = true;
    if (task->cancel_requested_.load()) {
      co_return R(absl::CancelledError("the call was cancelled before it started"));
    }
    co_return co_await std::move(work);
  }

  const asio::any_io_executor strand_;
  asio::cancellation_signal signal_;  // strand only
  std::atomic<bool> cancel_requested_{false};
  bool started_ = false;  // strand only
  bool ended_ = false;    // strand only
};

}  // namespace kje::async
