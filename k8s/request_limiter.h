#pragma once

// Admission of requests to one API server, as client-go limits its clients: a token bucket
// (`qps` tokens a second, at most `burst` saved) that every request attempt draws from, retries,
// relists and watch restarts included, and a cap on requests in flight that long-running ones
// (watches, followed logs) don't count against, as the API server's own max-in-flight doesn't.
//
// The logic is pure and synchronous (a caller asks, and is told to go or when to ask again);
// the client waits on its own strand with the caller's deadline. Slots are handed over in
// arrival order: a freed slot goes to the longest waiter, never to a newcomer. At most
// `max_in_flight` callers wait for a slot; one more is refused at once (RESOURCE_EXHAUSTED).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace kje::k8s {

struct LimiterOptions {
  double qps = 0;            // 0: no rate limit
  int64_t burst = 0;         // tokens saved up; at least 1 when qps > 0
  size_t max_in_flight = 0;  // 0: no cap
};

struct LimiterStats {
  size_t in_flight = 0;       // requests holding a slot
  size_t waiting_slot = 0;    // callers queued for a slot
  uint64_t waited_rate = 0;   // admissions that waited for a token
  uint64_t waited_slot = 0;   // admissions that waited for a slot
  uint64_t refused = 0;       // callers refused because the queue was full
  double waited_seconds = 0;  // total time admissions waited
};

class RequestLimiter {
 public:
  // One caller's place: created per request attempt, passed back on every ask.
  class Ticket {
   public:
    // Called (outside the limiter's lock, on any thread) when a slot was handed to this ticket
    // while it waited: the waiter should ask again now.
    explicit Ticket(std::function<void()> wake) : wake_(std::move(wake)) {}

   private:
    friend class RequestLimiter;
    std::function<void()> wake_;
    bool queued_ = false;
    bool has_slot_ = false;
    bool waited_slot_ = false;
    bool waited_rate_ = false;
    absl::Time first_ask_ = absl::InfinitePast();
  };

  struct Decision {
    bool go = false;
    // When not going: the time to ask again at the latest (a token is due then); InfiniteFuture
    // while queued for a slot (the wake-up comes first).
    absl::Time retry_at = absl::InfiniteFuture();
  };

  RequestLimiter(LimiterOptions options, std::function<absl::Time()> now = absl::Now);

  // Whether the request may go now. `long_running` requests need a token but no slot. A going
  // ticket that needs a slot holds it until Release. RESOURCE_EXHAUSTED (naming the limit) when
  // the slot queue is full; the ticket is then not queued.
  absl::StatusOr<Decision> Ask(const std::shared_ptr<Ticket>& ticket, bool long_running);
  // The request is over (or gave up): its slot, if any, goes to the longest waiter, and a queued
  // ticket leaves the queue. Idempotent.
  void Release(const std::shared_ptr<Ticket>& ticket);

  LimiterStats Stats() const;
  // Waits until the state satisfies `ready` (called under the limiter's lock: it must only read
  // the stats), or `timeout` passes; whether it did. For tests and diagnostics that must see a
  // request queued or holding its place without polling.
  bool AwaitStats(const std::function<bool(const LimiterStats&)>& ready,
                  absl::Duration timeout) const;
  const LimiterOptions& options() const { return options_; }

 private:
  bool TakeToken(absl::Time now, absl::Time* next) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const LimiterOptions options_;
  const std::function<absl::Time()> now_;
  mutable absl::Mutex mu_;
  double tokens_ ABSL_GUARDED_BY(mu_);
  absl::Time refilled_at_ ABSL_GUARDED_BY(mu_);
  size_t in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<std::shared_ptr<Ticket>> queue_ ABSL_GUARDED_BY(mu_);
  LimiterStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje::k8s
