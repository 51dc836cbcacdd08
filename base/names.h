#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace kje {

namespace names_internal {

// What a byte can be in a DNS-1123 name, as bits: a name's bytes are OR-ed in one pass with no
// branch per byte (every Status checks a namespace and a name).
enum ByteBits : uint8_t { kAlnum = 1, kDash = 2, kDot = 4, kOther = 8 };

constexpr std::array<uint8_t, 256> MakeByteBits() {
  std::array<uint8_t, 256> bits{};
  for (uint8_t& b : bits) b = kOther;
  for (int c = 'a'; c <= 'z'; ++c) bits[c] = kAlnum;
  for (int c = '0'; c <= '9'; ++c) bits[c] = kAlnum;
  bits['-'] = kDash;
  bits['.'] = kDot;
  return bits;
}

inline constexpr std::array<uint8_t, 256> kByteBits = MakeByteBits();

constexpr uint8_t BitsOf(char c) { return kByteBits[static_cast<unsigned char>(c)]; }

// The bits of every byte of `s`, OR-ed.
constexpr uint8_t BitsSeen(std::string_view s) {
  uint8_t seen = 0;
  for (char c : s) seen |= BitsOf(c);
  return seen;
}

// Whether `s` (not empty) starts and ends with a letter or digit.
constexpr bool AlnumEnds(std::string_view s) {
  return (BitsOf(s.front()) & BitsOf(s.back())) == kAlnum;
}

}  // namespace names_internal

// A DNS-1123 label as Kubernetes defines it for namespaces: [a-z0-9]([-a-z0-9]*[a-z0-9])?,
// at most 63 characters.
constexpr bool IsDns1123Label(std::string_view s) {
  namespace ni = names_internal;
  if (s.empty() || s.size() > 63) return false;
  return (ni::BitsSeen(s) & ~(ni::kAlnum | ni::kDash)) == 0 && ni::AlnumEnds(s);
}

// A DNS-1123 subdomain as Kubernetes defines it for most object names: parts shaped like labels
// ([a-z0-9]([-a-z0-9]*[a-z0-9])?, of any length) joined by '.', at most 253 characters in all.
constexpr bool IsDns1123Subdomain(std::string_view s) {
  namespace ni = names_internal;
  if (s.empty() || s.size() > 253) return false;
  const uint8_t seen = ni::BitsSeen(s);
  if ((seen & ni::kOther) != 0 || !ni::AlnumEnds(s)) return false;
  if ((seen & ni::kDot) == 0) return true;  // one part: a label of any length
  // A '.' ends a part, which must end in a letter or digit (and not be empty); a '-' can't start
  // one.
  uint8_t previous = ni::kDot;
  for (char c : s) {
    const uint8_t k = ni::BitsOf(c);
    if (k == ni::kDot ? previous != ni::kAlnum : (k == ni::kDash && previous == ni::kDot)) {
      return false;
    }
    previous = k;
  }
  return true;
}

}  // namespace kje
