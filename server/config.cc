#include "server/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/log.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "spark/operators.h"

namespace kje::server {
namespace {

constexpr char kEnvPrefix[] = "K8S_JOB_EXECUTOR_";
constexpr char kSparkConfPrefix[] = "spark.conf.";
constexpr char kNamePrefixRule[] =
    "must match [a-z]([-a-z0-9]*[a-z0-9])? and have at most 24 characters, so that the resource "
    "name (prefix, '-', job id of up to 19 digits) stays within 44 characters and the operator "
    "does not hash-truncate the Spark app id";

// A raw value and where it came from, for error messages.
struct Raw {
  std::string value;
  std::string origin;
};
using RawMap = std::map<std::string, Raw>;

absl::Status KeyError(const std::string& key, const std::string& rule) {
  return absl::InvalidArgumentError(absl::StrCat(key, ": ", rule));
}

std::string Trim(const std::string& s) { return std::string(absl::StripAsciiWhitespace(s)); }

// The edit distance of two short names (insertions, deletions, substitutions), case folded.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same = absl::ascii_tolower(static_cast<unsigned char>(a[i - 1])) ==
                        absl::ascii_tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "; did you mean X?" for the candidate nearest `name` when it is a likely typo of it (a few
// edits, fewer than a third of the name), else "".
std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates) {
  if (name.size() > 128) return "";  // no name of ours is that long; spare the quadratic cost
  const std::string* best = nullptr;
  size_t best_distance = std::max<size_t>(1, std::min<size_t>(3, name.size() / 3)) + 1;
  for (const std::string& candidate : candidates) {
    size_t d = EditDistance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = &candidate;
    }
  }
  return best == nullptr ? "" : absl::StrCat("; did you mean ", *best, "?");
}

bool IsKnownKey(const std::string& key) {
  for (const std::string& k : KnownConfigKeys()) {
    if (k == key) return true;
  }
  return false;
}

absl::Status Put(RawMap& raw, const std::string& key, std::string value, const std::string& origin,
                 bool allow_override) {
  if (!IsKnownKey(key) && !absl::StartsWith(key, kSparkConfPrefix)) {
    return KeyError(key, absl::StrCat("unknown configuration key (from ", origin, ")",
                                      DidYouMean(key, KnownConfigKeys())));
  }
  auto it = raw.find(key);
  if (it != raw.end() && !allow_override) {
    return KeyError(key, absl::StrCat("set twice in ", origin));
  }
  raw[key] = Raw{std::move(value), origin};
  return absl::OkStatus();
}

// Flattens nested maps into dotted keys: {spark: {image: x}} and {"spark.image": x} mean the same.
absl::Status Flatten(const YAML::Node& node, const std::string& prefix, const std::string& origin,
                     RawMap& raw) {
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) {
      return KeyError(prefix.empty() ? "<root>" : prefix, "map keys must be strings");
    }
    std::string key = entry.first.as<std::string>();
    std::string full = prefix.empty() ? key : absl::StrCat(prefix, ".", key);
    const YAML::Node& value = entry.second;
    if (value.IsMap()) {
      RETURN_IF_ERROR(Flatten(value, full, origin, raw));
    } else if (value.IsSequence()) {
      if (full != "server.allowedNamespaces") {
        return KeyError(full, "must be a single value, not a list");
      }
      std::vector<std::string> items;
      for (const auto& item : value) {
        if (!item.IsScalar()) return KeyError(full, "must be a list of namespace names");
        items.push_back(item.as<std::string>());
      }
      RETURN_IF_ERROR(Put(raw, full, absl::StrJoin(items, ","), origin, false));
    } else if (value.IsNull()) {
      RETURN_IF_ERROR(Put(raw, full, "", origin, false));
    } else {
      RETURN_IF_ERROR(Put(raw, full, value.as<std::string>(), origin, false));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseYaml(const std::string& text, const std::string& origin, RawMap& raw) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(origin, ": not valid YAML: ", EscapeBounded(e.what())));
  }
  if (root.IsNull()) return absl::OkStatus();
  if (!root.IsMap()) {
    return absl::InvalidArgumentError(
        absl::StrCat(origin, ": must be a YAML map of configuration keys"));
  }
  try {
    return Flatten(root, "", origin, raw);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(origin, ": ", EscapeBounded(e.what())));
  }
}

