#pragma once

// The one way a coroutine waits for something that other threads feed (a slot freed by another
// call, a gRPC write done, a mailbox filled, a credential plugin finished): Fire() from anywhere,
// Wait() in the coroutine. Asio-heavy: .cc files only.
//
// A firing is never lost: one that comes while nobody waits makes the next Wait return at once.
// A Wait also returns when its time limit passes or when the coroutine's cancellation reaches
// it; in every case the waiter then looks at the state it waits on (a wake-up carries no value),
// so an extra return is harmless and a missed one impossible.

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace kje::async {

// A steady-clock duration for a timer, clamped to [0, one year] (absl::InfiniteDuration and
// negative waits included).
inline std::chrono::steady_clock::duration TimerDuration(absl::Duration d) {
  if (d < absl::ZeroDuration()) d = absl::ZeroDuration();
  if (d > absl::Hours(24 * 365)) d = absl::Hours(24 * 365);
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      absl::ToChronoNanoseconds(d));
}

class Wakeup : public std::enable_shared_from_this<Wakeup> {
 public:
  static std::shared_ptr<Wakeup> New() { return std::make_shared<Wakeup>(); }

  // Any thread, any number of times, also before the Wait: resumes the waiting coroutine on its
  // own executor (never inline), or makes the next Wait return at once.
  void Fire() {
    std::function<void()> resume;
    {
      absl::MutexLock lock(&mu_);
      if (resume_) {
        resume.swap(resume_);
      } else {
        fired_ = true;
      }
    }
    if (resume) resume();
  }

  // Fire, as a function to hand to whoever feeds the state.
  std::function<void()> Waker() {
    return [self = shared_from_this()] { self->Fire(); };
  }

  // Returns when fired since the previous Wait returned, when `until` passes, or when the
  // coroutine is cancelled. One coroutine waits at a time.
  boost::asio::awaitable<void> Wait(absl::Time until = absl::InfiniteFuture()) {
    auto self = shared_from_this();
    uint64_t generation;
    {
      absl::MutexLock lock(&mu_);
      if (fired_) {
        fired_ = false;
        co_return;
      }
      generation = ++generation_;
    }
    std::optional<boost::asio::steady_timer> timer;
    if (until != absl::InfiniteFuture()) {
      timer.emplace(co_await boost::asio::this_coro::executor);
      timer->expires_after(TimerDuration(until - absl::Now()));
      timer->async_wait([self, generation](boost::system::error_code ec) {
        if (!ec) self->Resume(generation);
      });
    }
    auto suspended = Suspend(generation);
    co_await std::move(suspended);
    if (timer) timer->cancel();
  }

 private:
  // Resumes the wait of `generation`, if it still waits (a timer or a cancellation may come
  // after a firing already resumed it).
  void Resume(uint64_t generation) {
    std::function<void()> resume;
    {
      absl::MutexLock lock(&mu_);
      if (generation != generation_) return;
      resume.swap(resume_);
    }
    if (resume) resume();
  }

  boost::asio::awaitable<void> Suspend(uint64_t generation) {
    auto self = shared_from_this();
    return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>, void()>(
        [self, generation](auto handler) {
          auto executor = boost::asio::get_associated_executor(handler);
          auto slot = boost::asio::get_associated_cancellation_slot(handler);
          auto pending = std::make_shared<decltype(handler)>(std::move(handler));
          auto resume = [executor, pending] {
            boost::asio::post(executor, [pending] { std::move (*pending)(); });
          };
          bool fired = false;
          {
            absl::MutexLock lock(&self->mu_);
            fired = self->fired_;
            self->fired_ = false;
            if (!fired) self->resume_ = resume;
          }
          if (fired) {
            resume();
            return;
          }
          if (slot.is_connected()) {
            slot.assign(
                [self, generation](boost::asio::cancellation_type) { self->Resume(generation); });
          }
        },
        boost::asio::use_awaitable);
  }

  absl::Mutex mu_;
  bool fired_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  std::function<void()> resume_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje::async
