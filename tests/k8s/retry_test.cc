#include "k8s/retry.h"

#include <catch2/catch.hpp>

namespace kje::k8s {
namespace {

TEST_CASE("429 and requests that never left are retried for every verb") {
  for (Idempotency i : {Idempotency::kIdempotent, Idempotency::kUnsafe}) {
    CHECK(IsRetryable({429, false}, i));
    CHECK(IsRetryable({0, true}, i));
  }
}

TEST_CASE("5xx and lost connections are retried only when repeating is safe") {
  for (int code : {0, 500, 502, 503, 504}) {
    CHECK(IsRetryable({code, false}, Idempotency::kIdempotent));
    CHECK_FALSE(IsRetryable({code, false}, Idempotency::kUnsafe));
  }
}

TEST_CASE("Client errors are never retried") {
  for (int code : {400, 401, 403, 404, 409, 410, 422, 501}) {
    CHECK_FALSE(IsRetryable({code, false}, Idempotency::kIdempotent));
  }
}

TEST_CASE("Backoff grows exponentially up to the cap, within the jitter band") {
  RetryPolicy policy;
  policy.initial_backoff = absl::Milliseconds(100);
  policy.max_backoff = absl::Seconds(1);
  policy.multiplier = 2;
  policy.jitter = 0.2;
  // random01 = 0.5 is the middle of the band: no jitter.
  CHECK(BackoffDelay(policy, 1, 0.5) == absl::Milliseconds(100));
  CHECK(BackoffDelay(policy, 2, 0.5) == absl::Milliseconds(200));
  CHECK(BackoffDelay(policy, 3, 0.5) == absl::Milliseconds(400));
  CHECK(BackoffDelay(policy, 5, 0.5) == absl::Seconds(1));
  CHECK(BackoffDelay(policy, 50, 0.5) == absl::Seconds(1));
  CHECK(BackoffDelay(policy, 1, 0.0) == absl::Milliseconds(80));
  CHECK(BackoffDelay(policy, 1, 1.0) == absl::Milliseconds(120));
}

TEST_CASE("A longer Retry-After wins over the backoff, a shorter one does not") {
  RetryPolicy policy;
  CHECK(BackoffDelay(policy, 1, 0.5, absl::Seconds(3)) == absl::Seconds(3));
  CHECK(BackoffDelay(policy, 1, 0.5, absl::ZeroDuration()) == policy.initial_backoff);
}

TEST_CASE("Retry-After is parsed as delay-seconds") {
  CHECK(ParseRetryAfter("2") == absl::Seconds(2));
  CHECK(ParseRetryAfter(" 7 ") == absl::Seconds(7));
  CHECK(ParseRetryAfter("0") == absl::ZeroDuration());
  CHECK(ParseRetryAfter("999999") == absl::Hours(1));
  CHECK_FALSE(ParseRetryAfter("").has_value());
  CHECK_FALSE(ParseRetryAfter("-1").has_value());
  CHECK_FALSE(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT").has_value());
  CHECK_FALSE(ParseRetryAfter("1.5").has_value());
}

}  // namespace
}  // namespace kje::k8s
