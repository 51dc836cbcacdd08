#include "base/mask.h"

#include <atomic>

namespace kje {
namespace {

bool IsSeparator(char c) { return c == '.' || c == '_' || c == '-'; }

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Lower case without separators: "spark.ssl.keyStorePassword" and "key_store-password" meet.
std::string Normalised(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (!IsSeparator(c)) out.push_back(Lower(c));
  }
  return out;
}

// The characters of a key's name in free text: a conf key, an option, a query parameter.
bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         IsSeparator(c);
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Where a bare value ends.
bool EndsBareValue(char c) {
  return IsSpace(c) || c == ',' || c == ';' || c == '&' || c == '"' || c == '\'' || c == ')' ||
         c == ']' || c == '}';
}

// The index just past the closing `quote` of the quoted text opening at `open`, backslash
// escapes skipped; npos when it never closes.
size_t PastClosingQuote(std::string_view text, size_t open, char quote) {
  for (size_t i = open + 1; i < text.size(); ++i) {
    if (text[i] == '\\' && quote == '"') {
      ++i;
    } else if (text[i] == quote) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

size_t PastBareValue(std::string_view text, size_t start) {
  size_t i = start;
  while (i < text.size() && !EndsBareValue(text[i])) ++i;
  return i;
}

// Appends the masked form of the value starting at `start` (quoted or bare) and returns the
// index past it.
size_t AppendMaskedValue(std::string_view text, size_t start, std::string& out) {
  if (start < text.size() && (text[start] == '"' || text[start] == '\'')) {
    const char quote = text[start];
    const size_t end = PastClosingQuote(text, start, quote);
    out.push_back(quote);
    out.append(kMask);
    if (end == std::string_view::npos) return text.size();
    out.push_back(quote);
    return end;
  }
  size_t end = PastBareValue(text, start);
  if (end > start) out.append(kMask);
  return end;
}

size_t SkipSpaces(std::string_view text, size_t i) {
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  return i;
}

std::atomic<const SensitiveWords*> configured{nullptr};

}  // namespace

const std::vector<std::string>& DefaultSensitiveWords() {
  static const auto* words = new std::vector<std::string>{
      "password", "passwd", "secret", "token", "credential", "apikey", "privatekey"};
  return *words;
}

SensitiveWords::SensitiveWords() : SensitiveWords(DefaultSensitiveWords()) {}

SensitiveWords::SensitiveWords(const std::vector<std::string>& words) {
  for (const std::string& word : words) {
    std::string normalised = Normalised(word);
    for (char& c : normalised) {
      if (IsSpace(c)) c = '\0';
    }
    std::erase(normalised, '\0');
    if (!normalised.empty()) words_.push_back(std::move(normalised));
  }
}

bool SensitiveWords::IsSensitive(std::string_view key) const {
  while (!key.empty() && key.front() == '-') key.remove_prefix(1);
  if (key.empty()) return false;
  const std::string normalised = Normalised(key);
  for (const std::string& word : words_) {
    if (normalised.find(word) != std::string::npos) return true;
  }
  return false;
}

const SensitiveWords& ConfiguredSensitiveWords() {
  if (const SensitiveWords* set = configured.load(std::memory_order_acquire)) return *set;
  static const SensitiveWords* defaults = new SensitiveWords();
  return *defaults;
}

void SetSensitiveWords(const std::vector<std::string>& words) {
  // Kept for the process's life: a reader may hold the previous set (in tests that set twice).
  configured.store(new SensitiveWords(words), std::memory_order_release);
}

std::string MaskValue(std::string_view key, std::string_view value, const SensitiveWords& words) {
  if (!value.empty() && words.IsSensitive(key)) return std::string(kMask);
  return std::string(value);
}

std::string MaskValue(std::string_view key, std::string_view value) {
  return MaskValue(key, value, ConfiguredSensitiveWords());
}

std::string MaskText(std::string_view text, const SensitiveWords& words) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      // A JSON member's name when a ':' follows; otherwise quoted text, read on as any text
      // (it may hold `key=value`).
      const size_t past = PastClosingQuote(text, i, '"');
      if (past != std::string_view::npos) {
        const std::string_view key = text.substr(i + 1, past - i - 2);
        const size_t colon = SkipSpaces(text, past);
        if (colon < text.size() && text[colon] == ':' && words.IsSensitive(key)) {
          const size_t value = SkipSpaces(text, colon + 1);
          if (value < text.size() && text[value] != '{' && text[value] != '[') {
            out.append(text.substr(i, value - i));
            i = AppendMaskedValue(text, value, out);
            continue;
          }
        }
      }
      out.push_back(c);
      ++i;
      continue;
    }
    if (IsKeyChar(c)) {
      size_t end = i;
      while (end < text.size() && IsKeyChar(text[end])) ++end;
      const std::string_view key = text.substr(i, end - i);
      out.append(key);
      i = end;
      if (i < text.size() && text[i] == '=' && words.IsSensitive(key)) {
        out.push_back('=');
        i = AppendMaskedValue(text, i + 1, out);
      } else if (key.starts_with("--") && i + 1 < text.size() && text[i] == ' ' &&
                 !IsSpace(text[i + 1]) && text[i + 1] != '-' && words.IsSensitive(key)) {
        out.push_back(' ');
        i = AppendMaskedValue(text, i + 1, out);
      }
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

std::string MaskText(std::string_view text) { return MaskText(text, ConfiguredSensitiveWords()); }

std::vector<std::string> MaskArguments(const std::vector<std::string>& arguments,
                                       const SensitiveWords& words) {
  std::vector<std::string> out;
  out.reserve(arguments.size());
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    out.push_back(MaskText(argument, words));
    const bool lone_option = argument.starts_with("--") && argument.find('=') == std::string::npos;
    if (lone_option && i + 1 < arguments.size() && words.IsSensitive(argument)) {
      out.push_back(MaskValue(argument, arguments[++i], words));
    }
  }
  return out;
}

}  // namespace kje
