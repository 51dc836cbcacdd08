#pragma once

// Time as the simulated operators and kubelet write it: operator-time delays under a time
// scale, and RFC 3339 UTC timestamps.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kubesim::sim {

// An operator-time delay in wall-clock ms: divided by the time scale, rounded up.
int64_t ScaledMs(int64_t ms, double time_scale);

// RFC 3339 UTC, whole seconds (metav1.Time), or with milliseconds when `millis` and they are
// not zero (Java's Instant).
std::string FormatTime(int64_t ms, bool millis);

// YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM) → ms since the epoch.
std::optional<int64_t> ParseTime(std::string_view text);

}  // namespace kubesim::sim
