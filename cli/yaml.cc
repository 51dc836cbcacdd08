#include "cli/yaml.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace kje::cli {
namespace {

// The words YAML 1.1 and 1.2 readers take for booleans and null.
bool IsSpecialWord(std::string_view s) {
  static constexpr std::string_view kWords[] = {"true", "false", "yes", "no", "on",
                                                "off",  "null",  "y",   "n",  "~"};
  const std::string lower = absl::AsciiStrToLower(std::string(s));
  return std::find(std::begin(kWords), std::end(kWords), lower) != std::end(kWords);
}

// Whether a plain scalar would read as a number (ints, floats, hex, octal, .inf, .nan, or the
// sexagesimal and underscore forms of YAML 1.1).
bool LooksNumeric(std::string_view s) {
  if (s.empty()) return false;
  const std::string lower = absl::AsciiStrToLower(std::string(s));
  if (lower == ".inf" || lower == "-.inf" || lower == "+.inf" || lower == ".nan") return true;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  if (!absl::ascii_isdigit(static_cast<unsigned char>(s[i])) && s[i] != '.') return false;
  for (; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (!absl::ascii_isalnum(c) && c != '.' && c != '_' && c != ':' && c != '+' && c != '-') {
      return false;
    }
  }
  return true;
}

bool NeedsQuotes(std::string_view s) {
  if (s.empty() || IsSpecialWord(s) || LooksNumeric(s)) return true;
  if (s.front() == ' ' || s.back() == ' ') return true;
  static constexpr std::string_view kIndicators = "-?:,[]{}#&*!|>'\"%@`";
  if (kIndicators.find(s.front()) != std::string_view::npos) {
    // "-x" and "?x"/":x" are plain scalars; "- " or a lone indicator is not.
    const bool dash_word =
        (s.front() == '-' || s.front() == '?' || s.front() == ':') && s.size() > 1 && s[1] != ' ';
    if (!dash_word) return true;
  }
  if (s.find(": ") != s.npos || s.find(" #") != s.npos || s.back() == ':') return true;
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

// Quoted as JSON: JSON's escapes are YAML's double-quoted escapes.
std::string DoubleQuoted(std::string_view s) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  writer.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return std::string(out.GetString(), out.GetSize());
}

std::string Scalar(std::string_view s) {
  if (!NeedsQuotes(s)) return std::string(s);
  bool printable = true;
  for (char c : s) printable = printable && static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  if (!printable) return DoubleQuoted(s);
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  out += '\'';
  return out;
}

std::string StringOf(const rapidjson::Value& v) {
  return std::string(v.GetString(), v.GetStringLength());
}

// A scalar or an empty collection, on the line of its key or dash.
std::string Inline(const rapidjson::Value& v) {
  if (v.IsString()) return Scalar(StringOf(v));
  if (v.IsNull()) return "null";
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsObject()) return "{}";
  if (v.IsArray()) return "[]";
  rapidjson::StringBuffer out;  // a number, as JSON wrote it
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  v.Accept(writer);
  return std::string(out.GetString(), out.GetSize());
}

bool IsBlock(const rapidjson::Value& v) {
  return (v.IsObject() && v.MemberCount() > 0) || (v.IsArray() && !v.Empty());
}

void Emit(const rapidjson::Value& v, int indent, std::string& out);

void EmitObject(const rapidjson::Value& v, int indent, std::string& out, bool first_inline) {
  std::vector<const rapidjson::Value::Member*> members;
  for (const auto& m : v.GetObject()) members.push_back(&m);
  std::stable_sort(members.begin(), members.end(), [](const auto* a, const auto* b) {
    return StringOf(a->name) < StringOf(b->name);
  });
  bool first = true;
  for (const auto* m : members) {
    if (!(first && first_inline)) out.append(indent, ' ');
    first = false;
    absl::StrAppend(&out, Scalar(StringOf(m->name)), ":");
    if (!IsBlock(m->value)) {
      absl::StrAppend(&out, " ", Inline(m->value), "\n");
      continue;
    }
    out += "\n";
    // A sequence under a key starts at the key's column, as kubectl prints it.
    Emit(m->value, m->value.IsArray() ? indent : indent + 2, out);
  }
}

void Emit(const rapidjson::Value& v, int indent, std::string& out) {
  if (v.IsObject()) {
    EmitObject(v, indent, out, false);
    return;
  }
  for (const auto& item : v.GetArray()) {
    out.append(indent, ' ');
    out += "- ";
    if (!IsBlock(item)) {
      absl::StrAppend(&out, Inline(item), "\n");
    } else if (item.IsObject()) {
      EmitObject(item, indent + 2, out, true);
    } else {
      out.back() = '\n';  // "-" alone, the sequence below it
      Emit(item, indent + 2, out);
    }
  }
}

}  // namespace

absl::StatusOr<std::string> JsonToYaml(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not JSON: ", rapidjson::GetParseError_En(doc.GetParseError()), " at offset ",
                     doc.GetErrorOffset()));
  }
  if (!IsBlock(doc)) return absl::StrCat(Inline(doc), "\n");
  std::string out;
  Emit(doc, 0, out);
  return out;
}

}  // namespace kje::cli
