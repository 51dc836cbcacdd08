#include "spark/app_builder.h"

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "rapidjson/document.h"
#include "spark/json_writer.h"
#include "spark/names.h"
#include "spark/resolved_job.h"

namespace kje::spark {
namespace {

constexpr std::string_view kConfServiceAccount =
    "spark.kubernetes.authenticate.driver.serviceAccountName";
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

// `existing,appended...`: the template's lists come after what the conf already names.
void AppendList(std::map<std::string, std::string>& conf, std::string_view key,
                const std::vector<std::string>& values) {
  if (values.empty()) return;
  std::string joined = absl::StrJoin(values, ",");
  auto it = conf.find(std::string(key));
  if (it == conf.end() || IsBlank(it->second)) {
    conf[std::string(key)] = std::move(joined);
  } else {
    it->second = absl::StrCat(it->second, ",", joined);
  }
}

void SetIfBlank(std::map<std::string, std::string>& conf, std::string_view key,
                const std::string& value) {
  auto it = conf.find(std::string(key));
  if (it == conf.end() || IsBlank(it->second)) conf[std::string(key)] = value;
}

using json::Key;
using json::KeyInt;
using json::KeyStr;
using json::KeyStrings;
using json::Str;
using json::Writer;

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

absl::StatusOr<BuiltApplication> BuildSparkApplication(std::string_view job_id,
                                                       std::string_view metalake,
                                                       const SparkTemplate& spark_template,
                                                       const BuilderOptions& options) {
  ASSIGN_OR_RETURN(ResolvedJob job, ResolveJob(job_id, metalake, spark_template, options));
  std::map<std::string, std::string> conf;
  for (auto& [key, value] : job.conf) conf[key] = std::move(value.value);
  AppendList(conf, kConfJars, job.jars);
  AppendList(conf, kConfFiles, job.files);
  AppendList(conf, kConfArchives, job.archives);
  SetIfBlank(conf, kConfImage, options.image);
  SetIfBlank(conf, kConfServiceAccount, options.service_account);
  conf[std::string(kConfNamespace)] = job.namespace_;

  BuiltApplication built;
  built.namespace_ = job.namespace_;
  built.name = job.name;
  built.execution_id = job.execution_id;
  const std::string& executable = job.executable;

  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  KeyStr(w, "apiVersion", kApiVersion);
  KeyStr(w, "kind", kKind);
  Key(w, "metadata");
  w.StartObject();
  KeyStr(w, "name", built.name);
  KeyStr(w, "namespace", built.namespace_);
  Key(w, "labels");
  w.StartObject();
  KeyStr(w, kLabelManagedBy, kManagedByGravitino);
  KeyStr(w, kLabelJobId, job_id);
  w.EndObject();
  Key(w, "annotations");
  w.StartObject();
  KeyStr(w, kAnnotationMetalake, metalake);
  w.EndObject();
  w.EndObject();  // metadata

  Key(w, "spec");
  w.StartObject();
  if (!job.class_name.empty()) KeyStr(w, "mainClass", job.class_name);
  KeyStr(w, IsPythonResource(executable) ? "pyFiles" : "jars", executable);
  KeyStrings(w, "driverArgs", job.arguments);
  Key(w, "sparkConf");
  w.StartObject();
  for (const auto& [key, value] : conf) KeyStr(w, key, value);
  w.EndObject();
  Key(w, "runtimeVersions");
  w.StartObject();
  KeyStr(w, "sparkVersion", options.spark_version);
  w.EndObject();
  Key(w, "applicationTolerations");
  w.StartObject();
  Key(w, "restartConfig");
  w.StartObject();
  // One job run is one execution; restarts would also make the failed states non-final.
  KeyStr(w, "restartPolicy", "Never");
  w.EndObject();
  Key(w, "applicationTimeoutConfig");
  w.StartObject();
  KeyInt(w, "driverStartTimeoutMillis", options.driver_start_timeout_ms);
  KeyInt(w, "driverReadyTimeoutMillis", options.driver_ready_timeout_ms);
  w.EndObject();
  // Keeps the driver pod, and so its log, after the job ends.
  KeyStr(w, "resourceRetainPolicy", "Always");
  KeyInt(w, "resourceRetainDurationMillis", options.resource_retain_duration_ms);
  KeyInt(w, "ttlAfterStopMillis", options.ttl_after_stop_ms);
  w.EndObject();  // applicationTolerations
  w.EndObject();  // spec
  w.EndObject();
  RETURN_IF_ERROR(CheckApplicationSize(buffer.GetSize(), job, options));
  built.json.assign(buffer.GetString(), buffer.GetSize());
  built.warnings = std::move(job.warnings);
  return built;
}

}  // namespace kje::spark
