#include "k8s/request_limiter.h"

#include <catch2/catch.hpp>
#include <memory>

#include "k8s/errors.h"

namespace kje::k8s {
namespace {

using Ticket = RequestLimiter::Ticket;

struct Clock {
  absl::Time now = absl::FromUnixSeconds(1778580000);
  std::function<absl::Time()> Fn() {
    return [this] { return now; };
  }
};

struct Waiter {
  int wakes = 0;
  std::shared_ptr<Ticket> ticket = std::make_shared<Ticket>([this] { ++wakes; });
};

RequestLimiter::Decision Go(RequestLimiter& limiter, Waiter& w, bool long_running = false) {
  absl::StatusOr<RequestLimiter::Decision> d = limiter.Ask(w.ticket, long_running);
  REQUIRE(d.ok());
  return *d;
}

TEST_CASE("limiter: without limits every request goes at once") {
  Clock clock;
  RequestLimiter limiter({}, clock.Fn());
  Waiter a, b, c;
  CHECK(Go(limiter, a).go);
  CHECK(Go(limiter, b).go);
  CHECK(Go(limiter, c, true).go);
  CHECK(limiter.Stats().in_flight == 0);
}

TEST_CASE("limiter: the token bucket lets a burst through, then qps a second") {
  Clock clock;
  RequestLimiter limiter({/*qps=*/10, /*burst=*/2, /*max_in_flight=*/0}, clock.Fn());
  Waiter a, b, c;
  CHECK(Go(limiter, a).go);
  CHECK(Go(limiter, b).go);
  RequestLimiter::Decision third = Go(limiter, c);
  CHECK_FALSE(third.go);
  CHECK(third.retry_at == clock.now + absl::Milliseconds(100));
  clock.now += absl::Milliseconds(99);
  CHECK_FALSE(Go(limiter, c).go);
  clock.now += absl::Milliseconds(1);
  CHECK(Go(limiter, c).go);
  CHECK(limiter.Stats().waited_rate == 1);
  CHECK(limiter.Stats().waited_seconds == Approx(0.1));
  // Saved tokens never exceed the burst, however long the pause.
  clock.now += absl::Hours(1);
  Waiter d, e, f;
  CHECK(Go(limiter, d).go);
  CHECK(Go(limiter, e).go);
  CHECK_FALSE(Go(limiter, f).go);
  // Streams draw tokens too (a relist storm is what the limit is for).
  Waiter watch;
  CHECK_FALSE(Go(limiter, watch, true).go);
}

TEST_CASE("limiter: slots go to waiters in arrival order; past the queue a request is refused") {
  Clock clock;
  RequestLimiter limiter({0, 0, /*max_in_flight=*/2}, clock.Fn());
  Waiter a, b, c, d, e;
  CHECK(Go(limiter, a).go);
  CHECK(Go(limiter, b).go);
  RequestLimiter::Decision queued = Go(limiter, c);
  CHECK_FALSE(queued.go);
  CHECK(queued.retry_at == absl::InfiniteFuture());
  CHECK_FALSE(Go(limiter, d).go);
  absl::StatusOr<RequestLimiter::Decision> refused = limiter.Ask(e.ticket, false);
  REQUIRE_FALSE(refused.ok());
  CHECK(absl::IsResourceExhausted(refused.status()));
  CHECK(IsThrottled(refused.status()));
  CHECK(refused.status().message() ==
        "kubernetes: 2 requests in flight to the API server and as many waiting "
        "(kubernetes.maxInFlight)");
  CHECK(limiter.Stats().waiting_slot == 2);
  CHECK(limiter.Stats().refused == 1);
  // Asking again while queued changes nothing.
  CHECK_FALSE(Go(limiter, c).go);
  CHECK(c.wakes == 0);
  // A's slot goes straight to C, the longest waiter; a newcomer can't take it in between.
  limiter.Release(a.ticket);
  CHECK(c.wakes == 1);
  CHECK(d.wakes == 0);
  Waiter newcomer;
  CHECK_FALSE(Go(limiter, newcomer).go);
  CHECK(Go(limiter, c).go);
  CHECK(limiter.Stats().in_flight == 2);
  // Long-running requests need no slot, full or not.
  Waiter watch;
  CHECK(Go(limiter, watch, true).go);
  limiter.Release(watch.ticket);
  CHECK(limiter.Stats().in_flight == 2);
  // A waiter that gives up leaves the queue; releasing twice is harmless.
  limiter.Release(d.ticket);
  limiter.Release(d.ticket);
  CHECK(limiter.Stats().waiting_slot == 1);
  limiter.Release(b.ticket);
  CHECK(newcomer.wakes == 1);
  CHECK(Go(limiter, newcomer).go);
  limiter.Release(c.ticket);
  limiter.Release(newcomer.ticket);
  CHECK(limiter.Stats().in_flight == 0);
  CHECK(limiter.Stats().waited_slot == 2);
}

TEST_CASE("limiter: a slot handed to a waiter that then gives up passes on") {
  Clock clock;
  RequestLimiter limiter({0, 0, 1}, clock.Fn());
  Waiter a, b, c;
  CHECK(Go(limiter, a).go);
  CHECK_FALSE(Go(limiter, b).go);
  limiter.Release(a.ticket);  // handed to B, which hasn't asked again yet
  REQUIRE(b.wakes == 1);
  CHECK_FALSE(Go(limiter, c).go);  // C queues behind B's held slot
  limiter.Release(b.ticket);       // B gave up (its deadline): the slot goes to C
  CHECK(c.wakes == 1);
  CHECK(Go(limiter, c).go);
  limiter.Release(c.ticket);
  CHECK(limiter.Stats().in_flight == 0);
}

TEST_CASE("limiter: a slot holder waits for its token without losing the slot") {
  Clock clock;
  RequestLimiter limiter({/*qps=*/1, /*burst=*/1, /*max_in_flight=*/1}, clock.Fn());
  Waiter a, b;
  CHECK(Go(limiter, a).go);
  limiter.Release(a.ticket);
  RequestLimiter::Decision wait = Go(limiter, b);
  CHECK_FALSE(wait.go);
  CHECK(wait.retry_at == clock.now + absl::Seconds(1));
  CHECK(limiter.Stats().in_flight == 1);  // B holds the slot while its token comes
  clock.now += absl::Seconds(1);
  CHECK(Go(limiter, b).go);
}

}  // namespace
}  // namespace kje::k8s
