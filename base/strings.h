#pragma once

// Small text helpers. Debian's Abseil keeps its own absl::string_view
// (ABSL_OPTION_USE_STD_STRING_VIEW=0), which does not convert from std::string_view: the adapters
// below make the crossing explicit.

#include <string_view>

#include "absl/strings/string_view.h"

namespace kje {

inline absl::string_view ToAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline std::string_view ToStd(absl::string_view s) { return std::string_view(s.data(), s.size()); }

// An ASCII whitespace byte: space, \t, \n, \v, \f or \r.
constexpr bool IsBlankByte(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Empty, or only ASCII whitespace: a value that says nothing.
constexpr bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (!IsBlankByte(c)) return false;
  }
  return true;
}

}  // namespace kje
