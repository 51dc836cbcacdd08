#pragma once

// A value that arrives once from any thread (a credential plugin's answer, a LIST page fetched
// beside the loop, a gRPC write's outcome) and one coroutine that waits for it within a time
// limit. Asio-heavy: .cc files only.
//
// The first Set wins and later ones are refused, so several producers may race to answer (a
// write's completion against the end of a mailbox) and the waiter sees exactly one answer. A
// value is never lost: one set before the wait, or after a wait that gave up, is there for the
// next wait. A value already there is returned even to a cancelled coroutine or after the time
// limit: it costs nothing to hand over, and the caller decides what its own cancellation means.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/this_coro.hpp>
#include <memory>
#include <optional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "async/wakeup.h"

namespace kje::async {

template <class T>
class OneShot : public std::enable_shared_from_this<OneShot<T>> {
 public:
  static std::shared_ptr<OneShot> New() { return std::make_shared<OneShot>(); }

  // Any thread, any number of times: true for the Set that gave the value, false (and `value`
  // dropped) for every later one. Wakes the waiter, if any (never inline).
  bool Set(T value) {
    {
      absl::MutexLock lock(&mu_);
      if (set_) return false;
      set_ = true;
      value_ = std::move(value);
    }
    wakeup_->Fire();
    return true;
  }

  bool is_set() const {
    absl::MutexLock lock(&mu_);
    return set_;
  }

  // The value, handed over to this waiter (a one-shot has one consumer), as soon as it is set.
  // Otherwise DEADLINE_EXCEEDED once `until` passes, CANCELLED once the coroutine is cancelled:
  // the value, when it comes, then stays for a later Wait. FAILED_PRECONDITION when an earlier
  // Wait already took it. One coroutine waits at a time.
  boost::asio::awaitable<absl::StatusOr<T>> Wait(absl::Time until = absl::InfiniteFuture()) {
    auto self = this->shared_from_this();
    for (;;) {
      {
        absl::MutexLock lock(&mu_);
        if (value_.has_value()) {
          absl::StatusOr<T> out(std::move(*value_));
          value_.reset();
          co_return out;
        }
        if (set_) co_return absl::FailedPreconditionError("the one-shot's value was taken");
      }
      auto state = co_await boost::asio::this_coro::cancellation_state;
      if (state.cancelled() != boost::asio::cancellation_type::none) {
        co_return absl::CancelledError("the wait for a one-shot value was cancelled");
      }
      if (absl::Now() >= until) {
        co_return absl::DeadlineExceededError("no one-shot value before the deadline");
      }
      // Returns on the Set, the time limit or the cancellation; the loop tells which.
      co_await wakeup_->Wait(until);
    }
  }

 private:
  const std::shared_ptr<Wakeup> wakeup_ = Wakeup::New();
  mutable absl::Mutex mu_;
  bool set_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<T> value_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje::async
