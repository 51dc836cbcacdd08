#include "spark/job_template.h"

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "base/strings.h"
#include "rapidjson/document.h"

namespace kje::spark {
namespace {

constexpr std::string_view kSparkConfArgument = "--spark-conf";

bool IsSchemeChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The path of a hierarchical URI, percent-decoded as java.net.URI#getPath does; nullopt for an
// opaque URI ("mailto:x"), which has none.
std::optional<std::string> UriPath(std::string_view uri) {
  uri = uri.substr(0, uri.find('#'));
  std::string_view scheme = UriScheme(uri);
  std::string_view rest = uri;
  if (!scheme.empty()) {
    rest.remove_prefix(scheme.size() + 1);
    if (rest.empty() || rest.front() != '/') return std::nullopt;
  }
  rest = rest.substr(0, rest.find('?'));
  if (rest.substr(0, 2) == "//") {
    size_t path_start = rest.find('/', 2);
    rest = path_start == std::string_view::npos ? std::string_view() : rest.substr(path_start);
  }
  std::string path;
  path.reserve(rest.size());
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && HexValue(rest[i + 1]) >= 0 &&
        HexValue(rest[i + 2]) >= 0) {
      path.push_back(static_cast<char>(HexValue(rest[i + 1]) * 16 + HexValue(rest[i + 2])));
      i += 2;
    } else {
      path.push_back(rest[i]);
    }
  }
  return path;
}

}  // namespace

absl::StatusOr<std::map<std::string, std::string>> ParseSparkConfArgument(
    const std::vector<std::string>& arguments) {
  std::map<std::string, std::string> conf;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i] != kSparkConfArgument) continue;
    if (i + 1 >= arguments.size()) {
      return absl::InvalidArgumentError("The --spark-conf argument has no value");
    }
    const std::string& text = arguments[++i];
    if (IsBlank(text)) continue;
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseNumbersAsStringsFlag>(text.data(), text.size());
    if (doc.HasParseError()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The --spark-conf argument isn't valid JSON (error at offset ", doc.GetErrorOffset(),
          "): it must be a JSON object of Spark configurations"));
    }
    if (!doc.IsObject()) {
      return absl::InvalidArgumentError(
          "The --spark-conf argument isn't a JSON object of Spark configurations");
    }
    for (const auto& member : doc.GetObject()) {
      std::string key(member.name.GetString(), member.name.GetStringLength());
      const rapidjson::Value& value = member.value;
      if (value.IsString()) {
        conf[key] = std::string(value.GetString(), value.GetStringLength());
      } else if (value.IsBool()) {
        conf[key] = value.GetBool() ? "true" : "false";
      } else if (value.IsNull()) {
        conf[key] = "";
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("The value of ", QuoteBounded(key),
                         " in the --spark-conf argument is an object or an array: Spark "
                         "configurations are strings, numbers or booleans"));
      }
    }
  }
  return conf;
}

std::string_view UriScheme(std::string_view uri) {
  size_t colon = uri.find(':');
  if (colon == 0 || colon == std::string_view::npos) return "";
  std::string_view scheme = uri.substr(0, colon);
  if (!absl::ascii_isalpha(static_cast<unsigned char>(scheme.front()))) return "";
  for (char c : scheme) {
    if (!IsSchemeChar(c)) return "";
  }
  return scheme;
}

bool IsValidUri(std::string_view uri) {
  size_t hashes = 0;
  for (size_t i = 0; i < uri.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(uri[i]);
    if (c <= 0x20 || c == 0x7F) return false;  // Controls and spaces.
    if (std::string_view("\"<>\\^`{|}").find(static_cast<char>(c)) != std::string_view::npos) {
      return false;
    }
    if (c == '#' && ++hashes > 1) return false;
    if (c == '%' && (i + 2 >= uri.size() || HexValue(uri[i + 1]) < 0 || HexValue(uri[i + 2]) < 0)) {
      return false;
    }
  }
  std::string_view scheme = UriScheme(uri);
  if (!scheme.empty()) {
    std::string_view rest = uri.substr(scheme.size() + 1);
    if (rest.empty() || rest.front() == '#') return false;  // No scheme-specific part.
    if (rest == "//") return false;                         // No authority.
  }
  return true;
}

bool IsClusterReachable(std::string_view uri) {
  std::string_view scheme = UriScheme(uri);
  return !scheme.empty() && !absl::EqualsIgnoreCase(ToAbsl(scheme), "file");
}

bool IsPythonResource(std::string_view uri) {
  std::optional<std::string> path = UriPath(uri);
  return path.has_value() && absl::EndsWith(absl::AsciiStrToLower(*path), ".py");
}

bool IsRResource(std::string_view uri) {
  std::optional<std::string> path = UriPath(uri);
  return path.has_value() && absl::EndsWith(absl::AsciiStrToLower(*path), ".r");
}

}  // namespace kje::spark
