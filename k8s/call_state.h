#pragma once

// The watchdog of one Kubernetes call: its deadline, its caller's cancellation, and what to end
// when the deadline passes. Asio-heavy, and client.cc's alone: no other file includes it.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/cancellation_state.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "async/wakeup.h"
#include "base/strings.h"

namespace kje::k8s::internal {

// The state of one call, on the awaiting coroutine's executor: the caller's cancellation, the
// deadline's watchdog, and how to end whatever the call waits on right now. Shared with the
// watchdog's handler, which may run after the call's frame is gone.
//
// Why a watchdog of its own and not the socket's expiry (beast::tcp_stream::expires_after): that
// timer's handler runs on the stream's executor, the io_context, because a pooled connection
// serves calls on different strands; its close of the socket would race the call's coroutine on
// its strand. The watchdog runs on the call's executor. The resolver and the backoff waits, which
// have no stream, need it anyway; and its timed_out_ ends the call as DEADLINE_EXCEEDED even
// when the steady timer fires before absl::Now() reaches the deadline, where a stream's timeout
// would then be a transport error, retried.
class CallState : public std::enable_shared_from_this<CallState> {
 public:
  CallState(boost::asio::any_io_executor executor, boost::asio::cancellation_state caller,
            absl::Time deadline)
      : executor_(std::move(executor)), caller_(caller), deadline_(deadline) {}

  // Ends whatever the call waits on when the deadline passes. The caller's cancellation needs no
  // such help: it reaches the pending operation itself.
  void StartWatchdog() {
    watchdog_.emplace(executor_);
    watchdog_->expires_after(async::TimerDuration(deadline_ - absl::Now()));
    watchdog_->async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec) return;
      self->timed_out_ = true;
      if (self->abort_) self->abort_();
    });
  }
  void StopWatchdog() {
    abort_ = nullptr;
    if (watchdog_) watchdog_->cancel();
  }

  bool cancelled() const { return caller_.cancelled() != boost::asio::cancellation_type::none; }
  bool timed_out() const { return timed_out_ || absl::Now() >= deadline_; }
  bool interrupted() const { return cancelled() || timed_out(); }
  absl::Time deadline() const { return deadline_; }
  const boost::asio::any_io_executor& executor() const { return executor_; }

  absl::Status InterruptedStatus(std::string_view what) const {
    if (cancelled()) {
      return absl::CancelledError(absl::StrCat("kubernetes: ", ToAbsl(what), " cancelled"));
    }
    return absl::DeadlineExceededError(
        absl::StrCat("kubernetes: ", ToAbsl(what), " did not finish before the deadline"));
  }

 private:
  friend class ScopedAbort;

  const boost::asio::any_io_executor executor_;
  const boost::asio::cancellation_state caller_;
  const absl::Time deadline_;
  bool timed_out_ = false;
  std::function<void()> abort_;
  std::optional<boost::asio::steady_timer> watchdog_;
};

// What the watchdog ends while this lives (a resolver, a socket, a backoff timer): set on
// construction, and the one before it put back on destruction, so an abort never outlives the
// frame's locals it points to, however the frame is left (an early co_return, an exception).
class ScopedAbort {
 public:
  ScopedAbort(CallState& state, std::function<void()> abort)
      : state_(state), previous_(std::exchange(state.abort_, std::move(abort))) {}
  ~ScopedAbort() { state_.abort_ = std::move(previous_); }
  ScopedAbort(const ScopedAbort&) = delete;
  ScopedAbort& operator=(const ScopedAbort&) = delete;

 private:
  CallState& state_;
  std::function<void()> previous_;
};

}  // namespace kje::k8s::internal
