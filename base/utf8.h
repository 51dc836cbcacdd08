#pragma once

// UTF-8 decoding shared by everything that cuts, repairs or quotes outside text.

#include <cstddef>
#include <string>
#include <string_view>

namespace kje {

// The length of the well-formed UTF-8 sequence at the start of `s`, or -(the length of its
// maximal ill-formed prefix, at least 1), per Unicode's "maximal subpart" practice, which Java's
// decoder follows.
inline int Utf8SequenceLength(std::string_view s) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  int length;
  unsigned char low = 0x80, high = 0xBF;  // The range of the second byte.
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return -1;
  }
  for (int i = 1; i < length; ++i) {
    if (static_cast<size_t>(i) >= s.size()) return -i;
    unsigned char b = byte(i);
    bool ok = i == 1 ? (b >= low && b <= high) : (b >= 0x80 && b <= 0xBF);
    if (!ok) return -i;
  }
  return length;
}

// `s` with each ill-formed subpart replaced by U+FFFD, as Java's decoder does: text from outside
// that becomes a protobuf string (which must be UTF-8).
inline std::string ToValidUtf8(std::string_view s) {
  constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    int length = Utf8SequenceLength(s);
    if (length > 0) {
      out.append(s.substr(0, length));
      s.remove_prefix(length);
    } else {
      out.append(kReplacement);
      s.remove_prefix(-length);
    }
  }
  return out;
}

}  // namespace kje
