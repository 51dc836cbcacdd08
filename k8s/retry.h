#pragma once

// When to repeat a Kubernetes request, and how long to wait first. Pure functions: the transport
// feeds them what happened, tests feed them a fixed random value.

#include <optional>
#include <string_view>

#include "absl/time/time.h"

namespace kje::k8s {

struct RetryPolicy {
  int max_attempts = 5;  // including the first one
  absl::Duration initial_backoff = absl::Milliseconds(100);
  absl::Duration max_backoff = absl::Seconds(5);
  double multiplier = 2.0;
  double jitter = 0.2;  // each wait is scaled by a factor in [1 - jitter, 1 + jitter]
};

// How safe a request is to repeat when its outcome is unknown (the server may have acted on it:
// a 5xx, or a connection lost after the request was written).
//  - kIdempotent: GET, LIST, WATCH, pod logs, DELETE (a repeat at worst answers 404, which callers
//    read as "gone"), and merge patches (they set fixed values; applying one twice is the same).
//  - kUnsafe: POST (a repeat could create a second object, or hide that the first one was
//    created: the caller resolves it through 409 and its own labels) and JSON patches (operations
//    such as "add" to a list are not idempotent).
enum class Idempotency { kIdempotent, kUnsafe };

// What one attempt ended with.
struct AttemptOutcome {
  // HTTP status, or 0 when no response arrived.
  int http_code = 0;
  // True when the request provably never reached the server (resolve, connect or TLS handshake
  // failed), so repeating it is safe for every verb.
  bool not_sent = false;
};

// Whether the outcome may be retried at all (before deadlines and attempt counts are considered).
// 429 is retried for every verb: the server refused it before doing anything. 500/502/503/504 and
// lost connections only for idempotent requests. 401 is handled separately (credentials reload).
bool IsRetryable(const AttemptOutcome& outcome, Idempotency idempotency);

// The wait before attempt number `attempt + 1` (attempt counts from 1), with `random01` uniform in
// [0, 1). A Retry-After from the server wins over the computed backoff when it is longer.
absl::Duration BackoffDelay(const RetryPolicy& policy, int attempt, double random01,
                            std::optional<absl::Duration> retry_after = std::nullopt);

// Parses a Retry-After header: delay-seconds only (the API server never sends an HTTP date).
std::optional<absl::Duration> ParseRetryAfter(std::string_view value);

}  // namespace kje::k8s
