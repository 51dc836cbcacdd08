#pragma once

#include <string_view>

namespace kje {

// A DNS-1123 label as Kubernetes defines it for namespaces: [a-z0-9]([-a-z0-9]*[a-z0-9])?,
// at most 63 characters.
inline bool IsDns1123Label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-') return false;
  }
  return true;
}

}  // namespace kje
