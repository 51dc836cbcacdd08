#include "spark/app_builder.h"

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/names.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "spark/names.h"

namespace kje::spark {
namespace {

constexpr std::string_view kBuiltinPrefix = "builtin-";
constexpr std::string_view kConfMaster = "spark.master";
constexpr std::string_view kConfDeployMode = "spark.submit.deployMode";
constexpr std::string_view kConfImage = "spark.kubernetes.container.image";
constexpr std::string_view kConfServiceAccount =
    "spark.kubernetes.authenticate.driver.serviceAccountName";
constexpr std::string_view kConfNamespace = "spark.kubernetes.namespace";
constexpr std::string_view kConfJars = "spark.jars";
constexpr std::string_view kConfFiles = "spark.files";
constexpr std::string_view kConfArchives = "spark.archives";

bool IsBlank(std::string_view s) { return absl::StripAsciiWhitespace(ToAbsl(s)).empty(); }

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

absl::Status CheckReachable(std::string_view uri) {
  if (!IsValidUri(uri)) {
    return absl::InvalidArgumentError(absl::StrCat("Invalid resource URI: ", ToAbsl(uri)));
  }
  if (IsClusterReachable(uri)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "Resource ", ToAbsl(uri),
      " of the job is a path on the Gravitino server, which the Spark job on Kubernetes can't "
      "reach. Use a URI reachable from the cluster instead, such as local:// for a file in the "
      "image, https://, s3a:// or hdfs://"));
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

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void Key(Writer& w, std::string_view key) {
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}
void Str(Writer& w, std::string_view value) {
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}
void KeyStr(Writer& w, std::string_view key, std::string_view value) {
  Key(w, key);
  Str(w, value);
}
void KeyInt(Writer& w, std::string_view key, int64_t value) {
  Key(w, key);
  w.Int64(value);
}

}  // namespace

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

absl::StatusOr<BuiltApplication> BuildSparkApplication(std::string_view job_id,
                                                       std::string_view metalake,
                                                       const SparkTemplate& spark_template,
                                                       const BuilderOptions& options) {
  const std::string& template_name = spark_template.name;
  if (spark_template.is_shell) {
    return absl::InvalidArgumentError(
        absl::StrCat("The k8s job executor only supports Spark jobs, but job template ",
                     template_name, " is a SHELL job"));
  }
  if (IsBlank(template_name)) {
    return absl::InvalidArgumentError("The job template has no name");
  }
  if (IsBlank(spark_template.executable)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Job template ", template_name, " has no executable"));
  }
  if (IsBlank(metalake)) return absl::InvalidArgumentError("The job has no metalake");
  if (IsBlank(options.image) || IsBlank(options.spark_version)) {
    return absl::FailedPreconditionError(
        "The executor is configured without a Spark image or Spark version");
  }
  RETURN_IF_ERROR(ValidateJobId(options.name_prefix, job_id));
  if (!spark_template.environments.empty()) {
    std::vector<std::string> names;
    for (const auto& [name, value] : spark_template.environments) names.push_back(name);
    // Values may be secrets: only the names are ever quoted.
    return absl::InvalidArgumentError(absl::StrCat(
        "Job template ", template_name, " sets environment variables [", absl::StrJoin(names, ", "),
        "], which the k8s job executor doesn't support yet. Pass them as Spark configurations "
        "instead, for example spark.kubernetes.driverEnv.<name> and spark.executorEnv.<name>"));
  }

  std::string executable = spark_template.executable;
  if (absl::StartsWith(template_name, ToAbsl(kBuiltinPrefix)) && !IsClusterReachable(executable)) {
    // Built-in jobs name the jobs jar on the server; the Spark image carries its own copy.
    executable = options.builtin_jobs_jar;
  }
  RETURN_IF_ERROR(CheckReachable(executable));
  for (const auto* list : {&spark_template.jars, &spark_template.files, &spark_template.archives}) {
    for (const std::string& uri : *list) {
      RETURN_IF_ERROR(CheckReachable(uri));
    }
  }

  // Later sources override earlier ones; the map keeps the keys sorted like the Java TreeMap.
  std::map<std::string, std::string> conf = options.conf;
  for (const auto& [key, value] : spark_template.configs) conf[key] = value;
  AppendList(conf, kConfJars, spark_template.jars);
  AppendList(conf, kConfFiles, spark_template.files);
  AppendList(conf, kConfArchives, spark_template.archives);
  // The operator decides both: a master or client mode from a template would break the run.
  conf.erase(std::string(kConfMaster));
  conf.erase(std::string(kConfDeployMode));
  SetIfBlank(conf, kConfImage, options.image);
  SetIfBlank(conf, kConfServiceAccount, options.service_account);
  std::string namespace_ = options.namespace_;
  if (auto it = conf.find(std::string(kConfNamespace)); it != conf.end() && !IsBlank(it->second)) {
    namespace_ = std::string(absl::StripAsciiWhitespace(it->second));
    if (!IsDns1123Label(namespace_)) {
      return absl::InvalidArgumentError(
          absl::StrCat(ToAbsl(kConfNamespace), " of job template ", template_name,
                       " isn't a valid namespace name: ", namespace_));
    }
  }
  if (!IsDns1123Label(namespace_)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "The executor's default namespace isn't a valid namespace name: ", namespace_));
  }
  conf[std::string(kConfNamespace)] = namespace_;

  BuiltApplication built;
  built.namespace_ = namespace_;
  built.name = ResourceName(options.name_prefix, job_id);
  absl::StatusOr<ExecutionId> id =
      ExecutionId::Of(options.cluster, kKindSparkApp, built.namespace_, built.name);
  if (!id.ok()) return absl::FailedPreconditionError(id.status().message());
  built.execution_id = *std::move(id);

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
  if (!IsBlank(spark_template.class_name)) KeyStr(w, "mainClass", spark_template.class_name);
  KeyStr(w, IsPythonResource(executable) ? "pyFiles" : "jars", executable);
  Key(w, "driverArgs");
  w.StartArray();
  for (const std::string& argument : spark_template.arguments) Str(w, argument);
  w.EndArray();
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
  built.json.assign(buffer.GetString(), buffer.GetSize());
  return built;
}

}  // namespace kje::spark
