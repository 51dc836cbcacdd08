#pragma once

// What every fuzz target shares: a check that stops the run on a broken invariant (libFuzzer
// then saves the input), and a way to cut one input into several parts.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "base/quote.h"

// An invariant, checked in every build type (assert() vanishes under NDEBUG).
#define FUZZ_CHECK(cond)                                                                     \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (false)

// An invariant over a text (an error message, say): a failure prints the text too, escaped, so
// that the finding says what was wrong without a debugger.
#define FUZZ_CHECK_TEXT(cond, text)                                                          \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      ::kje::fuzz::PrintEscaped(text);                                                       \
      std::abort();                                                                          \
    }                                                                                        \
  } while (false)

// A refusal's message as an answer or a log line may carry it: within the cap and with no
// control byte from the input. A failure prints the message.
#define FUZZ_CHECK_ANSWERABLE(message)                                               \
  do {                                                                               \
    const std::string_view fuzz_message_ = (message);                                \
    FUZZ_CHECK_TEXT(fuzz_message_.size() <= ::kje::kMaxMessageBytes, fuzz_message_); \
    FUZZ_CHECK_TEXT(!::kje::HasControlByte(fuzz_message_), fuzz_message_);           \
  } while (false)

namespace kje::fuzz {

// `text` on stderr, printable ASCII as is and every other byte as \xNN.
inline void PrintEscaped(std::string_view text) {
  std::fputs("  text: \"", stderr);
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      std::fputc(c, stderr);
    } else {
      std::fprintf(stderr, "\\x%02x", c);
    }
  }
  std::fputs("\"\n", stderr);
}

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// The parts of an input separated by lines holding only "%%": seeds stay readable text, and a
// mutation that breaks a separator only merges two parts.
inline std::vector<std::string_view> SplitParts(std::string_view input) {
  constexpr std::string_view kSeparator = "\n%%\n";
  std::vector<std::string_view> parts;
  for (;;) {
    size_t at = input.find(kSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(input.substr(0, at));
    input.remove_prefix(at + kSeparator.size());
  }
  parts.push_back(input);
  return parts;
}

// Whether the text is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
inline bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // truncated sequence
    for (size_t k = 1; k <= n; ++k) {
      unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

}  // namespace kje::fuzz