// The typed reader over the merged raw values: blank means the default, values are trimmed.
class Reader {
 public:
  explicit Reader(const RawMap& raw) : raw_(raw) {}

  // Returns the trimmed value, or nullopt when unset or blank.
  std::optional<std::string> Get(const std::string& key) const {
    auto it = raw_.find(key);
    if (it == raw_.end()) return std::nullopt;
    std::string v = Trim(it->second.value);
    if (v.empty()) return std::nullopt;
    return v;
  }

  void String(const std::string& key, std::string& out) const {
    if (auto v = Get(key)) out = *v;
  }

  absl::Status Millis(const std::string& key, int64_t& out) const {
    auto v = Get(key);
    if (!v) return absl::OkStatus();
    int64_t n;
    if (!absl::SimpleAtoi(*v, &n)) {
      return KeyError(key, absl::StrCat("must be a number of milliseconds: ", QuoteBounded(*v)));
    }
    out = n;
    return absl::OkStatus();
  }

  absl::Status PositiveMillis(const std::string& key, int64_t& out) const {
    RETURN_IF_ERROR(Millis(key, out));
    if (out <= 0) return KeyError(key, absl::StrCat("must be greater than 0, got ", out));
    return absl::OkStatus();
  }

 private:
  const RawMap& raw_;
};

absl::Status FileMustExist(const std::string& key, const std::string& path) {
  if (path.empty()) return absl::OkStatus();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return KeyError(key, absl::StrCat("file does not exist or is not a regular file: ", path));
  }
  std::ifstream f(path);
  if (!f) return KeyError(key, absl::StrCat("file is not readable: ", path));
  return absl::OkStatus();
}

bool IsNamePrefix(const std::string& s) {
  if (s.empty() || s.size() > 24) return false;
  if (!(s.front() >= 'a' && s.front() <= 'z')) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-') return false;
  }
  return true;
}

// HOST:PORT with a numeric port 0-65535; HOST may be a bracketed IPv6 address.
absl::Status ValidateHostPort(const std::string& key, const std::string& value) {
  std::string rule =
      absl::StrCat("must be HOST:PORT with a port from 0 to 65535, got ", QuoteBounded(value));
  size_t colon = value.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == value.size()) {
    return KeyError(key, rule);
  }
  std::string host = value.substr(0, colon);
  if (host.front() == '[' && host.back() != ']') return KeyError(key, rule);
  if (host.front() != '[' && host.find(':') != std::string::npos) return KeyError(key, rule);
  std::string port = value.substr(colon + 1);
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return KeyError(key, rule);
  }
  int p;
  if (port.size() > 5 || !absl::SimpleAtoi(port, &p) || p > 65535) return KeyError(key, rule);
  return absl::OkStatus();
}

