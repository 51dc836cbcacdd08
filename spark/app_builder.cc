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
constexpr std::string_view kConfKubernetesPrefix = "spark.kubernetes.";
constexpr std::string_view kSparkConfArgument = "--spark-conf";
constexpr std::string_view kK8sMasterPrefix = "k8s://";

bool IsBlank(std::string_view s) { return absl::StripAsciiWhitespace(ToAbsl(s)).empty(); }

std::string_view Trimmed(std::string_view s) {
  return ToStd(absl::StripAsciiWhitespace(ToAbsl(s)));
}

// One Spark conf value and where it came from, for errors that name the source.
struct ConfValue {
  std::string value;
  std::string source;
};
using Conf = std::map<std::string, ConfValue>;

absl::Status MergeConf(Conf& conf, const std::map<std::string, std::string>& from,
                       const std::string& source) {
  for (const auto& [key, value] : from) {
    if (HasControlByte(key)) {
      return absl::InvalidArgumentError(absl::StrCat("The Spark configuration key ",
                                                     QuoteBounded(key), " of ", source,
                                                     " contains a control character"));
    }
    if (IsBlank(value)) continue;  // Blank means unset: it doesn't override a default.
    conf[key] = ConfValue{value, source};
  }
  return absl::OkStatus();
}

absl::Status CheckDeployModeAndMaster(Conf& conf) {
  if (auto it = conf.find(std::string(kConfDeployMode)); it != conf.end()) {
    std::string_view mode = Trimmed(it->second.value);
    if (mode == "client") {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(kConfDeployMode), "=client of ", it->second.source,
          " isn't supported: the k8s job executor runs Spark jobs in cluster mode only"));
    }
    if (mode != "cluster") {
      return absl::InvalidArgumentError(
          absl::StrCat(ToAbsl(kConfDeployMode), " of ", it->second.source,
                       " must be cluster or unset, not ", QuoteBounded(mode)));
    }
    conf.erase(it);  // The operator builds the driver in cluster mode itself.
  }
  if (auto it = conf.find(std::string(kConfMaster)); it != conf.end()) {
    std::string_view master = Trimmed(it->second.value);
    if (!absl::StartsWith(ToAbsl(master), ToAbsl(kK8sMasterPrefix))) {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(kConfMaster), " of ", it->second.source, " is ", QuoteBounded(master),
          ", which isn't a k8s:// master: the job runs on the Kubernetes cluster of the "
          "executor"));
    }
    conf.erase(it);  // The operator sets the cluster's own master.
  }
  return absl::OkStatus();
}

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
    return absl::InvalidArgumentError(absl::StrCat("Invalid resource URI: ", QuoteBounded(uri)));
  }
  if (IsClusterReachable(uri)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "Resource ", QuoteBounded(uri),
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

absl::StatusOr<BuiltApplication> BuildSparkApplication(std::string_view job_id,
                                                       std::string_view metalake,
                                                       const SparkTemplate& spark_template,
                                                       const BuilderOptions& options) {
  // Quoted once, bounded: every message below names the template.
  const std::string template_name = QuoteBounded(spark_template.name);
  if (spark_template.is_shell) {
    return absl::InvalidArgumentError(
        absl::StrCat("The k8s job executor only supports Spark jobs, but job template ",
                     template_name, " is a SHELL job"));
  }
  if (IsBlank(spark_template.name)) {
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
    // A few names are enough to act on; a template may set thousands.
    constexpr size_t kNamesShown = 5;
    std::vector<std::string> names;
    for (const auto& [name, value] : spark_template.environments) {
      if (names.size() == kNamesShown) {
        names.push_back(
            absl::StrCat("and ", spark_template.environments.size() - kNamesShown, " more"));
        break;
      }
      names.push_back(QuoteBounded(name, 48));
    }
    // Values may be secrets: only the names are ever quoted.
    return absl::InvalidArgumentError(absl::StrCat(
        "Job template ", template_name, " sets environment variables [", absl::StrJoin(names, ", "),
        "], which the k8s job executor doesn't support yet. Pass them as Spark configurations "
        "instead, for example spark.kubernetes.driverEnv.<name> and spark.executorEnv.<name>"));
  }

  if (HasControlByte(metalake)) {
    return absl::InvalidArgumentError(absl::StrCat("The metalake (annotation ",
                                                   ToAbsl(kAnnotationMetalake),
                                                   ") contains a control character"));
  }
  const bool builtin = absl::StartsWith(spark_template.name, ToAbsl(kBuiltinPrefix));
  std::string executable = spark_template.executable;
  if (builtin && !IsClusterReachable(executable)) {
    // Built-in jobs name the jobs jar on the server; the Spark image carries its own copy.
    if (!IsValidUri(options.builtin_jobs_jar) || !IsClusterReachable(options.builtin_jobs_jar)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "The executor's spark.builtinJobsJar isn't a URI reachable from the cluster: ",
          QuoteBounded(options.builtin_jobs_jar)));
    }
    executable = options.builtin_jobs_jar;
  }
  RETURN_IF_ERROR(CheckReachable(executable));
  for (const auto* list : {&spark_template.jars, &spark_template.files, &spark_template.archives}) {
    for (const std::string& uri : *list) {
      RETURN_IF_ERROR(CheckReachable(uri));
    }
  }

  // Later sources override earlier ones; the map keeps the keys sorted like the Java TreeMap.
  std::vector<std::string> warnings;
  Conf merged;
  RETURN_IF_ERROR(MergeConf(merged, options.conf, "the executor's defaults (spark.conf.*)"));
  const std::string template_source = absl::StrCat("job template ", template_name);
  RETURN_IF_ERROR(MergeConf(merged, spark_template.configs, template_source));
  if (builtin) {
    // A built-in job applies its spark_conf inside the driver, too late for spark.jars and with
    // spark.master meaning local mode there: it goes into the application's conf instead.
    absl::StatusOr<std::map<std::string, std::string>> spark_conf =
        ParseSparkConfArgument(spark_template.arguments);
    if (!spark_conf.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Job template ", template_name, ": ", spark_conf.status().message()));
    }
    std::map<std::string, std::string> applied;
    for (auto& [key, value] : *spark_conf) {
      if (key == kConfMaster || key == kConfDeployMode ||
          absl::StartsWith(key, ToAbsl(kConfKubernetesPrefix))) {
        if (!HasControlByte(key)) {
          warnings.push_back(absl::StrCat("Ignored ", QuoteBounded(key),
                                          " in the spark_conf of job template ", template_name,
                                          ": the k8s job executor decides the master, the deploy "
                                          "mode and the Kubernetes settings"));
          continue;
        }
      }
      applied[key] = std::move(value);
    }
    RETURN_IF_ERROR(
        MergeConf(merged, applied, absl::StrCat("the spark_conf of job template ", template_name)));
  }
  RETURN_IF_ERROR(CheckDeployModeAndMaster(merged));
  std::map<std::string, std::string> conf;
  for (auto& [key, value] : merged) conf[key] = std::move(value.value);
  AppendList(conf, kConfJars, spark_template.jars);
  AppendList(conf, kConfFiles, spark_template.files);
  AppendList(conf, kConfArchives, spark_template.archives);
  SetIfBlank(conf, kConfImage, options.image);
  SetIfBlank(conf, kConfServiceAccount, options.service_account);
  std::string namespace_ = options.namespace_;
  if (auto it = conf.find(std::string(kConfNamespace)); it != conf.end() && !IsBlank(it->second)) {
    namespace_ = std::string(absl::StripAsciiWhitespace(it->second));
    if (!IsDns1123Label(namespace_)) {
      return absl::InvalidArgumentError(
          absl::StrCat(ToAbsl(kConfNamespace), " of job template ", template_name,
                       " isn't a valid namespace name: ", QuoteBounded(namespace_)));
    }
  }
  if (!IsDns1123Label(namespace_)) {
    return absl::FailedPreconditionError(
        absl::StrCat("The executor's default namespace isn't a valid namespace name: ",
                     QuoteBounded(namespace_)));
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
  if (buffer.GetSize() > options.max_application_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The SparkApplication of job template ", template_name, " would be ", buffer.GetSize(),
        " bytes, more than the limit of ", options.max_application_bytes,
        " bytes of an object in etcd: shorten its arguments or configuration"));
  }
  built.json.assign(buffer.GetString(), buffer.GetSize());
  built.warnings = std::move(warnings);
  return built;
}

}  // namespace kje::spark
