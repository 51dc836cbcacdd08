#include "base/quote.h"

#include "absl/strings/str_format.h"
#include "base/utf8.h"

namespace kje {

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
    } else if (int n = c >= 0x80 ? Utf8SequenceLength(text.substr(i)) : -1;
               n > 0 && i + static_cast<size_t>(n) <= max_bytes) {
      out.append(text.substr(i, static_cast<size_t>(n)));
      i += static_cast<size_t>(n);
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

std::string BoundMessage(std::string_view message, size_t max_bytes) {
  if (message.size() <= max_bytes) return std::string(message);
  std::string note = absl::StrFormat("... (%d bytes)", message.size());
  size_t room = max_bytes > note.size() ? max_bytes - note.size() : 0;
  size_t end = 0;
  while (end < room) {
    int n = Utf8SequenceLength(message.substr(end));
    size_t step = n > 0 ? static_cast<size_t>(n) : static_cast<size_t>(-n);
    if (end + step > room) break;  // a character that would pass the cap is left out whole
    end += step;
  }
  std::string out(message.substr(0, end));
  out += note;
  return out;
}

bool HasControlByte(std::string_view text) {
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) return true;
  }
  return false;
}

}  // namespace kje
