#include "base/quote.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kje {
namespace {

// The length of the well-formed UTF-8 sequence at s[i] (no overlongs, surrogates or code points
// past U+10FFFF), or 0 when none starts there.
size_t Utf8SequenceAt(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  unsigned char d = static_cast<unsigned char>(s[i + 1]);
  if (c == 0xE0 && d < 0xA0) return 0;  // overlong
  if (c == 0xED && d > 0x9F) return 0;  // surrogate
  if (c == 0xF0 && d < 0x90) return 0;  // overlong
  if (c == 0xF4 && d > 0x8F) return 0;  // past U+10FFFF
  return n;
}

}  // namespace

std::string QuoteBounded(std::string_view text, size_t max_bytes) {
  std::string out = "\"";
  size_t i = 0;
  while (i < text.size() && i < max_bytes) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
    } else if (size_t n = c >= 0x80 ? Utf8SequenceAt(text, i) : 0; n > 0 && i + n <= max_bytes) {
      out.append(text.substr(i, n));
      i += n;
    } else if (n > 0) {
      break;  // a character that would pass the cap is left out whole
    } else {
      absl::StrAppendFormat(&out, "\\x%02X", c);
      ++i;
    }
  }
  out += '"';
  if (i < text.size()) {
    absl::StrAppendFormat(&out, "... (%d bytes)", text.size());
  }
  return out;
}

}  // namespace kje
