#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace kje {

namespace names_internal {

// What a byte can be in a DNS-1123 name, looked up once per byte (every Status checks a name).
enum ByteClass : uint8_t { kOther = 0, kAlnum, kDash, kDot };

constexpr std::array<ByteClass, 256> MakeByteClasses() {
  std::array<ByteClass, 256> classes{};
  for (int c = 'a'; c <= 'z'; ++c) classes[c] = kAlnum;
  for (int c = '0'; c <= '9'; ++c) classes[c] = kAlnum;
  classes['-'] = kDash;
  classes['.'] = kDot;
  return classes;
}

inline constexpr std::array<ByteClass, 256> kByteClasses = MakeByteClasses();

constexpr ByteClass ClassOf(char c) { return kByteClasses[static_cast<unsigned char>(c)]; }

}  // namespace names_internal

// A DNS-1123 label as Kubernetes defines it for namespaces: [a-z0-9]([-a-z0-9]*[a-z0-9])?,
// at most 63 characters.
constexpr bool IsDns1123Label(std::string_view s) {
  using names_internal::ClassOf;
  if (s.empty() || s.size() > 63) return false;
  if (ClassOf(s.front()) != names_internal::kAlnum || ClassOf(s.back()) != names_internal::kAlnum) {
    return false;
  }
  for (char c : s) {
    names_internal::ByteClass k = ClassOf(c);
    if (k != names_internal::kAlnum && k != names_internal::kDash) return false;
  }
  return true;
}

// A DNS-1123 subdomain as Kubernetes defines it for most object names: parts shaped like labels
// ([a-z0-9]([-a-z0-9]*[a-z0-9])?, of any length) joined by '.', at most 253 characters in all.
constexpr bool IsDns1123Subdomain(std::string_view s) {
  using names_internal::ByteClass;
  if (s.empty() || s.size() > 253) return false;
  ByteClass previous = names_internal::kDot;
  for (char c : s) {
    ByteClass k = names_internal::ClassOf(c);
    if (k != names_internal::kAlnum) {
      if (k == names_internal::kOther) return false;
      // A '.' ends a part, which must end in a letter or digit (and not be empty); a '-' can't
      // start one.
      if (k == names_internal::kDot ? previous != names_internal::kAlnum
                                    : previous == names_internal::kDot) {
        return false;
      }
    }
    previous = k;
  }
  return previous == names_internal::kAlnum;
}

}  // namespace kje
