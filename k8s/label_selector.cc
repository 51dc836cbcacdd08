#include "k8s/label_selector.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::k8s {
namespace {

bool IsNameChar(char c) { return absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.'; }

// A qualified name ([prefix/]name, name ≤ 63 chars, alphanumeric at both ends) as label keys are.
bool ValidKey(std::string_view key) {
  std::string_view name = key;
  if (auto slash = key.find('/'); slash != std::string_view::npos) {
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty() || prefix.size() > 253) return false;
    for (char c : prefix) {
      if (!(absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '-' || c == '.')) return false;
    }
  }
  if (name.empty() || name.size() > 63) return false;
  if (!absl::ascii_isalnum(name.front()) || !absl::ascii_isalnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(), IsNameChar);
}

// Label values: empty, or ≤ 63 chars, alphanumeric at both ends.
bool ValidValue(std::string_view v) {
  if (v.empty()) return true;
  if (v.size() > 63) return false;
  if (!absl::ascii_isalnum(v.front()) || !absl::ascii_isalnum(v.back())) return false;
  return std::all_of(v.begin(), v.end(), IsNameChar);
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  void SkipSpace() {
    while (pos_ < s_.size() && absl::ascii_isspace(s_[pos_])) ++pos_;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= s_.size();
  }
  char Peek() {
    SkipSpace();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  bool Consume(std::string_view token) {
    SkipSpace();
    if (s_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  // A run of name characters and '/' (keys and values).
  std::string_view Word() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < s_.size() && (IsNameChar(s_[pos_]) || s_[pos_] == '/')) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  // Consumes a keyword only when it stands alone ("in (", not "inside").
  bool Keyword(std::string_view word) {
    SkipSpace();
    if (s_.substr(pos_, word.size()) != word) return false;
    size_t after = pos_ + word.size();
    if (after < s_.size() && (IsNameChar(s_[after]) || s_[after] == '/')) return false;
    pos_ = after;
    return true;
  }
  size_t Offset() const { return pos_; }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

absl::Status Error(std::string_view text, size_t pos, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("label selector ", QuoteBounded(text), ": ", ToAbsl(what), " at offset ", pos));
}

}  // namespace

absl::StatusOr<LabelSelector> LabelSelector::Parse(std::string_view text) {
  LabelSelector selector;
  Lexer lex(text);
  if (lex.AtEnd()) return selector;
  while (true) {
    Requirement req;
    bool negated = lex.Consume("!");
    size_t key_pos = lex.Offset();
    std::string_view key = lex.Word();
    if (!ValidKey(key)) {
      return Error(text, key_pos,
                   key.empty() ? "expected a label key"
                               : absl::StrCat("invalid label key ", QuoteBounded(key)));
    }
    req.key = std::string(key);
    if (negated) {
      req.op = Op::kDoesNotExist;
    } else if (lex.Consume("==") || lex.Consume("=")) {
      req.op = Op::kEquals;
    } else if (lex.Consume("!=")) {
      req.op = Op::kNotEquals;
    } else if (lex.Keyword("notin")) {
      req.op = Op::kNotIn;
    } else if (lex.Keyword("in")) {
      req.op = Op::kIn;
    } else {
      req.op = Op::kExists;
    }
    if (req.op == Op::kEquals || req.op == Op::kNotEquals) {
      size_t value_pos = lex.Offset();
      std::string_view value = lex.Word();
      if (!ValidValue(value)) {
        return Error(text, value_pos, absl::StrCat("invalid label value ", QuoteBounded(value)));
      }
      req.values.emplace_back(value);
    } else if (req.op == Op::kIn || req.op == Op::kNotIn) {
      if (!lex.Consume("(")) return Error(text, lex.Offset(), "expected '('");
      while (true) {
        size_t value_pos = lex.Offset();
        std::string_view value = lex.Word();
        if (!ValidValue(value)) {
          return Error(text, value_pos, absl::StrCat("invalid label value ", QuoteBounded(value)));
        }
        req.values.emplace_back(value);
        if (lex.Consume(")")) break;
        if (!lex.Consume(",")) return Error(text, lex.Offset(), "expected ',' or ')'");
      }
      std::sort(req.values.begin(), req.values.end());
    }
    selector.requirements_.push_back(std::move(req));
    if (lex.AtEnd()) break;
    if (!lex.Consume(",")) return Error(text, lex.Offset(), "expected ','");
  }
  return selector;
}

bool LabelSelector::Matches(const Labels& labels) const {
  return Matches([&](std::string_view key) -> std::optional<std::string_view> {
    for (const auto& [k, v] : labels) {
      if (k == key) return v;
    }
    return std::nullopt;
  });
}

bool LabelSelector::Matches(
    absl::FunctionRef<std::optional<std::string_view>(std::string_view key)> find) const {
  for (const Requirement& req : requirements_) {
    std::optional<std::string_view> value = find(req.key);
    bool in = value && std::binary_search(req.values.begin(), req.values.end(), *value);
    switch (req.op) {
      case Op::kExists:
        if (!value) return false;
        break;
      case Op::kDoesNotExist:
        if (value) return false;
        break;
      case Op::kEquals:
      case Op::kIn:
        if (!in) return false;
        break;
      case Op::kNotEquals:
      case Op::kNotIn:
        // As in Kubernetes: a missing label satisfies != and notin.
        if (in) return false;
        break;
    }
  }
  return true;
}

}  // namespace kje::k8s
