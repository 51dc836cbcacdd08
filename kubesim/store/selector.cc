#include "kubesim/store/selector.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace kubesim {
namespace {

ApiError BadRequest(std::string message) {
  return ApiError{400, "BadRequest", std::move(message), {}};
}

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63 characters.
bool IsQualifiedNamePart(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool IsDns1123Subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty()) return false;
    auto ok = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; };
    if (!std::all_of(label.begin(), label.end(), ok)) return false;
    if (label.front() == '-' || label.back() == '-') return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// Characters that end an identifier in a label selector.
bool IsSpecial(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '!' || c == '(' || c == ')' ||
         c == ',' || c == '=' || c == '<' || c == '>';
}

enum class Tok {
  kEnd,
  kIdent,
  kComma,
  kEq,
  kDoubleEq,
  kNotEq,
  kIn,
  kNotIn,
  kOpen,
  kClose,
  kBang,
  kBad
};

struct Token {
  Tok kind;
  std::string text;
};

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Token Next() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ >= s_.size()) return {Tok::kEnd, ""};
    char c = s_[pos_];
    switch (c) {
      case ',':
        ++pos_;
        return {Tok::kComma, ","};
      case '(':
        ++pos_;
        return {Tok::kOpen, "("};
      case ')':
        ++pos_;
        return {Tok::kClose, ")"};
      case '=':
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '=') {
          pos_ += 2;
          return {Tok::kDoubleEq, "=="};
        }
        ++pos_;
        return {Tok::kEq, "="};
      case '!':
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '=') {
          pos_ += 2;
          return {Tok::kNotEq, "!="};
        }
        ++pos_;
        return {Tok::kBang, "!"};
      case '<':
      case '>':
        ++pos_;
        return {Tok::kBad, std::string(1, c)};
      default:
        break;
    }
    size_t start = pos_;
    while (pos_ < s_.size() && !IsSpecial(s_[pos_])) ++pos_;
    std::string word(s_.substr(start, pos_ - start));
    if (word == "in") return {Tok::kIn, word};
    if (word == "notin") return {Tok::kNotIn, word};
    return {Tok::kIdent, word};
  }

  Token Peek() {
    size_t saved = pos_;
    Token t = Next();
    pos_ = saved;
    return t;
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

ApiError ParseError(const Token& found, std::string_view expected) {
  return BadRequest("unable to parse requirement: found '" + found.text +
                    "', expected: " + std::string(expected));
}

ApiError InvalidRequirement(std::string_view what, std::string_view value, const std::string& why) {
  return BadRequest("unable to parse requirement: " + std::string(what) + ": Invalid value: \"" +
                    std::string(value) + "\": " + why);
}

const boost::json::value* Lookup(const boost::json::object& obj, std::string_view dotted) {
  const boost::json::object* cur = &obj;
  while (true) {
    size_t dot = dotted.find('.');
    std::string_view part = dotted.substr(0, dot);
    auto it = cur->find(part);
    if (it == cur->end()) return nullptr;
    if (dot == std::string_view::npos) return &it->value();
    if (!it->value().is_object()) return nullptr;
    cur = &it->value().get_object();
    dotted = dotted.substr(dot + 1);
  }
}

std::string FieldValue(const boost::json::object& obj, std::string_view field) {
  if (field == "source") field = "source.component";  // events: the reporting component
  const boost::json::value* v = Lookup(obj, field);
  if (v == nullptr || v->is_null()) return "";
  if (v->is_string()) return std::string(v->get_string());
  if (v->is_bool()) return v->get_bool() ? "true" : "false";
  if (v->is_int64()) return std::to_string(v->get_int64());
  if (v->is_uint64()) return std::to_string(v->get_uint64());
  return boost::json::serialize(*v);
}

}  // namespace

