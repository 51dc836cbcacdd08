#include "base/quote.h"

#include "absl/strings/str_format.h"
#include "base/utf8.h"

namespace kje {

namespace {

// Appends `text` to `out`, escaped, until `limit` bytes of out are used; the input bytes taken.
size_t EscapeInto(std::string_view text, size_t limit, std::string& out) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t consumed = 1;
    std::string_view piece;
    char escaped[8];
    if (c == '"' || c == '\\') {
      escaped[0] = '\\';
      escaped[1] = static_cast<char>(c);
      piece = std::string_view(escaped, 2);
    } else if (c >= 0x20 && c < 0x7F) {
      piece = text.substr(i, 1);
    } else if (int n = c >= 0x80 ? Utf8SequenceLength(text.substr(i)) : -1; n > 0) {
      consumed = static_cast<size_t>(n);
      piece = text.substr(i, consumed);  // a character that would pass the cap is left out whole
    } else {
      absl::SNPrintF(escaped, sizeof(escaped), "\\x%02X", c);
      piece = std::string_view(escaped, 4);
    }
    if (out.size() + piece.size() > limit) break;
    out.append(piece);
    i += consumed;
  }
  return i;
}

}  // namespace

std::string QuoteBounded(std::string_view text, size_t max_bytes) {
  std::string out = "\"";
  // The budget is of quoted output, escapes included: an input of control bytes quotes as few
  // input bytes as its escapes take room, so no quote is longer than max_bytes plus the note.
  size_t taken = EscapeInto(text, 1 + max_bytes, out);
  out += '"';
  if (taken < text.size()) {
    absl::StrAppendFormat(&out, "... (%d bytes)", text.size());
  }
  return out;
}

std::string EscapeBounded(std::string_view text, size_t max_bytes) {
  std::string out;
  size_t taken = EscapeInto(text, max_bytes, out);
  if (taken < text.size()) {
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

std::string NameInPath(std::string_view name) {
  constexpr size_t kMaxPlainBytes = 64;
  bool plain = !name.empty() && name.size() <= kMaxPlainBytes;
  for (size_t i = 0; plain && i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    plain = c > 0x20 && c < 0x7F && c != '"' && c != '\\';
  }
  return plain ? std::string(name) : QuoteBounded(name);
}

bool HasControlByte(std::string_view text) {
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) return true;
  }
  return false;
}

}  // namespace kje
