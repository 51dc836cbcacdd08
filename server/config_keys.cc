#include "server/config_keys.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/log.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "spark/cancel_keep.h"
#include "spark/deadline.h"
#include "spark/monitoring.h"
#include "spark/operators.h"
#include "spark/queue.h"

namespace kje::server::config_internal {
namespace {

constexpr char kSparkConfPrefix[] = "spark.conf.";
constexpr char kLinksPrefix[] = "links.";
constexpr char kNamePrefixRule[] =
    "must match [a-z]([-a-z0-9]*[a-z0-9])? and have at most 24 characters, so that the resource "
    "name (prefix, '-', job id of up to 19 digits) stays within 44 characters and the operator "
    "does not hash-truncate the Spark app id";

std::string Trim(const std::string& s) { return std::string(absl::StripAsciiWhitespace(s)); }

// ---- Fields: a key's place in Config, as a path of members (&Config::spark, &SparkConfig::image).

template <auto... Path>
auto& FieldOf(Config& c) {
  return (c.*....*Path);
}
template <auto... Path>
const auto& FieldOf(const Config& c) {
  return (c.*....*Path);
}

template <auto... Path>
using FieldType = std::remove_cvref_t<decltype(FieldOf<Path...>(std::declval<Config&>()))>;

template <typename T>
using Reader = std::function<absl::Status(const std::string& key, const std::string& value, T&)>;
template <typename T>
using Validator = std::function<absl::Status(const std::string& key, const T&, const Config&)>;

// A row of the table: the key, what reads its value into the field at Path, what judges it.
template <auto... Path>
ConfigKey Key(std::string name, Reader<FieldType<Path...>> read,
              Validator<FieldType<Path...>> validate = nullptr) {
  ConfigKey key;
  key.name = name;
  key.read = [name, read = std::move(read)](const std::string& value, Config& c) {
    return read(name, value, FieldOf<Path...>(c));
  };
  if (validate) {
    key.validate = [name, validate = std::move(validate)](const Config& c) {
      return validate(name, FieldOf<Path...>(c), c);
    };
  }
  return key;
}

// ---- Readers.

Reader<std::string> Text() {
  return [](const std::string&, const std::string& value, std::string& out) {
    out = value;
    return absl::OkStatus();
  };
}

Reader<int64_t> Millis() {
  return [](const std::string& key, const std::string& value, int64_t& out) {
    if (!absl::SimpleAtoi(value, &out)) {
      return KeyError(key, absl::StrCat("must be a number of milliseconds: ", QuoteBounded(value)));
    }
    return absl::OkStatus();
  };
}

// A number from `min` to `max`; `rule` says so in the error ("a number from 1 to 64").
template <typename T>
Reader<T> NumberIn(T min, T max, std::string rule) {
  return
      [min, max, rule = std::move(rule)](const std::string& key, const std::string& value, T& out) {
        T n;
        bool parsed;
        if constexpr (std::is_floating_point_v<T>) {
          parsed = absl::SimpleAtod(value, &n);
        } else {
          parsed = absl::SimpleAtoi(value, &n);
        }
        // Written so that a NaN is out of range.
        if (!parsed || !(n >= min) || n > max) {
          return KeyError(key, absl::StrCat("must be ", rule, ", got ", QuoteBounded(value)));
        }
        out = n;
        return absl::OkStatus();
      };
}

Reader<bool> Boolean() {
  return [](const std::string& key, const std::string& value, bool& out) {
    if (value != "true" && value != "false") {
      return KeyError(key, absl::StrCat("must be true or false, got ", QuoteBounded(value)));
    }
    out = value == "true";
    return absl::OkStatus();
  };
}

// A comma-separated list (YAML lists arrive joined) of namespace names; blank entries are skipped.
Reader<std::vector<std::string>> NamespaceList() {
  return [](const std::string& key, const std::string& value, std::vector<std::string>& out) {
    for (absl::string_view part : absl::StrSplit(value, ',')) {
      std::string ns = Trim(std::string(part));
      if (ns.empty()) continue;
      if (!IsDns1123Label(ns)) {
        return KeyError(
            key, absl::StrCat("every entry must be a DNS-1123 label, got ", QuoteBounded(ns)));
      }
      out.push_back(ns);
    }
    return absl::OkStatus();
  };
}

// A comma-separated list of words, blanks dropped; a word must hold a letter or digit.
Reader<std::vector<std::string>> WordList() {
  return [](const std::string& key, const std::string& value, std::vector<std::string>& out) {
    out.clear();
    for (absl::string_view part : absl::StrSplit(value, ',')) {
      std::string word = Trim(std::string(part));
      if (word.empty()) continue;
      if (std::none_of(word.begin(), word.end(), [](char c) { return absl::ascii_isalnum(c); })) {
        return KeyError(
            key, absl::StrCat("every entry must hold a letter or digit, got ", QuoteBounded(word)));
      }
      out.push_back(word);
    }
    return absl::OkStatus();
  };
}

// ---- Validators.

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

Validator<std::string> ExistingFile() {
  return [](const std::string& key, const std::string& path, const Config&) {
    return FileMustExist(key, path);
  };
}

// `rule` is the whole message after the key ("is required: the Spark container image").
Validator<std::string> Required(std::string rule) {
  return [rule = std::move(rule)](const std::string& key, const std::string& value, const Config&) {
    return value.empty() ? KeyError(key, rule) : absl::OkStatus();
  };
}

Validator<int64_t> Positive() {
  return [](const std::string& key, const int64_t& value, const Config&) {
    return value <= 0 ? KeyError(key, absl::StrCat("must be greater than 0, got ", value))
                      : absl::OkStatus();
  };
}

Validator<int64_t> NotNegative() {
  return [](const std::string& key, const int64_t& value, const Config&) {
    return value < 0 ? KeyError(key, absl::StrCat("must not be negative, got ", value))
                     : absl::OkStatus();
  };
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

// `optional`: an empty value (nothing to listen on) is good.
Validator<std::string> HostPort(bool optional = false) {
  return [optional](const std::string& key, const std::string& value, const Config&) {
    if (optional && value.empty()) return absl::OkStatus();
    return ValidateHostPort(key, value);
  };
}

// A plaintext port that only the pod itself may reach: its host is a loopback address.
absl::Status LoopbackHostPort(const std::string& key, const std::string& value, const Config&) {
  if (value.empty()) return absl::OkStatus();
  RETURN_IF_ERROR(ValidateHostPort(key, value));
  const std::string host = value.substr(0, value.rfind(':'));
  if (host == "localhost" || host == "[::1]" || absl::StartsWith(host, "127.")) {
    return absl::OkStatus();
  }
  return KeyError(key,
                  "must be a loopback HOST:PORT (127.0.0.1, [::1] or localhost): it "
                  "serves health in plaintext to the pod's own probes");
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

absl::Status KnownOperator(const std::string& key, const std::string& name, const Config&) {
  // The backend is made here only to check the operator's name (and, with spark.conf.*, what
  // the operator refuses).
  auto backend = spark::NewOperatorBackend(name);
  if (!backend.ok()) return KeyError(key, std::string(backend.status().message()));
  return absl::OkStatus();
}

absl::Status NoSlash(const std::string& key, const std::string& cluster, const Config&) {
  if (cluster.find('/') == std::string::npos) return absl::OkStatus();
  return KeyError(key, absl::StrCat("must not contain '/', as it is part of the execution id: ",
                                    QuoteBounded(cluster)));
}

absl::Status Dns1123Label(const std::string& key, const std::string& ns, const Config&) {
  if (IsDns1123Label(ns)) return absl::OkStatus();
  return KeyError(key,
                  absl::StrCat("must be a DNS-1123 label ([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?), "
                               "got ",
                               QuoteBounded(ns)));
}

absl::Status NamePrefix(const std::string& key, const std::string& prefix, const Config&) {
  if (IsNamePrefix(prefix)) return absl::OkStatus();
  return KeyError(key, absl::StrCat(kNamePrefixRule, ": ", QuoteBounded(prefix)));
}

absl::Status ClusterUri(const std::string& key, const std::string& jar, const Config&) {
  std::string scheme = SchemeOf(jar);
  if (!scheme.empty() && scheme != "file") return absl::OkStatus();
  return KeyError(key, absl::StrCat("must be a URI reachable from the cluster (local://, https://, "
                                    "s3a://, hdfs://), not a file on this server: ",
                                    QuoteBounded(jar)));
}

absl::Status LogLevel(const std::string& key, const std::string& level, const Config&) {
  auto parsed = log::ParseLevel(level);
  return parsed.ok() ? absl::OkStatus() : KeyError(key, std::string(parsed.status().message()));
}

absl::Status LogFormat(const std::string& key, const std::string& format, const Config&) {
  auto parsed = log::ParseFormat(format);
  return parsed.ok() ? absl::OkStatus() : KeyError(key, std::string(parsed.status().message()));
}

absl::Status CancelModeKey(const std::string& key, const std::string& mode, const Config&) {
  auto parsed = spark::ParseCancelMode(mode, key);
  return parsed.ok() ? absl::OkStatus()
                     : KeyError(key, absl::StrCat("must be \"delete\" or \"keep\", got ",
                                                  QuoteBounded(mode)));
}

absl::Status MonitoringExpose(const std::string& key, const std::string& text, const Config&) {
  spark::Monitoring parsed;
  absl::Status bad = spark::ParseMonitoringExpose(text, key, parsed);
  if (bad.ok()) return absl::OkStatus();
  return absl::InvalidArgumentError(bad.message());
}

absl::Status KnownQueueScheduler(const std::string& key, const std::string& name, const Config&) {
  if (spark::ParseQueueScheduler(name)) return absl::OkStatus();
  return KeyError(key, absl::StrCat("must be one of ", ToAbsl(spark::kQueueSchedulerNames),
                                    ", got ", QuoteBounded(name)));
}

absl::Status ValidQueueName(const std::string& key, const std::string& name, const Config& c) {
  if (name.empty()) return absl::OkStatus();
  const spark::QueueScheduler scheduler = *spark::ParseQueueScheduler(c.queue.scheduler);
  if (scheduler == spark::QueueScheduler::kNone) {
    return KeyError(key,
                    "needs queue.scheduler (kueue, yunikorn or volcano): with none, no job "
                    "goes to a queue");
  }
  absl::Status valid = spark::CheckQueueName(scheduler, name);
  return valid.ok() ? valid : KeyError(key, std::string(valid.message()));
}

absl::Status IncludesDefaultNamespace(const std::string& key,
                                      const std::vector<std::string>& allowed, const Config& c) {
  if (allowed.empty()) return absl::OkStatus();
  for (const auto& ns : allowed) {
    if (ns == c.namespace_) return absl::OkStatus();
  }
  return KeyError(key, absl::StrCat("must include the default namespace ",
                                    QuoteBounded(c.namespace_), " (key namespace)"));
}

// ---- The sections' checks of keys that only make sense together. Files are looked at after
// the keys agree: a file given to a key that must not be set is reported as that.

absl::Status CheckConnection(const RawMap&, Config& c) {
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
  return FileMustExist("tokenFile", c.token_file);
}

// spark.conf.<key>: server-level Spark configuration defaults, but what the operator sets itself.
absl::Status CheckSparkConf(const RawMap& raw, Config& c) {
  std::unique_ptr<spark::OperatorBackend> backend = *spark::NewOperatorBackend(c.operator_name);
  for (const auto& [key, value] : raw) {
    if (!absl::StartsWith(key, kSparkConfPrefix)) continue;
    std::string conf_key = Trim(key.substr(sizeof(kSparkConfPrefix) - 1));
    if (conf_key.empty()) continue;  // a bare "spark.conf." is ignored, as in the reference
    std::string v = Trim(value.value);
    if (v.empty()) continue;
    if (absl::Status refused = backend->CheckServerConf(conf_key); !refused.ok()) {
      return KeyError(QuoteBounded(key), std::string(refused.message()));
    }
    c.spark.conf[conf_key] = v;
  }
  return absl::OkStatus();
}

// links.<name>: JobInfo.links' templates, resolved here once, so a bad one stops the start.
absl::Status CheckLinks(const RawMap& raw, Config& c) {
  std::vector<std::pair<std::string, std::string>> named;
  for (const auto& [key, value] : raw) {
    if (!absl::StartsWith(key, kLinksPrefix)) continue;
    std::string v = Trim(value.value);
    if (!v.empty()) named.emplace_back(key.substr(sizeof(kLinksPrefix) - 1), std::move(v));
  }
  absl::StatusOr<spark::LinkTemplates> links = spark::LinkTemplates::Parse(named);
  if (!links.ok()) return KeyError("links", std::string(links.status().message()));
  c.links = *std::move(links);
  return absl::OkStatus();
}

absl::Status CheckTls(const RawMap&, Config& c) {
  const ServerConfig& srv = c.server;
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
  return FileMustExist("server.tls.clientCaFile", srv.tls_client_ca_file);
}

absl::Status CheckStaging(const RawMap&, Config& c) {
  const StagingConfig& st = c.staging;
  if (st.store != "none" && st.store != "volume" && st.store != "s3") {
    return KeyError("staging.store",
                    absl::StrCat("must be none, volume or s3, got ", QuoteBounded(st.store)));
  }
  if (st.url_mode != "presigned" && st.url_mode != "s3a") {
    return KeyError("staging.urlMode",
                    absl::StrCat("must be presigned or s3a, got ", QuoteBounded(st.url_mode)));
  }
  if (st.store == "volume") {
    if (st.volume_path.empty()) {
      return KeyError("staging.volume.path",
                      "is required with staging.store volume: where the "
                      "service mounts the shared volume");
    }
    if (st.volume_claim_name.empty()) {
      return KeyError("staging.volume.claimName",
                      "is required with staging.store volume: the ReadWriteMany "
                      "PersistentVolumeClaim the drivers and executors mount");
    }
    if (st.volume_mount_path.empty() || st.volume_mount_path.front() != '/') {
      return KeyError("staging.volume.mountPath", "must be an absolute path");
    }
  }
  if (st.store == "s3") {
    if (!absl::StartsWith(st.s3_endpoint, "http://") &&
        !absl::StartsWith(st.s3_endpoint, "https://")) {
      return KeyError("staging.s3.endpoint",
                      absl::StrCat("is required with staging.store s3, as http(s)://host[:port], "
                                   "got ",
                                   QuoteBounded(st.s3_endpoint)));
    }
    if (st.s3_bucket.empty())
      return KeyError("staging.s3.bucket", "is required with staging.store s3");
    if (st.url_mode == "s3a" && st.s3_credentials_secret.empty()) {
      return KeyError("staging.s3.credentialsSecret",
                      "is required with staging.urlMode s3a: the Secret (keys AWS_ACCESS_KEY_ID, "
                      "AWS_SECRET_ACCESS_KEY) the drivers and executors read the store with");
    }
    RETURN_IF_ERROR(FileMustExist("staging.s3.accessKeyFile", st.s3_access_key_file));
    RETURN_IF_ERROR(FileMustExist("staging.s3.secretKeyFile", st.s3_secret_key_file));
  }
  return absl::OkStatus();
}

using C = Config;
using S = SparkConfig;
using V = ServerConfig;
using K = KubernetesConfig;
using Q = QueueConfig;
using M = MonitoringConfig;
using G = StagingConfig;
using O = OutputConfig;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// The deployment, its connection to the API server, and the jobs' resources and status.
std::vector<ConfigSection> ClusterSections() {
  return {
      // The deployment: which operator, which cluster the execution ids name.
      {{Key<&C::operator_name>("operator", Text(), KnownOperator),
        Key<&C::cluster>("cluster", Text(), NoSlash)},
       nullptr},
      // The connection to the API server.
      {{Key<&C::kubeconfig>("kubeconfig", Text()), Key<&C::context>("context", Text()),
        Key<&C::master_url>("masterUrl", Text()), Key<&C::ca_cert_file>("caCertFile", Text()),
        Key<&C::token_file>("tokenFile", Text())},
       CheckConnection},
      // The jobs' resources and their status.
      {{Key<&C::namespace_>("namespace", Text(), Dns1123Label),
        Key<&C::name_prefix>("namePrefix", Text(), NamePrefix),
        Key<&C::status_cache_ttl_ms>("statusCacheTtlMs", Millis()),
        Key<&C::no_status_timeout_ms>("noStatusTimeoutMs", Millis(), Positive()),
        Key<&C::waiting_grace_ms>("waitingGraceMs", Millis(), NotNegative()),
        Key<&C::waiting_refresh_ms>("waitingRefreshMs", Millis(), Positive()),
        Key<&C::max_queued_seconds>(
            "maxQueuedSeconds",
            NumberIn<int64_t>(0, spark::kMaxDeadlineSeconds, "a number of seconds from 0 (none)")),
        Key<&C::deadline_sweep_ms>("deadlineSweepMs", Millis(), Positive()),
        Key<&C::cancel_mode>("cancelMode", Text(), CancelModeKey),
        Key<&C::max_run_seconds>(
            "maxRunSeconds",
            NumberIn<int64_t>(0, spark::kMaxDeadlineSeconds, "a number of seconds from 0 (none)"))},
       nullptr},
  };
}

// What the applications get: Spark, queues, metrics, the kept record.
std::vector<ConfigSection> ApplicationSections() {
  return {
      // What every SparkApplication gets.
      {{Key<&C::spark, &S::image>("spark.image", Text(),
                                  Required("is required: the Spark container image")),
        Key<&C::spark, &S::spark_version>(
            "spark.sparkVersion", Text(),
            Required("is required: the Spark version of the image, e.g. 3.5.5 (it goes to "
                     "spec.runtimeVersions.sparkVersion)")),
        Key<&C::spark, &S::service_account>("spark.serviceAccount", Text()),
        Key<&C::spark, &S::resource_retain_duration_ms>("spark.resourceRetainDurationMs", Millis(),
                                                        Positive()),
        Key<&C::spark, &S::ttl_after_stop_ms>("spark.ttlAfterStopMs", Millis(), Positive()),
        Key<&C::spark, &S::driver_start_timeout_ms>("spark.driverStartTimeoutMs", Millis(),
                                                    Positive()),
        Key<&C::spark, &S::driver_ready_timeout_ms>("spark.driverReadyTimeoutMs", Millis(),
                                                    Positive()),
        Key<&C::spark, &S::builtin_jobs_jar>("spark.builtinJobsJar", Text(), ClusterUri),
        Key<&C::spark, &S::environment_secrets>("spark.environmentSecrets", Boolean())},
       CheckSparkConf},
      // The batch scheduler the jobs go through, and their default queue.
      {{Key<&C::queue, &Q::scheduler>("queue.scheduler", Text(), KnownQueueScheduler),
        Key<&C::queue, &Q::name>("queue.name", Text(), ValidQueueName)},
       nullptr},
      // Driver and executor metrics for Prometheus.
      {{Key<&C::monitoring, &M::expose>("monitoring.expose", Text(), MonitoringExpose),
        Key<&C::monitoring, &M::jmx_exporter_jar>("monitoring.jmxExporterJar", Text()),
        Key<&C::monitoring, &M::port>(
            "monitoring.port",
            NumberIn(spark::kMinMetricsPort, spark::kMaxMetricsPort, "a port from 1024 to 49151"))},
       nullptr},
      // The kept record of an ended job.
      {{Key<&C::output, &O::keep>("output.keep", Boolean()),
        Key<&C::output, &O::keep_as_secret>("output.keepAsSecret", Boolean()),
        Key<&C::output, &O::keep_max_lines>(
            "output.keepMaxLines", NumberIn<int64_t>(1, 100000, "a number from 1 to 100000")),
        Key<&C::output, &O::keep_max_bytes>(
            "output.keepMaxBytes",
            NumberIn<int64_t>(1024, 900 * 1024, "a number of bytes from 1024 to 921600")),
        Key<&C::output, &O::keep_max_events>("output.keepMaxEvents",
                                             NumberIn<int64_t>(0, 1000, "a number from 0 to 1000")),
        Key<&C::output, &O::keep_max_in_flight>(
            "output.keepMaxInFlight", NumberIn<int64_t>(1, 1000, "a number from 1 to 1000")),
        Key<&C::output, &O::keep_per_second>(
            "output.keepPerSecond", NumberIn(0.0, 10000.0, "a number from 0 (no limit) to 10000")),
        Key<&C::output, &O::keep_max_pending>(
            "output.keepMaxPending", NumberIn<int64_t>(1, 1000000, "a number from 1 to 1000000"))},
       nullptr},
  };
}

// The server itself, its requests to the API server, links and staging.
std::vector<ConfigSection> ServerSections() {
  return {
      // Where the server listens, and how.
      {{Key<&C::server, &V::listen>("server.listen", Text(), HostPort()),
        Key<&C::server, &V::tls_cert_file>("server.tls.certFile", Text()),
        Key<&C::server, &V::tls_key_file>("server.tls.keyFile", Text()),
        Key<&C::server, &V::tls_client_ca_file>("server.tls.clientCaFile", Text())},
       CheckTls},
      // The server: callers, logs, bounds.
      {{Key<&C::server, &V::token_file>("server.tokenFile", Text(), ExistingFile()),
        Key<&C::server, &V::metrics_listen>("server.metricsListen", Text(),
                                            HostPort(/*optional=*/true)),
        Key<&C::server, &V::health_listen>("server.healthListen", Text(), LoopbackHostPort),
        Key<&C::server, &V::log_level>("server.logLevel", Text(), LogLevel),
        Key<&C::server, &V::log_format>("server.logFormat", Text(), LogFormat),
        Key<&C::server, &V::allowed_namespaces>("server.allowedNamespaces", NamespaceList(),
                                                IncludesDefaultNamespace),
        Key<&C::server, &V::sensitive_keys>("server.sensitiveKeys", WordList()),
        Key<&C::server, &V::drain_timeout_ms>("server.drainTimeoutMs", Millis(), Positive()),
        Key<&C::server, &V::io_threads>("server.ioThreads",
                                        NumberIn(1, 64, "a number from 1 to 64")),
        Key<&C::server, &V::readiness_requires_sync>("server.readinessRequiresSync", Boolean()),
        Key<&C::server, &V::max_on_demand_informers>("server.maxOnDemandInformers",
                                                     NumberIn(0, 1000, "a number from 0 to 1000")),
        Key<&C::server, &V::max_queued_changes>("server.maxQueuedChanges",
                                                NumberIn(1, 1000000, "a number from 1 to 1000000")),
        Key<&C::server, &V::max_watched_jobs>("server.maxWatchedJobs",
                                              NumberIn(1, 10000, "a number from 1 to 10000")),
        Key<&C::server, &V::max_follow_seconds>(
            "server.maxFollowSeconds",
            NumberIn<int64_t>(1, 604800, "a number of seconds from 1 to 604800 (a week)")),
        Key<&C::server, &V::max_ui_proxy_bytes>(
            "server.maxUiProxyBytes",
            NumberIn<int64_t>(1024, int64_t{1} << 30, "a number of bytes from 1024 to 1073741824")),
        Key<&C::server, &V::stale_after_ms>(
            "server.staleAfterMs",
            NumberIn<int64_t>(1, kInt64Max, "a positive number of milliseconds")),
        Key<&C::server, &V::max_concurrent_rpcs>(
            "server.maxConcurrentRpcs",
            NumberIn<int64_t>(1, 1000000, "a number from 1 to 1000000")),
        Key<&C::server, &V::max_streams>(
            "server.maxStreams", NumberIn<int64_t>(1, 1000000, "a number from 1 to 1000000")),
        Key<&C::server, &V::max_interned_bytes>(
            "server.maxInternedBytes",
            NumberIn<int64_t>(0, int64_t{1} << 30, "a number of bytes from 0 to 1073741824"))},
       nullptr},
      // The service's own limits on its requests to the API server.
      {{Key<&C::kubernetes, &K::max_in_flight>(
            "kubernetes.maxInFlight", NumberIn<int64_t>(1, 100000, "a number from 1 to 100000")),
        Key<&C::kubernetes, &K::qps>("kubernetes.qps",
                                     NumberIn(0.0, 1e6, "a number from 0 (no limit) to 1000000")),
        Key<&C::kubernetes, &K::burst>(
            "kubernetes.burst", NumberIn<int64_t>(1, 1000000, "a number from 1 to 1000000"))},
       nullptr},
      // JobInfo.links: a map of URL templates, no fixed keys.
      {{}, CheckLinks},
      // Staged dependencies: the store uploads go to, and its bounds.
      {{Key<&C::staging, &G::store>("staging.store", Text()),
        Key<&C::staging, &G::url_mode>("staging.urlMode", Text()),
        Key<&C::staging, &G::volume_path>("staging.volume.path", Text()),
        Key<&C::staging, &G::volume_claim_name>("staging.volume.claimName", Text()),
        Key<&C::staging, &G::volume_mount_path>("staging.volume.mountPath", Text()),
        Key<&C::staging, &G::s3_endpoint>("staging.s3.endpoint", Text()),
        Key<&C::staging, &G::s3_bucket>("staging.s3.bucket", Text()),
        Key<&C::staging, &G::s3_region>("staging.s3.region", Text()),
        Key<&C::staging, &G::s3_prefix>("staging.s3.prefix", Text()),
        Key<&C::staging, &G::s3_access_key_file>("staging.s3.accessKeyFile", Text()),
        Key<&C::staging, &G::s3_secret_key_file>("staging.s3.secretKeyFile", Text()),
        Key<&C::staging, &G::s3_credentials_secret>("staging.s3.credentialsSecret", Text()),
        Key<&C::staging, &G::presign_expiry_seconds>(
            "staging.presignExpirySeconds",
            NumberIn<int64_t>(60, 604800, "a number of seconds from 60 to 604800 (a week)")),
        Key<&C::staging, &G::multipart_part_bytes>(
            "staging.multipartPartBytes",
            NumberIn<int64_t>(5 << 20, int64_t{5} << 30, "a number of bytes from 5 MiB to 5 GiB")),
        Key<&C::staging, &G::max_file_bytes>(
            "staging.maxFileBytes", NumberIn<int64_t>(1, kInt64Max, "a positive number of bytes")),
        Key<&C::staging, &G::max_upload_bytes>(
            "staging.maxUploadBytes",
            NumberIn<int64_t>(1, kInt64Max, "a positive number of bytes")),
        Key<&C::staging, &G::max_files_per_upload>(
            "staging.maxFilesPerUpload", NumberIn<int64_t>(1, 10000, "a number from 1 to 10000")),
        Key<&C::staging, &G::max_concurrent_uploads>(
            "staging.maxConcurrentUploads",
            NumberIn<int64_t>(1, 10000, "a number from 1 to 10000")),
        Key<&C::staging, &G::threads>("staging.threads", NumberIn(1, 64, "a number from 1 to 64")),
        Key<&C::staging, &G::sweep_interval_ms>("staging.sweepIntervalMs", Millis(), Positive()),
        Key<&C::staging, &G::sweep_grace_ms>("staging.sweepGraceMs", Millis(), Positive())},
       CheckStaging},
  };
}

// In this order: a section's check may read the keys of the sections before it.
std::vector<ConfigSection> MakeSections() {
  std::vector<ConfigSection> sections = ClusterSections();
  for (auto part : {ApplicationSections(), ServerSections()}) {
    sections.insert(sections.end(), std::make_move_iterator(part.begin()),
                    std::make_move_iterator(part.end()));
  }
  return sections;
}

}  // namespace

absl::Status KeyError(const std::string& key, const std::string& rule) {
  return absl::InvalidArgumentError(absl::StrCat(key, ": ", rule));
}

const std::vector<ConfigSection>& ConfigSections() {
  static const std::vector<ConfigSection> kSections = MakeSections();
  return kSections;
}

absl::StatusOr<Config> Build(const RawMap& raw) {
  Config c;
  for (const ConfigSection& section : ConfigSections()) {
    for (const ConfigKey& key : section.keys) {
      if (auto it = raw.find(key.name); it != raw.end()) {
        std::string value = Trim(it->second.value);
        if (!value.empty()) RETURN_IF_ERROR(key.read(value, c));
      }
      if (key.validate) RETURN_IF_ERROR(key.validate(c));
    }
    if (section.check) RETURN_IF_ERROR(section.check(raw, c));
  }
  return c;
}

}  // namespace kje::server::config_internal
