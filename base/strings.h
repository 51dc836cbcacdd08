#pragma once

// Debian's Abseil keeps its own absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW=0), which
// does not convert from std::string_view. These adapters make the crossing explicit.

#include <string_view>

#include "absl/strings/string_view.h"

namespace kje {

inline absl::string_view ToAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline std::string_view ToStd(absl::string_view s) { return std::string_view(s.data(), s.size()); }

}  // namespace kje