std::string CheckLabelKey(std::string_view key) {
  size_t slash = key.find('/');
  std::string_view name = key;
  if (slash != std::string_view::npos) {
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (!IsDns1123Subdomain(prefix)) {
      return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
             "characters, '-' or '.', and must start and end with an alphanumeric character";
    }
  }
  if (name.empty()) return "name part must be non-empty";
  if (name.size() > 63) return "name part must be no more than 63 characters";
  if (!IsQualifiedNamePart(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
           "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
           "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  }
  return "";
}

std::string CheckLabelValue(std::string_view value) {
  if (value.empty()) return "";
  if (value.size() > 63) return "must be no more than 63 characters";
  if (!IsQualifiedNamePart(value)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', "
           "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
           "or 'my_value',  or '12345', regex used for validation is "
           "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  }
  return "";
}

Result<LabelSelector> LabelSelector::Parse(std::string_view text) {
  LabelSelector selector;
  Lexer lex(text);
  if (lex.Peek().kind == Tok::kEnd) return selector;
  while (true) {
    LabelRequirement req;
    Token t = lex.Next();
    bool negated = false;
    if (t.kind == Tok::kBang) {
      negated = true;
      t = lex.Next();
    }
    if (t.kind != Tok::kIdent) return ParseError(t, "identifier");
    req.key = t.text;
    if (std::string why = CheckLabelKey(req.key); !why.empty()) {
      return InvalidRequirement("key", req.key, why);
    }
    Token op = lex.Next();
    if (negated) {
      if (op.kind != Tok::kEnd && op.kind != Tok::kComma) {
        return ParseError(op, "',' or 'end of string'");
      }
      req.op = LabelRequirement::Op::kDoesNotExist;
    } else if (op.kind == Tok::kEnd || op.kind == Tok::kComma) {
      req.op = LabelRequirement::Op::kExists;
    } else if (op.kind == Tok::kEq || op.kind == Tok::kDoubleEq || op.kind == Tok::kNotEq) {
      req.op =
          op.kind == Tok::kNotEq ? LabelRequirement::Op::kNotEquals : LabelRequirement::Op::kEquals;
      Token v = lex.Peek();
      std::string value;
      if (v.kind == Tok::kIdent) {
        value = lex.Next().text;
      } else if (v.kind != Tok::kEnd && v.kind != Tok::kComma) {
        return ParseError(v, "identifier");
      }
      if (std::string why = CheckLabelValue(value); !why.empty()) {
        return InvalidRequirement("values[0][" + req.key + "]", value, why);
      }
      req.values.push_back(std::move(value));
      op = lex.Next();
    } else if (op.kind == Tok::kIn || op.kind == Tok::kNotIn) {
      req.op = op.kind == Tok::kIn ? LabelRequirement::Op::kIn : LabelRequirement::Op::kNotIn;
      Token open = lex.Next();
      if (open.kind != Tok::kOpen) return ParseError(open, "'('");
      // Values separated by commas; an empty value between commas is allowed, as upstream.
      bool expect_value = true;
      while (true) {
        Token v = lex.Next();
        if (v.kind == Tok::kClose) {
          if (expect_value && !req.values.empty()) req.values.push_back("");
          break;
        }
        if (v.kind == Tok::kComma) {
          if (expect_value) req.values.push_back("");
          expect_value = true;
          continue;
        }
        if (v.kind != Tok::kIdent || !expect_value) return ParseError(v, "',', ')' or identifier");
        if (std::string why = CheckLabelValue(v.text); !why.empty()) {
          return InvalidRequirement(
              "values[" + std::to_string(req.values.size()) + "][" + req.key + "]", v.text, why);
        }
        req.values.push_back(v.text);
        expect_value = false;
      }
      if (req.values.empty()) {
        return BadRequest(
            "unable to parse requirement: values: Invalid value: \"\": for 'in', "
            "'notin' operators, values set can't be empty");
      }
      op = lex.Next();
    } else {
      return ParseError(op, "'=', '!=', '==', 'in', notin'");
    }
    if (req.op != LabelRequirement::Op::kExists && req.op != LabelRequirement::Op::kDoesNotExist &&
        op.kind != Tok::kEnd && op.kind != Tok::kComma) {
      return ParseError(op, "',' or 'end of string'");
    }
    selector.requirements_.push_back(std::move(req));
    if (op.kind == Tok::kEnd) break;
    // A trailing comma is an error upstream: another requirement must follow.
    if (lex.Peek().kind == Tok::kEnd) return ParseError(lex.Peek(), "identifier");
  }
  return selector;
}

bool LabelSelector::Matches(const boost::json::object* labels) const {
  for (const LabelRequirement& r : requirements_) {
    const boost::json::value* v = nullptr;
    if (labels != nullptr) {
      auto it = labels->find(r.key);
      if (it != labels->end()) v = &it->value();
    }
    std::string value;
    if (v != nullptr && v->is_string()) value = std::string(v->get_string());
    bool has = v != nullptr;
    auto in_values = [&] {
      return std::find(r.values.begin(), r.values.end(), value) != r.values.end();
    };
    switch (r.op) {
      case LabelRequirement::Op::kEquals:
      case LabelRequirement::Op::kIn:
        if (!has || !in_values()) return false;
        break;
      case LabelRequirement::Op::kNotEquals:
      case LabelRequirement::Op::kNotIn:
        if (has && in_values()) return false;
        break;
      case LabelRequirement::Op::kExists:
        if (!has) return false;
        break;
      case LabelRequirement::Op::kDoesNotExist:
        if (has) return false;
        break;
    }
  }
  return true;
}

Result<FieldSelector> FieldSelector::Parse(std::string_view text,
                                           const std::vector<std::string>& allowed) {
  FieldSelector selector;
  // Split on unescaped commas; a backslash escapes the next character.
  std::vector<std::string> terms;
  std::string cur;
  std::vector<bool> escaped_positions;
  std::vector<std::vector<bool>> escapes;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      cur.push_back(text[++i]);
      escaped_positions.push_back(true);
      continue;
    }
    if (c == ',') {
      terms.push_back(std::move(cur));
      escapes.push_back(std::move(escaped_positions));
      cur.clear();
      escaped_positions.clear();
      continue;
    }
    cur.push_back(c);
    escaped_positions.push_back(false);
  }
  terms.push_back(std::move(cur));
  escapes.push_back(std::move(escaped_positions));
  if (terms.size() == 1 && terms[0].empty()) return selector;

  for (size_t t = 0; t < terms.size(); ++t) {
    const std::string& term = terms[t];
    const std::vector<bool>& esc = escapes[t];
    size_t op_pos = std::string::npos;
    size_t op_len = 0;
    bool equals = true;
    for (size_t i = 0; i < term.size(); ++i) {
      if (esc[i]) continue;
      if (term[i] == '!' && i + 1 < term.size() && term[i + 1] == '=' && !esc[i + 1]) {
        op_pos = i, op_len = 2, equals = false;
        break;
      }
      if (term[i] == '=') {
        op_pos = i;
        op_len = (i + 1 < term.size() && term[i + 1] == '=' && !esc[i + 1]) ? 2 : 1;
        break;
      }
    }
    if (op_pos == std::string::npos) {
      return BadRequest("invalid selector: '" + std::string(text) + "'; can't understand '" + term +
                        "'");
    }
    FieldRequirement req;
    req.field = term.substr(0, op_pos);
    // Whitespace around the field name is tolerated, as upstream trims it.
    while (!req.field.empty() && std::isspace(static_cast<unsigned char>(req.field.back()))) {
      req.field.pop_back();
    }
    while (!req.field.empty() && std::isspace(static_cast<unsigned char>(req.field.front()))) {
      req.field.erase(req.field.begin());
    }
    req.equals = equals;
    req.value = term.substr(op_pos + op_len);
    if (std::find(allowed.begin(), allowed.end(), req.field) == allowed.end()) {
      return BadRequest("field label not supported: " + req.field);
    }
    selector.requirements_.push_back(std::move(req));
  }
  return selector;
}

bool FieldSelector::OnlyMetadata() const {
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [](const FieldRequirement& r) { return r.field.starts_with("metadata."); });
}

bool FieldSelector::Matches(const boost::json::object& obj) const {
  for (const FieldRequirement& r : requirements_) {
    bool same = FieldValue(obj, r.field) == r.value;
    if (same != r.equals) return false;
  }
  return true;
}

std::vector<std::string> SupportedFieldSelectors(const ResourceType& type) {
  std::vector<std::string> fields = {"metadata.name", "metadata.namespace"};
  if (!type.group.empty()) return fields;
  if (type.plural == "pods") {
    for (const char* f :
         {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
          "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"}) {
      fields.emplace_back(f);
    }
  } else if (type.plural == "events") {
    for (const char* f :
         {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
          "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
          "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"}) {
      fields.emplace_back(f);
    }
  } else if (type.plural == "secrets") {
    fields.emplace_back("type");
  } else if (type.plural == "namespaces") {
    fields.emplace_back("status.phase");
  }
  return fields;
}

}  // namespace kubesim
