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

// A DNS-1123 subdomain as Kubernetes defines it for most object names: parts shaped like labels
// ([a-z0-9]([-a-z0-9]*[a-z0-9])?, of any length) joined by '.', at most 253 characters in all.
inline bool IsDns1123Subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  char previous = '.';
  for (char c : s) {
    if (c == '.') {
      if (!alnum(previous)) return false;  // an empty part, or one ending in '-'
    } else if (c == '-') {
      if (previous == '.') return false;  // a part starting with '-'
    } else if (!alnum(c)) {
      return false;
    }
    previous = c;
  }
  return alnum(previous);
}

}  // namespace kje
