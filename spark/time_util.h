#pragma once

// Compact time values for projections that are held by the hundred thousand.

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "absl/time/time.h"

namespace kje::spark {

// Milliseconds since the Unix epoch (Gravitino's own precision), or kNoTime.
using EpochMillis = int64_t;
inline constexpr EpochMillis kNoTime = std::numeric_limits<int64_t>::min();

// RFC 3339 as Kubernetes and the operator write it ("2026-05-12T10:00:09.53344Z", any number
// of fraction digits, "Z" or a numeric offset), floored to milliseconds. kNoTime when the text
// doesn't parse: a bad time must not make a whole status unreadable.
EpochMillis ParseRfc3339Millis(std::string_view text);

inline std::optional<absl::Time> ToOptionalTime(EpochMillis millis) {
  if (millis == kNoTime) return std::nullopt;
  return absl::FromUnixMillis(millis);
}

}  // namespace kje::spark
