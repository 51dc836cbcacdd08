// -o yaml: the protobuf JSON mapping's values (cli/output.h's ToJson) as a YAML document.

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "cli/output.h"
#include "cli/yaml.h"
#include "rapidjson/document.h"

namespace kje::cli {
namespace {

// Whether a YAML reader would take `text`, written plain, for something other than a string:
// null, a YAML 1.1 boolean, or (starting like a number) a number, a date or a time. Such strings
// are quoted, so "1001" stays the string the JSON has.
bool ReadsAsOtherType(std::string_view text) {
  if (text.empty()) return true;
  static constexpr std::string_view kWords[] = {"null", "~", "true", "false", "yes",   "no",  "on",
                                                "off",  "y", "n",    ".inf",  "-.inf", ".nan"};
  std::string lower(text);
  absl::AsciiStrToLower(&lower);
  for (std::string_view word : kWords) {
    if (lower == word) return true;
  }
  const char first = text.front();
  const char second = text.size() > 1 ? text[1] : '\0';
  return absl::ascii_isdigit(static_cast<unsigned char>(first)) ||
         ((first == '-' || first == '+' || first == '.') &&
          absl::ascii_isdigit(static_cast<unsigned char>(second)));
}

void Emit(YAML::Emitter& out, const rapidjson::Value& value) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      out << YAML::Null;
      break;
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      out << value.GetBool();
      break;
    case rapidjson::kNumberType:
      if (value.IsInt64()) {
        out << value.GetInt64();
      } else if (value.IsUint64()) {
        out << value.GetUint64();
      } else {
        out << value.GetDouble();
      }
      break;
    case rapidjson::kStringType: {
      const std::string text(value.GetString(), value.GetStringLength());
      if (ReadsAsOtherType(text)) out << YAML::DoubleQuoted;
      out << text;
      break;
    }
    case rapidjson::kObjectType:
      out << YAML::BeginMap;
      for (const auto& member : value.GetObject()) {
        out << YAML::Key;
        Emit(out, member.name);
        out << YAML::Value;
        Emit(out, member.value);
      }
      out << YAML::EndMap;
      break;
    case rapidjson::kArrayType:
      out << YAML::BeginSeq;
      for (const rapidjson::Value& item : value.GetArray()) Emit(out, item);
      out << YAML::EndSeq;
      break;
  }
}

}  // namespace

absl::StatusOr<std::string> JsonToYaml(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) return absl::InvalidArgumentError("not JSON");
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  Emit(out, doc);
  std::string text = out.c_str();
  text.push_back('\n');
  return text;
}

std::string ToYaml(const google::protobuf::Message& message) {
  auto yaml = JsonToYaml(ToJson(message, false));
  return yaml.ok() ? *std::move(yaml) : "error: can't print as YAML\n";
}

}  // namespace kje::cli