// The URI scheme of a resource location, lower-cased; empty when there is none. Windows-style
// one-letter "schemes" don't occur in a cluster URI and count as none.
std::string SchemeOf(const std::string& uri) {
  size_t colon = uri.find(':');
  if (colon == std::string::npos || colon < 2) return "";
  for (size_t i = 0; i < colon; ++i) {
    char c = uri[i];
    bool ok = std::isalpha(static_cast<unsigned char>(c)) ||
              (i > 0 &&
               (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.'));
    if (!ok) return "";
  }
  return absl::AsciiStrToLower(uri.substr(0, colon));
}

absl::StatusOr<Config> Build(const RawMap& raw) {
  Config c;
  Reader r(raw);

  r.String("operator", c.operator_name);
  // The backend is made here only to check the operator's name and what the operator refuses.
  auto backend = spark::NewOperatorBackend(c.operator_name);
  if (!backend.ok()) return KeyError("operator", std::string(backend.status().message()));
  r.String("cluster", c.cluster);
  if (c.cluster.find('/') != std::string::npos) {
    return KeyError("cluster", absl::StrCat("must not contain '/', as it is part of the execution "
                                            "id: ",
                                            QuoteBounded(c.cluster)));
  }

  r.String("kubeconfig", c.kubeconfig);
  r.String("context", c.context);
  r.String("masterUrl", c.master_url);
  r.String("caCertFile", c.ca_cert_file);
  r.String("tokenFile", c.token_file);
  if (!c.master_url.empty()) {
    if (!c.kubeconfig.empty()) {
      return KeyError("masterUrl", "can't be set together with kubeconfig");
    }
    if (!c.context.empty()) return KeyError("masterUrl", "can't be set together with context");
    std::string scheme = SchemeOf(c.master_url);
    if (scheme != "https" && scheme != "http") {
      return KeyError("masterUrl", absl::StrCat("must be an https:// or http:// URL, got ",
                                                QuoteBounded(c.master_url)));
    }
  } else {
    if (!c.ca_cert_file.empty()) return KeyError("caCertFile", "can only be set with masterUrl");
    if (!c.token_file.empty()) return KeyError("tokenFile", "can only be set with masterUrl");
  }
  RETURN_IF_ERROR(FileMustExist("kubeconfig", c.kubeconfig));
  RETURN_IF_ERROR(FileMustExist("caCertFile", c.ca_cert_file));
  RETURN_IF_ERROR(FileMustExist("tokenFile", c.token_file));

  r.String("namespace", c.namespace_);
  if (!IsDns1123Label(c.namespace_)) {
    return KeyError("namespace",
                    absl::StrCat("must be a DNS-1123 label ([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?), "
                                 "got ",
                                 QuoteBounded(c.namespace_)));
  }
  r.String("namePrefix", c.name_prefix);
  if (!IsNamePrefix(c.name_prefix)) {
    return KeyError("namePrefix", absl::StrCat(kNamePrefixRule, ": ", QuoteBounded(c.name_prefix)));
  }
  RETURN_IF_ERROR(r.Millis("statusCacheTtlMs", c.status_cache_ttl_ms));
  RETURN_IF_ERROR(r.PositiveMillis("noStatusTimeoutMs", c.no_status_timeout_ms));

  SparkConfig& s = c.spark;
  r.String("spark.image", s.image);
  if (s.image.empty()) return KeyError("spark.image", "is required: the Spark container image");
  r.String("spark.sparkVersion", s.spark_version);
  if (s.spark_version.empty()) {
    return KeyError("spark.sparkVersion",
                    "is required: the Spark version of the image, e.g. 3.5.5 (it goes to "
                    "spec.runtimeVersions.sparkVersion)");
  }
  r.String("spark.serviceAccount", s.service_account);
  RETURN_IF_ERROR(
      r.PositiveMillis("spark.resourceRetainDurationMs", s.resource_retain_duration_ms));
  RETURN_IF_ERROR(r.PositiveMillis("spark.ttlAfterStopMs", s.ttl_after_stop_ms));
  RETURN_IF_ERROR(r.PositiveMillis("spark.driverStartTimeoutMs", s.driver_start_timeout_ms));
  RETURN_IF_ERROR(r.PositiveMillis("spark.driverReadyTimeoutMs", s.driver_ready_timeout_ms));
  r.String("spark.builtinJobsJar", s.builtin_jobs_jar);
  std::string jar_scheme = SchemeOf(s.builtin_jobs_jar);
  if (jar_scheme.empty() || jar_scheme == "file") {
    return KeyError("spark.builtinJobsJar",
                    absl::StrCat("must be a URI reachable from the cluster (local://, https://, "
                                 "s3a://, hdfs://), not a file on this server: ",
                                 QuoteBounded(s.builtin_jobs_jar)));
  }
  for (const auto& [key, value] : raw) {
    if (!absl::StartsWith(key, kSparkConfPrefix)) continue;
    std::string conf_key = Trim(key.substr(sizeof(kSparkConfPrefix) - 1));
    if (conf_key.empty()) continue;  // a bare "spark.conf." is ignored, as in the reference
    std::string v = Trim(value.value);
    if (v.empty()) continue;
    if (absl::Status refused = (*backend)->CheckServerConf(conf_key); !refused.ok()) {
      return KeyError(QuoteBounded(key), std::string(refused.message()));
    }
    s.conf[conf_key] = v;
  }

  ServerConfig& srv = c.server;
  r.String("server.listen", srv.listen);
  RETURN_IF_ERROR(ValidateHostPort("server.listen", srv.listen));
  r.String("server.tls.certFile", srv.tls_cert_file);
  r.String("server.tls.keyFile", srv.tls_key_file);
  r.String("server.tls.clientCaFile", srv.tls_client_ca_file);
  if (srv.tls_cert_file.empty() != srv.tls_key_file.empty()) {
    return KeyError(srv.tls_cert_file.empty() ? "server.tls.certFile" : "server.tls.keyFile",
                    "server.tls.certFile and server.tls.keyFile must be set together");
  }
  if (!srv.tls_client_ca_file.empty() && srv.tls_cert_file.empty()) {
    return KeyError("server.tls.clientCaFile",
                    "requires server.tls.certFile and server.tls.keyFile (mutual TLS needs TLS)");
  }
  RETURN_IF_ERROR(FileMustExist("server.tls.certFile", srv.tls_cert_file));
  RETURN_IF_ERROR(FileMustExist("server.tls.keyFile", srv.tls_key_file));
  RETURN_IF_ERROR(FileMustExist("server.tls.clientCaFile", srv.tls_client_ca_file));
  r.String("server.tokenFile", srv.token_file);
  RETURN_IF_ERROR(FileMustExist("server.tokenFile", srv.token_file));
  r.String("server.metricsListen", srv.metrics_listen);
  if (!srv.metrics_listen.empty()) {
    RETURN_IF_ERROR(ValidateHostPort("server.metricsListen", srv.metrics_listen));
  }
  r.String("server.logLevel", srv.log_level);
  if (auto level = log::ParseLevel(srv.log_level); !level.ok()) {
    return KeyError("server.logLevel", std::string(level.status().message()));
  }
  r.String("server.logFormat", srv.log_format);
  if (auto format = log::ParseFormat(srv.log_format); !format.ok()) {
    return KeyError("server.logFormat", std::string(format.status().message()));
  }
  if (auto v = r.Get("server.allowedNamespaces")) {
    for (absl::string_view part : absl::StrSplit(*v, ',')) {
      std::string ns = Trim(std::string(part));
      if (ns.empty()) continue;
      if (!IsDns1123Label(ns)) {
        return KeyError(
            "server.allowedNamespaces",
            absl::StrCat("every entry must be a DNS-1123 label, got ", QuoteBounded(ns)));
      }
      srv.allowed_namespaces.push_back(ns);
    }
    if (!srv.allowed_namespaces.empty()) {
      bool allowed = false;
      for (const auto& ns : srv.allowed_namespaces) allowed |= ns == c.namespace_;
      if (!allowed) {
        return KeyError("server.allowedNamespaces",
                        absl::StrCat("must include the default namespace ",
                                     QuoteBounded(c.namespace_), " (key namespace)"));
      }
    }
  }
  RETURN_IF_ERROR(r.PositiveMillis("server.drainTimeoutMs", srv.drain_timeout_ms));
  if (auto v = r.Get("server.ioThreads")) {
    int n;
    if (!absl::SimpleAtoi(*v, &n) || n < 1 || n > 64) {
      return KeyError("server.ioThreads",
                      absl::StrCat("must be a number from 1 to 64, got ", QuoteBounded(*v)));
    }
    srv.io_threads = n;
  }
  if (auto v = r.Get("server.readinessRequiresSync")) {
    if (*v == "true") {
      srv.readiness_requires_sync = true;
    } else if (*v == "false") {
      srv.readiness_requires_sync = false;
    } else {
      return KeyError("server.readinessRequiresSync",
                      absl::StrCat("must be true or false, got ", QuoteBounded(*v)));
    }
  }
  if (auto v = r.Get("server.maxOnDemandInformers")) {
    int n;
    if (!absl::SimpleAtoi(*v, &n) || n < 0 || n > 1000) {
      return KeyError("server.maxOnDemandInformers",
                      absl::StrCat("must be a number from 0 to 1000, got ", QuoteBounded(*v)));
    }
    srv.max_on_demand_informers = n;
  }
  if (auto v = r.Get("server.maxQueuedChanges")) {
    int n;
    if (!absl::SimpleAtoi(*v, &n) || n < 1 || n > 1000000) {
      return KeyError("server.maxQueuedChanges",
                      absl::StrCat("must be a number from 1 to 1000000, got ", QuoteBounded(*v)));
    }
    srv.max_queued_changes = n;
  }
  if (auto v = r.Get("server.maxWatchedJobs")) {
    int n;
    if (!absl::SimpleAtoi(*v, &n) || n < 1 || n > 10000) {
      return KeyError("server.maxWatchedJobs",
                      absl::StrCat("must be a number from 1 to 10000, got ", QuoteBounded(*v)));
    }
    srv.max_watched_jobs = n;
  }
  if (auto v = r.Get("server.maxFollowSeconds")) {
    int64_t n;
    if (!absl::SimpleAtoi(*v, &n) || n < 1 || n > 604800) {
      return KeyError("server.maxFollowSeconds",
                      absl::StrCat("must be a number of seconds from 1 to 604800 (a week), got ",
                                   QuoteBounded(*v)));
    }
    srv.max_follow_seconds = n;
  }
  if (auto v = r.Get("server.staleAfterMs")) {
    int64_t n;
    if (!absl::SimpleAtoi(*v, &n) || n < 1) {
      return KeyError(
          "server.staleAfterMs",
          absl::StrCat("must be a positive number of milliseconds, got ", QuoteBounded(*v)));
    }
    srv.stale_after_ms = n;
  }
  for (auto [key, out] : {std::pair{"server.maxConcurrentRpcs", &srv.max_concurrent_rpcs},
                          std::pair{"server.maxStreams", &srv.max_streams}}) {
    if (auto v = r.Get(key)) {
      int64_t n;
      if (!absl::SimpleAtoi(*v, &n) || n < 1 || n > 1000000) {
        return KeyError(key,
                        absl::StrCat("must be a number from 1 to 1000000, got ", QuoteBounded(*v)));
      }
      *out = n;
    }
  }

  if (auto v = r.Get("server.maxInternedBytes")) {
    int64_t n;
    if (!absl::SimpleAtoi(*v, &n) || n < 0 || n > (int64_t{1} << 30)) {
      return KeyError(
          "server.maxInternedBytes",
          absl::StrCat("must be a number of bytes from 0 to 1073741824, got ", QuoteBounded(*v)));
    }
    srv.max_interned_bytes = n;
  }

  KubernetesConfig& kube = c.kubernetes;
  if (auto v = r.Get("kubernetes.maxInFlight")) {
    if (!absl::SimpleAtoi(*v, &kube.max_in_flight) || kube.max_in_flight < 1 ||
        kube.max_in_flight > 100000) {
      return KeyError("kubernetes.maxInFlight",
                      absl::StrCat("must be a number from 1 to 100000, got ", QuoteBounded(*v)));
    }
  }
  if (auto v = r.Get("kubernetes.qps")) {
    if (!absl::SimpleAtod(*v, &kube.qps) || !(kube.qps >= 0) || kube.qps > 1e6) {
      return KeyError(
          "kubernetes.qps",
          absl::StrCat("must be a number from 0 (no limit) to 1000000, got ", QuoteBounded(*v)));
    }
  }
  if (auto v = r.Get("kubernetes.burst")) {
    if (!absl::SimpleAtoi(*v, &kube.burst) || kube.burst < 1 || kube.burst > 1000000) {
      return KeyError("kubernetes.burst",
                      absl::StrCat("must be a number from 1 to 1000000, got ", QuoteBounded(*v)));
    }
  }
  return c;
}

// A K8S_JOB_EXECUTOR_* variable someone else sets: the links Kubernetes gives the pods of a
// namespace with a Service named k8s-job-executor (_SERVICE_HOST, _SERVICE_PORT[_<name>], _PORT,
// _PORT_<port>_<proto>[_PROTO|_PORT|_ADDR]), and the CLI's server address.
bool IsForeignEnvName(std::string_view name) {
  std::string_view rest = name.substr(sizeof(kEnvPrefix) - 1);
  if (rest == "SERVER" || rest == "SERVICE_HOST" || rest == "SERVICE_PORT" || rest == "PORT" ||
      absl::StartsWith(ToAbsl(rest), "SERVICE_PORT_")) {
    return true;
  }
  std::vector<absl::string_view> parts = absl::StrSplit(ToAbsl(rest), '_');
  if (parts.size() < 3 || parts.size() > 4 || parts[0] != "PORT" || parts[1].empty() ||
      !std::all_of(parts[1].begin(), parts[1].end(), absl::ascii_isdigit)) {
    return false;
  }
  if (parts[2] != "TCP" && parts[2] != "UDP" && parts[2] != "SCTP") return false;
  return parts.size() == 3 || parts[3] == "PROTO" || parts[3] == "PORT" || parts[3] == "ADDR";
}

absl::StatusOr<Config> Load(const std::optional<std::string>& yaml_text,
                            const std::string& yaml_origin, const ConfigSources& sources) {
  RawMap raw;
  if (yaml_text) RETURN_IF_ERROR(ParseYaml(*yaml_text, yaml_origin, raw));

  // Environment: the known keys have variables; any other K8S_JOB_EXECUTOR_* name is a typo
  // unless Kubernetes (a Service's links) or the CLI (its server address) set it.
  std::vector<std::string> env_names;
  for (const std::string& key : KnownConfigKeys()) {
    env_names.push_back(EnvNameForKey(key));
    auto it = sources.env.find(env_names.back());
    if (it != sources.env.end()) {
      RETURN_IF_ERROR(Put(raw, key, it->second, absl::StrCat("environment ", it->first), true));
    }
  }
  for (const auto& [name, value] : sources.env) {
    if (!absl::StartsWith(name, kEnvPrefix) || IsForeignEnvName(name)) continue;
    if (std::find(env_names.begin(), env_names.end(), name) != env_names.end()) continue;
    // The value is never quoted: it may be a secret.
    return KeyError(QuoteBounded(name), absl::StrCat("unknown configuration variable (from the "
                                                     "environment)",
                                                     DidYouMean(name, env_names)));
  }
  for (const auto& [key, value] : sources.flags) {
    RETURN_IF_ERROR(Put(raw, Trim(key), value, "command line", true));
  }
  return Build(raw);
}

}  // namespace

const std::vector<std::string>& KnownConfigKeys() {
  static const std::vector<std::string> keys = {
      "operator",
      "cluster",
      "kubeconfig",
      "context",
      "masterUrl",
      "caCertFile",
      "tokenFile",
      "namespace",
      "namePrefix",
      "statusCacheTtlMs",
      "noStatusTimeoutMs",
      "spark.image",
      "spark.sparkVersion",
      "spark.serviceAccount",
      "spark.resourceRetainDurationMs",
      "spark.ttlAfterStopMs",
      "spark.driverStartTimeoutMs",
      "spark.driverReadyTimeoutMs",
      "spark.builtinJobsJar",
      "server.listen",
      "server.tls.certFile",
      "server.tls.keyFile",
      "server.tls.clientCaFile",
      "server.tokenFile",
      "server.metricsListen",
      "server.logLevel",
      "server.logFormat",
      "server.allowedNamespaces",
      "server.drainTimeoutMs",
      "server.ioThreads",
      "server.readinessRequiresSync",
      "server.maxOnDemandInformers",
      "server.maxQueuedChanges",
      "server.maxWatchedJobs",
      "server.maxFollowSeconds",
      "server.maxConcurrentRpcs",
      "server.maxStreams",
      "server.maxInternedBytes",
      "server.staleAfterMs",
      "kubernetes.maxInFlight",
      "kubernetes.qps",
      "kubernetes.burst",
  };
  return keys;
}

std::string EnvNameForKey(const std::string& key) {
  std::string out = kEnvPrefix;
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    if (c == '.') {
      out.push_back('_');
    } else if (std::isupper(static_cast<unsigned char>(c))) {
      if (i > 0 && key[i - 1] != '.') out.push_back('_');
      out.push_back(c);
    } else {
      out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    }
  }
  return out;
}

absl::StatusOr<Config> LoadConfigFromYaml(const std::string& yaml, const ConfigSources& rest) {
  return Load(yaml, "config", rest);
}

absl::StatusOr<Config> LoadConfig(const ConfigSources& sources) {
  if (!sources.yaml_path) return Load(std::nullopt, "", sources);
  std::ifstream f(*sources.yaml_path);
  if (!f) {
    return absl::InvalidArgumentError(
        absl::StrCat("--config: can't read the file ", *sources.yaml_path));
  }
  std::stringstream buf;
  buf << f.rdbuf();
  return Load(buf.str(), *sources.yaml_path, sources);
}

}  // namespace kje::server
