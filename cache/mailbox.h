#pragma once

// A bounded, single-consumer channel between a producer that must never wait (the informer, a
// log stream's callback) and one consumer coroutine (a stream's loop).
//
// The producer pushes without blocking; a full mailbox closes itself as overflowed, so a consumer
// that falls behind loses its subscription instead of making anyone else wait or making the
// process hold an unbounded backlog. The consumer drains everything queued at once, and asks to
// be woken when more arrives. Closing (unsubscribing) never waits.
//
// The lock guards only the queue: the wake function runs after it is released.

#include <cstddef>
#include <deque>
#include <functional>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace kje::cache {

template <class T>
class Mailbox {
 public:
  enum class State { kOpen, kClosed, kOverflowed };

  explicit Mailbox(size_t capacity) : capacity_(capacity) {}
  Mailbox(const Mailbox&) = delete;
  Mailbox& operator=(const Mailbox&) = delete;

  // False when the mailbox is closed (the item was dropped). On overflow the mailbox closes,
  // keeping what it holds for the consumer to drain.
  bool Push(T item) {
    std::function<void()> wake;
    std::function<void()> end_wake;
    bool accepted = false;
    {
      absl::MutexLock lock(&mu_);
      if (state_ != State::kOpen) return false;
      if (queue_.size() >= capacity_) {
        state_ = State::kOverflowed;
        end_wake.swap(end_wake_);
      } else {
        queue_.push_back(std::move(item));
        accepted = true;
      }
      wake.swap(wake_);
    }
    if (wake) wake();
    if (end_wake) end_wake();
    return accepted;
  }

  // Ends the mailbox; the consumer is woken and sees kClosed (unless it had overflowed).
  void Close() {
    std::function<void()> wake;
    std::function<void()> end_wake;
    {
      absl::MutexLock lock(&mu_);
      if (state_ == State::kOpen) state_ = State::kClosed;
      wake.swap(wake_);
      end_wake.swap(end_wake_);
    }
    if (wake) wake();
    if (end_wake) end_wake();
  }

  // Everything queued, oldest first.
  std::vector<T> Drain() {
    absl::MutexLock lock(&mu_);
    std::vector<T> out(std::make_move_iterator(queue_.begin()),
                       std::make_move_iterator(queue_.end()));
    queue_.clear();
    return out;
  }

  State state() const {
    absl::MutexLock lock(&mu_);
    return state_;
  }

  size_t size() const {
    absl::MutexLock lock(&mu_);
    return queue_.size();
  }

  size_t capacity() const { return capacity_; }

  // Calls `wake` once, when an item or the end arrives, or at once (inline) if one already has.
  // A later call replaces an earlier wake that hasn't run. `wake` must not block.
  void OnReady(std::function<void()> wake) {
    {
      absl::MutexLock lock(&mu_);
      if (queue_.empty() && state_ == State::kOpen) {
        wake_ = std::move(wake);
        return;
      }
    }
    wake();
  }

  // Calls `wake` once when the mailbox closes or overflows (not for items), or at once if it has:
  // a consumer busy elsewhere (writing to a slow caller) learns that it fell too far behind.
  void OnEnd(std::function<void()> wake) {
    {
      absl::MutexLock lock(&mu_);
      if (state_ == State::kOpen) {
        end_wake_ = std::move(wake);
        return;
      }
    }
    wake();
  }

  // Drops the wakes set by OnReady and OnEnd (the consumer stopped waiting).
  void ForgetWakes() {
    std::function<void()> dropped;
    std::function<void()> dropped_end;
    absl::MutexLock lock(&mu_);
    dropped.swap(wake_);
    dropped_end.swap(end_wake_);
  }

 private:
  const size_t capacity_;
  mutable absl::Mutex mu_;
  std::deque<T> queue_ ABSL_GUARDED_BY(mu_);
  State state_ ABSL_GUARDED_BY(mu_) = State::kOpen;
  std::function<void()> wake_ ABSL_GUARDED_BY(mu_);
  std::function<void()> end_wake_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje::cache
