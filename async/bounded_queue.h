#pragma once

// A bounded, single-consumer queue between producers that must never wait (the informer, a log
// stream's callback) and one consumer coroutine (a stream's loop).
//
// The bound is on the items' total weight (one per item unless a weigher says otherwise, bytes
// for lines of a log), so a consumer that falls behind costs a bounded backlog, never anyone
// else's time. What a full queue does with one more item is its policy:
//   kCloseOnOverflow: it refuses it and closes itself as overflowed, keeping what it holds for
//     the consumer to drain: a subscriber that falls behind loses its subscription (it must
//     start over from a fresh read, as a skipped change would leave it wrong).
//   kDropAndCount: it refuses it and counts it, and stays open: the consumer learns how many it
//     missed (a log tail may skip lines, it says so).
// Pushing and closing never wait; the consumer takes what is queued in one go and asks to be
// woken when more arrives.
//
// The lock guards only the queue: a wake function always runs after it is released, so it may
// call back into the queue (and into anything else).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace kje::async {

enum class Overflow { kCloseOnOverflow, kDropAndCount };

// Every item weighs one: the bound counts items.
struct WeighOne {
  template <class T>
  size_t operator()(const T& /*item*/) const {
    return 1;
  }
};

template <class T, Overflow kPolicy = Overflow::kCloseOnOverflow, class Weigher = WeighOne>
class BoundedQueue {
 public:
  enum class State { kOpen, kClosed, kOverflowed };

  // `capacity` bounds the total weight queued. `weigher(item)` must give an item the same weight
  // every time it is asked.
  explicit BoundedQueue(size_t capacity, Weigher weigher = Weigher())
      : capacity_(capacity), weigher_(std::move(weigher)) {}
  BoundedQueue(const BoundedQueue&) = delete;
  BoundedQueue& operator=(const BoundedQueue&) = delete;

  // True when queued. False when the queue is closed (or overflowed), or the item does not fit:
  // then, as the policy says, the queue closes as overflowed (keeping what it holds) or counts
  // the item as dropped.
  bool Push(T item) {
    std::function<void()> wake;
    std::function<void()> end_wake;
    bool queued = false;
    {
      absl::MutexLock lock(&mu_);
      if (state_ != State::kOpen) return false;
      queued = PushLocked(std::move(item), end_wake);
      wake.swap(wake_);
    }
    if (wake) wake();
    if (end_wake) end_wake();
    return queued;
  }

  // Push of each item in order, under one lock and with one wake-up; the number queued.
  size_t PushAll(std::vector<T> items) {
    if (items.empty()) return 0;
    std::function<void()> wake;
    std::function<void()> end_wake;
    size_t queued = 0;
    {
      absl::MutexLock lock(&mu_);
      if (state_ != State::kOpen) return 0;
      for (T& item : items) {
        if (state_ != State::kOpen) break;
        if (PushLocked(std::move(item), end_wake)) ++queued;
      }
      wake.swap(wake_);
    }
    if (wake) wake();
    if (end_wake) end_wake();
    return queued;
  }

  // Ends the queue; the consumer is woken and sees kClosed (unless it had overflowed) once it
  // has taken what is left.
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

  struct Taken {
    std::vector<T> items;  // oldest first
    int64_t dropped = 0;   // items dropped since the previous Take (kDropAndCount)
    bool ended = false;    // closed or overflowed, and nothing is left to take
  };

  // Up to `max_items` of what is queued, oldest first, with the count of items dropped since the
  // previous Take.
  Taken Take(size_t max_items = std::numeric_limits<size_t>::max()) {
    absl::MutexLock lock(&mu_);
    Taken out;
    out.dropped = std::exchange(dropped_, 0);
    size_t n = std::min(max_items, queue_.size());
    out.items.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      weight_ -= weigher_(queue_.front());
      out.items.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    out.ended = state_ != State::kOpen && queue_.empty();
    return out;
  }

  // Everything queued, oldest first (for a queue that closes on overflow: it drops nothing).
  std::vector<T> Drain() { return Take().items; }

  State state() const {
    absl::MutexLock lock(&mu_);
    return state_;
  }

  // Items queued.
  size_t size() const {
    absl::MutexLock lock(&mu_);
    return queue_.size();
  }

  // Their total weight, at most capacity().
  size_t weight() const {
    absl::MutexLock lock(&mu_);
    return weight_;
  }

  size_t capacity() const { return capacity_; }

  // Calls `wake` once when an item, a drop or the end arrives, or at once (inline) if one already
  // has and is still there to take. A later call replaces an earlier wake that hasn't run.
  // `wake` must not block.
  void OnReady(std::function<void()> wake) {
    {
      absl::MutexLock lock(&mu_);
      if (queue_.empty() && dropped_ == 0 && state_ == State::kOpen) {
        wake_ = std::move(wake);
        return;
      }
    }
    wake();
  }

  // Calls `wake` once when the queue closes or overflows (not for items), or at once if it has:
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

  // Drops the wakes set by OnReady and OnEnd (the consumer stopped waiting). They are destroyed
  // outside the lock: what they hold may take locks of its own when it goes.
  void ForgetWakes() {
    std::function<void()> dropped;
    std::function<void()> dropped_end;
    absl::MutexLock lock(&mu_);
    dropped.swap(wake_);
    dropped_end.swap(end_wake_);
  }

 private:
  // Queues `item` or applies the policy; `end_wake` gets the end wake when the queue overflows.
  bool PushLocked(T item, std::function<void()>& end_wake) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    size_t weight = weigher_(item);
    if (weight_ + weight > capacity_) {
      if constexpr (kPolicy == Overflow::kCloseOnOverflow) {
        state_ = State::kOverflowed;
        end_wake.swap(end_wake_);
      } else {
        ++dropped_;
      }
      return false;
    }
    weight_ += weight;
    queue_.push_back(std::move(item));
    return true;
  }

  const size_t capacity_;
  const Weigher weigher_;
  mutable absl::Mutex mu_;
  std::deque<T> queue_ ABSL_GUARDED_BY(mu_);
  size_t weight_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
  State state_ ABSL_GUARDED_BY(mu_) = State::kOpen;
  std::function<void()> wake_ ABSL_GUARDED_BY(mu_);
  std::function<void()> end_wake_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje::async
