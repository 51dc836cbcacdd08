#pragma once

// What the executor's coroutines share: how a call becomes a coroutine on a strand, and whether
// it was cancelled. Asio-heavy; the executor's .cc files only.

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "absl/status/statusor.h"
#include "executor/executor.h"

namespace kje::executor::internal {

namespace asio = boost::asio;
using Strand = asio::strand<asio::io_context::executor_type>;

// One RPC's coroutine: its strand, and the signal its Cancel() emits there.
class SpawnedCall final : public RpcHandle, public std::enable_shared_from_this<SpawnedCall> {
 public:
  explicit SpawnedCall(asio::io_context& io) : strand_(asio::make_strand(io)) {}

  void Cancel() override {
    if (cancelled_.exchange(true)) return;
    // A cancellation signal is not thread-safe: it is emitted on the coroutine's strand, and
    // never after the coroutine has finished (its handler would point into the freed frame).
    asio::post(strand_, [self = shared_from_this()] {
      if (!self->finished_) self->signal_.emit(asio::cancellation_type::terminal);
    });
  }

  Strand& strand() { return strand_; }
  asio::cancellation_slot slot() { return signal_.slot(); }
  // On the strand, when the coroutine has completed.
  void Finished() {
    finished_ = true;
    signal_.slot().clear();
  }

 private:
  Strand strand_;
  asio::cancellation_signal signal_;
  std::atomic<bool> cancelled_ = false;
  bool finished_ = false;  // strand only
};

// A coroutine that threw: cancelled (Asio throws at the next await once cancelled), or a bug.
inline absl::Status FromException(std::exception_ptr e) {
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

// Runs `make()` (which returns the coroutine) on a new strand; `done` gets its result there.
template <class T, class Make>
std::shared_ptr<RpcHandle> Spawn(asio::io_context& io, Make make,
                                 std::function<void(absl::StatusOr<T>)> done) {
  auto call = std::make_shared<SpawnedCall>(io);
  asio::co_spawn(
      call->strand(), make(),
      asio::bind_cancellation_slot(
          call->slot(),
          asio::bind_executor(call->strand(), [call, done = std::move(done)](
                                                  std::exception_ptr e, absl::StatusOr<T> result) {
            call->Finished();
            done(e ? absl::StatusOr<T>(FromException(e)) : std::move(result));
          })));
  return call;
}

// The same for a coroutine that returns a plain status.
template <class Make>
std::shared_ptr<RpcHandle> SpawnStatus(asio::io_context& io, Make make,
                                       std::function<void(absl::Status)> done) {
  auto call = std::make_shared<SpawnedCall>(io);
  asio::co_spawn(
      call->strand(), make(),
      asio::bind_cancellation_slot(
          call->slot(),
          asio::bind_executor(call->strand(), [call, done = std::move(done)](std::exception_ptr e,
                                                                             absl::Status status) {
            call->Finished();
            done(e ? FromException(e) : std::move(status));
          })));
  return call;
}

// A handle for a call that finished inline.
class Finished final : public RpcHandle {
 public:
  void Cancel() override {}
};

// One handle serves every call answered inline: there is nothing to cancel.
inline std::shared_ptr<RpcHandle> FinishedHandle() {
  static const auto* const kFinished = new std::shared_ptr<RpcHandle>(std::make_shared<Finished>());
  return *kFinished;
}

inline asio::awaitable<bool> Cancelled() {
  auto state = co_await asio::this_coro::cancellation_state;
  co_return state.cancelled() != asio::cancellation_type::none;
}

}  // namespace kje::executor::internal

namespace kje::executor {

namespace asio = boost::asio;

// The coroutines the stream loops (streams.cc) share with the unary RPCs (executor.cc).
namespace coroutines {

// The app through the cache when it knows it, else a GET.
asio::awaitable<absl::StatusOr<cache::AppPtr>> LookUp(ExecutorContext& ex, std::string ns,
                                                      std::string name, absl::Time rpc_deadline);
// The driver pod the backend picks among the app's (`app` as last seen, null when unknown):
// nullopt when there is none, an error when the LIST failed.
asio::awaitable<absl::StatusOr<std::optional<spark::DriverPod>>> FindDriver(
    ExecutorContext& ex, std::string ns, std::string app_name, cache::AppPtr app,
    absl::Time rpc_deadline);
// The driver of a stopped app, remembered per resourceVersion; nullopt when unknown.
asio::awaitable<std::optional<std::optional<spark::DriverPod>>> StoppedDriver(
    ExecutorContext& ex, cache::AppPtr app, absl::Time rpc_deadline);

}  // namespace coroutines

}  // namespace kje::executor
