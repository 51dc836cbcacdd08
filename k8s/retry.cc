#include "k8s/retry.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "absl/strings/ascii.h"
#include "base/strings.h"

namespace kje::k8s {

bool IsRetryable(const AttemptOutcome& outcome, Idempotency idempotency) {
  if (outcome.not_sent || outcome.http_code == 429) return true;
  if (idempotency != Idempotency::kIdempotent) return false;
  switch (outcome.http_code) {
    case 0:  // lost connection: outcome unknown
    case 500:
    case 502:
    case 503:
    case 504:
      return true;
    default:
      return false;
  }
}

absl::Duration BackoffDelay(const RetryPolicy& policy, int attempt, double random01,
                            std::optional<absl::Duration> retry_after) {
  double exponent = std::max(0, attempt - 1);
  double base =
      absl::ToDoubleSeconds(policy.initial_backoff) * std::pow(policy.multiplier, exponent);
  base = std::min(base, absl::ToDoubleSeconds(policy.max_backoff));
  double factor = 1.0 + policy.jitter * (2.0 * std::clamp(random01, 0.0, 1.0) - 1.0);
  absl::Duration delay = absl::Seconds(base * factor);
  if (retry_after && *retry_after > delay) delay = *retry_after;
  return delay;
}

std::optional<absl::Duration> ParseRetryAfter(std::string_view value) {
  std::string_view trimmed = ToStd(absl::StripAsciiWhitespace(ToAbsl(value)));
  if (trimmed.empty()) return std::nullopt;
  int64_t seconds = 0;
  auto [ptr, ec] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), seconds);
  if (ec != std::errc() || ptr != trimmed.data() + trimmed.size() || seconds < 0) {
    return std::nullopt;
  }
  // A server asking for hours is broken or hostile; the caller's deadline caps it anyway.
  return absl::Seconds(std::min<int64_t>(seconds, 3600));
}

}  // namespace kje::k8s
