#include "server/config.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "base/quote.h"

namespace kje::server {
namespace {

constexpr char kMinimal[] = "spark: {image: apache/spark:3.5.5, sparkVersion: 3.5.5}\n";

// A file that exists for the duration of a test.
class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    char name[] = "/tmp/kje_config_test_XXXXXX";
    int fd = mkstemp(name);
    REQUIRE(fd >= 0);
    close(fd);
    path_ = name;
    std::ofstream(path_) << content;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

absl::StatusOr<Config> FromYaml(const std::string& yaml, ConfigSources rest = {}) {
  return LoadConfigFromYaml(yaml, rest);
}

// The error message of a config that must fail.
std::string ErrorOf(const std::string& yaml, ConfigSources rest = {}) {
  auto c = FromYaml(yaml, rest);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(c.status().message());
}

absl::StatusOr<Config> FromFile(const std::string& path) {
  ConfigSources sources;
  sources.yaml_path = path;
  return LoadConfig(sources);
}

ConfigSources Flags(std::vector<std::pair<std::string, std::string>> flags) {
  ConfigSources sources;
  sources.flags = std::move(flags);
  return sources;
}

std::string With(const std::string& extra) { return std::string(kMinimal) + extra; }

TEST_CASE("config: defaults match the Java executor", "[config]") {
  auto c = FromYaml(kMinimal);
  REQUIRE(c.ok());
  CHECK(c->cluster == "default");
  CHECK(c->kubeconfig.empty());
  CHECK(c->context.empty());
  CHECK(c->master_url.empty());
  CHECK(c->namespace_ == "default");
  CHECK(c->name_prefix == "gravitino-job");
  CHECK(c->status_cache_ttl_ms == 5000);
  CHECK(c->no_status_timeout_ms == 600000);
  CHECK(c->spark.image == "apache/spark:3.5.5");
  CHECK(c->spark.spark_version == "3.5.5");
  CHECK(c->spark.service_account == "spark");
  CHECK(c->spark.resource_retain_duration_ms == 86400000);
  CHECK(c->spark.ttl_after_stop_ms == 604800000);
  CHECK(c->spark.driver_start_timeout_ms == 3600000);
  CHECK(c->spark.driver_ready_timeout_ms == 3600000);
  CHECK(c->spark.builtin_jobs_jar == "local:///opt/gravitino/jobs/gravitino-jobs.jar");
  CHECK(c->spark.conf.empty());
  CHECK(c->server.listen == "0.0.0.0:50051");
  CHECK(c->server.log_level == "info");
  CHECK(c->server.log_format == "text");
  CHECK(c->server.allowed_namespaces.empty());
  CHECK(c->server.drain_timeout_ms == 15000);
  CHECK(c->server.io_threads == 2);
}

TEST_CASE("config: the shipped example is valid", "[config]") {
  auto c = FromFile(std::string(KJE_SOURCE_DIR) + "/examples/config.yaml");
  REQUIRE(c.ok());
  CHECK(c->spark.conf.at("spark.executor.instances") == "1");
}

TEST_CASE("config: spark.image and spark.sparkVersion are required", "[config]") {
  CHECK_THAT(ErrorOf("spark: {sparkVersion: 3.5.5}"),
             Catch::StartsWith("spark.image: is required"));
  CHECK_THAT(ErrorOf("spark: {image: x}"), Catch::StartsWith("spark.sparkVersion: is required"));
  CHECK_THAT(ErrorOf("spark: {image: '  ', sparkVersion: 3.5.5}"),
             Catch::StartsWith("spark.image: is required"));
  CHECK_THAT(ErrorOf(""), Catch::StartsWith("spark.image: is required"));
}

TEST_CASE("config: values are trimmed and blank means the default", "[config]") {
  auto c =
      FromYaml(With("namespace: '  jobs  '\nnamePrefix: ''\nstatusCacheTtlMs: ' '\n"
                    "spark.serviceAccount: ' runner '\ncluster: ~\n"));
  REQUIRE(c.ok());
  CHECK(c->namespace_ == "jobs");
  CHECK(c->name_prefix == "gravitino-job");
  CHECK(c->status_cache_ttl_ms == 5000);
  CHECK(c->spark.service_account == "runner");
  CHECK(c->cluster == "default");
}

TEST_CASE("config: nested and dotted keys are the same key", "[config]") {
  auto nested = FromYaml(
      "spark:\n  image: a\n  sparkVersion: '4.0.0'\n  conf:\n"
      "    spark.executor.memory: 2g\n");
  auto dotted = FromYaml(
      "spark.image: a\nspark.sparkVersion: '4.0.0'\n"
      "spark.conf.spark.executor.memory: 2g\n");
  REQUIRE(nested.ok());
  REQUIRE(dotted.ok());
  CHECK(nested->spark.image == dotted->spark.image);
  CHECK(nested->spark.spark_version == "4.0.0");
  CHECK(nested->spark.conf == dotted->spark.conf);
  CHECK(nested->spark.conf.at("spark.executor.memory") == "2g");
  CHECK_THAT(ErrorOf("spark: {image: a, sparkVersion: b}\nspark.image: c\n"),
             Catch::Contains("spark.image: set twice"));
}

TEST_CASE("config: cluster must not contain a slash", "[config]") {
  CHECK_THAT(ErrorOf(With("cluster: prod/eu\n")),
             Catch::StartsWith("cluster: must not contain '/'") && Catch::Contains("prod/eu"));
  auto ok = FromYaml(With("cluster: prod-eu\n"));
  REQUIRE(ok.ok());
  CHECK(ok->cluster == "prod-eu");
}

TEST_CASE("config: namespace must be a DNS-1123 label", "[config]") {
  for (const char* bad : {"Spark", "-jobs", "jobs-", "jo_bs", "a.b",
                          "a123456789012345678901234567890123456789012345678901234567890123"}) {
    CAPTURE(bad);
    CHECK_THAT(ErrorOf(With(std::string("namespace: \"") + bad + "\"\n")),
               Catch::StartsWith("namespace: must be a DNS-1123 label"));
  }
  for (const char* good : {"a", "jobs", "spark-jobs-2", "0abc"}) {
    CAPTURE(good);
    CHECK(FromYaml(With(std::string("namespace: \"") + good + "\"\n")).ok());
  }
}

TEST_CASE("config: namePrefix rules", "[config]") {
  CHECK_THAT(ErrorOf(With("namePrefix: Bad_Prefix\n")),
             Catch::StartsWith("namePrefix: must match [a-z]([-a-z0-9]*[a-z0-9])?") &&
                 Catch::Contains("\"Bad_Prefix\""));
  for (const char* bad : {"1abc", "abc-", "ab.c", "abcdefghijklmnopqrstuvwxy" /* 25 */}) {
    CAPTURE(bad);
    CHECK_THAT(ErrorOf(With(std::string("namePrefix: ") + bad + "\n")),
               Catch::StartsWith("namePrefix:"));
  }
  auto c = FromYaml(With("namePrefix: abcdefghijklmnopqrstuvwx\n"));  // 24
  REQUIRE(c.ok());
  CHECK(c->name_prefix.size() == 24);
  CHECK(FromYaml(With("namePrefix: a\n")).ok());
  CHECK(FromYaml(With("namePrefix: team-a-2\n")).ok());
}

TEST_CASE("config: millisecond keys", "[config]") {
  CHECK(ErrorOf(With("statusCacheTtlMs: soon\n")) ==
        "statusCacheTtlMs: must be a number of milliseconds: \"soon\"");
  CHECK(ErrorOf(With("noStatusTimeoutMs: 1.5\n")) ==
        "noStatusTimeoutMs: must be a number of milliseconds: \"1.5\"");
  CHECK(ErrorOf(With("noStatusTimeoutMs: 99999999999999999999\n")) ==
        "noStatusTimeoutMs: must be a number of milliseconds: \"99999999999999999999\"");
  // statusCacheTtlMs accepts any long; <= 0 disables the cache.
  auto c = FromYaml(With("statusCacheTtlMs: -1\n"));
  REQUIRE(c.ok());
  CHECK(c->status_cache_ttl_ms == -1);
  CHECK(FromYaml(With("statusCacheTtlMs: 0\n"))->status_cache_ttl_ms == 0);
  for (const char* key :
       {"noStatusTimeoutMs", "spark.resourceRetainDurationMs", "spark.ttlAfterStopMs",
        "spark.driverStartTimeoutMs", "spark.driverReadyTimeoutMs", "server.drainTimeoutMs"}) {
    CAPTURE(key);
    CHECK(ErrorOf(With(std::string(key) + ": 0\n")) ==
          std::string(key) + ": must be greater than 0, got 0");
    CHECK(ErrorOf(With(std::string(key) + ": -5\n")) ==
          std::string(key) + ": must be greater than 0, got -5");
  }
  auto d = FromYaml(With("spark.driverStartTimeoutMs: 300000\n"));
  REQUIRE(d.ok());
  CHECK(d->spark.driver_start_timeout_ms == 300000);
}

TEST_CASE("config: connection keys are mutually exclusive", "[config]") {
  TempFile kubeconfig("apiVersion: v1\nkind: Config\n");
  TempFile ca("ca");
  TempFile token("t0ken");
  CHECK(ErrorOf(With("masterUrl: https://k8s:6443\nkubeconfig: " + kubeconfig.path() + "\n")) ==
        "masterUrl: can't be set together with kubeconfig");
  CHECK(ErrorOf(With("masterUrl: https://k8s:6443\ncontext: prod\n")) ==
        "masterUrl: can't be set together with context");
  CHECK(ErrorOf(With("caCertFile: " + ca.path() + "\n")) ==
        "caCertFile: can only be set with masterUrl");
  CHECK(ErrorOf(With("tokenFile: " + token.path() + "\n")) ==
        "tokenFile: can only be set with masterUrl");
  CHECK_THAT(ErrorOf(With("masterUrl: k8s:6443\n")),
             Catch::StartsWith("masterUrl: must be an https:// or http:// URL"));

  auto m = FromYaml(With("masterUrl: https://k8s:6443\ncaCertFile: " + ca.path() +
                         "\ntokenFile: " + token.path() + "\n"));
  REQUIRE(m.ok());
  CHECK(m->master_url == "https://k8s:6443");
  CHECK(m->ca_cert_file == ca.path());
  CHECK(m->token_file == token.path());

  auto k = FromYaml(With("kubeconfig: " + kubeconfig.path() + "\ncontext: prod\n"));
  REQUIRE(k.ok());
  CHECK(k->context == "prod");
}

TEST_CASE("config: referenced files must exist", "[config]") {
  CHECK_THAT(ErrorOf(With("kubeconfig: /nonexistent/kubeconfig\n")),
             Catch::StartsWith("kubeconfig: file does not exist") &&
                 Catch::Contains("/nonexistent/kubeconfig"));
  CHECK_THAT(ErrorOf(With("masterUrl: https://k8s\ncaCertFile: /nonexistent/ca.crt\n")),
             Catch::StartsWith("caCertFile: file does not exist"));
  CHECK_THAT(ErrorOf(With("masterUrl: https://k8s\ntokenFile: /nonexistent/token\n")),
             Catch::StartsWith("tokenFile: file does not exist"));
  CHECK_THAT(ErrorOf(With("kubeconfig: /tmp\n")), Catch::StartsWith("kubeconfig: file does not"));
  CHECK_THAT(ErrorOf(With("server.tokenFile: /nonexistent/token\n")),
             Catch::StartsWith("server.tokenFile: file does not exist"));
}

TEST_CASE("config: spark.builtinJobsJar must be reachable from the cluster", "[config]") {
  for (const char* bad : {"/opt/jobs.jar", "jobs.jar", "file:///opt/jobs.jar", "FILE:/x.jar"}) {
    CAPTURE(bad);
    CHECK_THAT(ErrorOf(With(std::string("spark.builtinJobsJar: \"") + bad + "\"\n")),
               Catch::StartsWith("spark.builtinJobsJar: must be a URI reachable from the cluster"));
  }
  auto c = FromYaml(With("spark.builtinJobsJar: s3a://bucket/jobs.jar\n"));
  REQUIRE(c.ok());
  CHECK(c->spark.builtin_jobs_jar == "s3a://bucket/jobs.jar");
}

TEST_CASE("config: spark.conf entries", "[config]") {
  auto c =
      FromYaml(With("spark.conf.spark.executor.cores: ' 2 '\nspark.conf.: ignored\n"
                    "spark.conf.spark.blank: ''\n"));
  REQUIRE(c.ok());
  CHECK(c->spark.conf.size() == 1);
  CHECK(c->spark.conf.at("spark.executor.cores") == "2");
}

TEST_CASE("config: unknown keys and bad shapes are rejected", "[config]") {
  CHECK_THAT(ErrorOf(With("namepsace: jobs\n")),
             Catch::StartsWith("namepsace: unknown configuration key"));
  CHECK_THAT(ErrorOf(With("spark: {imagePullPolicy: Always}\n")),
             Catch::StartsWith("spark.imagePullPolicy: unknown configuration key"));
  CHECK_THAT(ErrorOf(With("namespace: [a, b]\n")),
             Catch::StartsWith("namespace: must be a single value, not a list"));
  CHECK_THAT(ErrorOf("- a\n- b\n"), Catch::Contains("must be a YAML map of configuration keys"));
  CHECK_THAT(ErrorOf("spark: {image: [\n"), Catch::Contains("not valid YAML"));
  std::string bad_escape = ErrorOf("cluster: \"a\\\x03\"\n");
  CHECK_THAT(bad_escape, Catch::Contains("unknown escape character: \\x03"));
  CHECK_FALSE(HasControlByte(bad_escape));
}

TEST_CASE("config: server keys", "[config]") {
  for (const char* bad :
       {"50051", "host:", ":50051", "host:port", "host:70000", "::1:50051", "[::1:50051"}) {
    CAPTURE(bad);
    CHECK_THAT(ErrorOf(With(std::string("server.listen: \"") + bad + "\"\n")),
               Catch::StartsWith("server.listen: must be HOST:PORT"));
  }
  for (const char* good : {"127.0.0.1:0", "0.0.0.0:50051", "[::]:50051", "localhost:65535"}) {
    CAPTURE(good);
    CHECK(FromYaml(With(std::string("server.listen: \"") + good + "\"\n")).ok());
  }
  CHECK_THAT(ErrorOf(With("server.logLevel: loud\n")),
             Catch::StartsWith("server.logLevel: must be one of debug, info, warn, error"));
  CHECK_THAT(ErrorOf(With("server.logFormat: xml\n")),
             Catch::StartsWith("server.logFormat: must be text or json"));
  CHECK_THAT(ErrorOf(With("server.ioThreads: 0\n")),
             Catch::StartsWith("server.ioThreads: must be a number from 1 to 64"));
  CHECK_THAT(ErrorOf(With("server.metricsListen: nope\n")),
             Catch::StartsWith("server.metricsListen: must be HOST:PORT"));
  // The plaintext health port binds loopback only.
  for (const char* good : {"127.0.0.1:8081", "[::1]:0", "localhost:8081", "127.0.0.2:1"}) {
    CAPTURE(good);
    CHECK(FromYaml(With(std::string("server.healthListen: \"") + good + "\"\n")).ok());
  }
  for (const char* bad : {"0.0.0.0:8081", "[::]:8081", "10.0.0.1:8081", "kje:8081"}) {
    CAPTURE(bad);
    CHECK_THAT(ErrorOf(With(std::string("server.healthListen: \"") + bad + "\"\n")),
               Catch::StartsWith("server.healthListen: must be a loopback HOST:PORT"));
  }
  CHECK_THAT(ErrorOf(With("server.healthListen: nope\n")),
             Catch::StartsWith("server.healthListen: must be HOST:PORT"));
}

TEST_CASE("config: TLS keys go together", "[config]") {
  TempFile cert("cert");
  TempFile key("key");
  CHECK_THAT(ErrorOf(With("server.tls.certFile: " + cert.path() + "\n")),
             Catch::StartsWith("server.tls.keyFile: server.tls.certFile and server.tls.keyFile "
                               "must be set together"));
  CHECK_THAT(ErrorOf(With("server.tls.clientCaFile: " + cert.path() + "\n")),
             Catch::StartsWith("server.tls.clientCaFile: requires server.tls.certFile"));
  CHECK_THAT(
      ErrorOf(With("server: {tls: {certFile: /nonexistent.crt, keyFile: " + key.path() + "}}\n")),
      Catch::StartsWith("server.tls.certFile: file does not exist"));
  auto c = FromYaml(With("server: {tls: {certFile: " + cert.path() + ", keyFile: " + key.path() +
                         ", clientCaFile: " + cert.path() + "}}\n"));
  REQUIRE(c.ok());
  CHECK(c->server.tls_client_ca_file == cert.path());
}

TEST_CASE("config: allowed namespaces", "[config]") {
  auto c = FromYaml(With("namespace: jobs\nserver: {allowedNamespaces: [jobs, ' etl ']}\n"));
  REQUIRE(c.ok());
  CHECK(c->server.allowed_namespaces == std::vector<std::string>{"jobs", "etl"});
  CHECK_THAT(ErrorOf(With("server: {allowedNamespaces: [default, Bad]}\n")),
             Catch::StartsWith("server.allowedNamespaces: every entry must be a DNS-1123 label"));
  CHECK_THAT(ErrorOf(With("server: {allowedNamespaces: [etl]}\n")),
             Catch::StartsWith("server.allowedNamespaces: must include the default namespace"));
  // The environment and flags give the list comma-separated.
  auto f = FromYaml(With(""), Flags({{"server.allowedNamespaces", "default, etl"}}));
  REQUIRE(f.ok());
  CHECK(f->server.allowed_namespaces == std::vector<std::string>{"default", "etl"});
}

TEST_CASE("config: environment overrides the file, flags override both", "[config]") {
  ConfigSources sources;
  sources.env = {{"K8S_JOB_EXECUTOR_NAMESPACE", "from-env"},
                 {"K8S_JOB_EXECUTOR_SPARK_IMAGE", "env-image"},
                 {"K8S_JOB_EXECUTOR_STATUS_CACHE_TTL_MS", "100"},
                 // Injected by Kubernetes for a Service named k8s-job-executor: ignored.
                 {"K8S_JOB_EXECUTOR_SERVICE_HOST", "10.0.0.1"},
                 {"K8S_JOB_EXECUTOR_PORT", "tcp://10.0.0.1:50051"},
                 {"UNRELATED", "x"}};
  sources.flags = {{"namespace", "from-flag"}, {"server.listen", "127.0.0.1:0"}};
  auto c = FromYaml(With("namespace: from-file\nstatusCacheTtlMs: 7\n"), sources);
  REQUIRE(c.ok());
  CHECK(c->namespace_ == "from-flag");
  CHECK(c->spark.image == "env-image");
  CHECK(c->status_cache_ttl_ms == 100);
  CHECK(c->server.listen == "127.0.0.1:0");

  sources.flags = {{"nmespace", "x"}};
  CHECK_THAT(ErrorOf(kMinimal, sources),
             Catch::StartsWith("nmespace: unknown configuration key (from command line)"));
  ConfigSources bad_env;
  bad_env.env = {{"K8S_JOB_EXECUTOR_NO_STATUS_TIMEOUT_MS", "ten"}};
  CHECK(ErrorOf(kMinimal, bad_env) ==
        "noStatusTimeoutMs: must be a number of milliseconds: \"ten\"");
}

TEST_CASE("config: environment variable names", "[config]") {
  CHECK(EnvNameForKey("namespace") == "K8S_JOB_EXECUTOR_NAMESPACE");
  CHECK(EnvNameForKey("masterUrl") == "K8S_JOB_EXECUTOR_MASTER_URL");
  CHECK(EnvNameForKey("spark.image") == "K8S_JOB_EXECUTOR_SPARK_IMAGE");
  CHECK(EnvNameForKey("spark.sparkVersion") == "K8S_JOB_EXECUTOR_SPARK_SPARK_VERSION");
  CHECK(EnvNameForKey("server.tls.certFile") == "K8S_JOB_EXECUTOR_SERVER_TLS_CERT_FILE");
  CHECK(EnvNameForKey("noStatusTimeoutMs") == "K8S_JOB_EXECUTOR_NO_STATUS_TIMEOUT_MS");
  // Every known key has a distinct variable.
  std::set<std::string> names;
  for (const auto& key : KnownConfigKeys()) names.insert(EnvNameForKey(key));
  CHECK(names.size() == KnownConfigKeys().size());
}

TEST_CASE("config: unreadable config file", "[config]") {
  auto c = FromFile("/nonexistent/config.yaml");
  REQUIRE_FALSE(c.ok());
  CHECK(std::string(c.status().message()) ==
        "--config: can't read the file /nonexistent/config.yaml");
  TempFile file("spark: {image: a, sparkVersion: b}\nnamePrefix: Bad_Prefix\n");
  auto d = FromFile(file.path());
  REQUIRE_FALSE(d.ok());
  CHECK_THAT(std::string(d.status().message()), Catch::StartsWith("namePrefix:"));
}

TEST_CASE("config: over-long or control-byte values are quoted bounded", "[config]") {
  const std::string huge = std::string(8999, 'x') + "\x1b";
  for (const char* key : {"cluster",
                          "masterUrl",
                          "namespace",
                          "namePrefix",
                          "statusCacheTtlMs",
                          "spark.builtinJobsJar",
                          "server.listen",
                          "server.allowedNamespaces",
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
                          "server.logLevel",
                          "server.logFormat"}) {
    CAPTURE(key);
    // The value a key of the cluster rule needs to fail.
    std::string value = std::string(key) == "cluster" ? huge + "/" : huge;
    std::string message = ErrorOf(kMinimal, Flags({{key, value}}));
    INFO(message.substr(0, 200));
    CHECK_THAT(message, Catch::StartsWith(std::string(key) + ": "));
    CHECK(message.size() < 1024);
    CHECK_THAT(message, Catch::Contains("bytes)"));
    CHECK_FALSE(HasControlByte(message));
  }
  CHECK_THAT(ErrorOf(kMinimal, Flags({{"namespace", huge}})), Catch::EndsWith("(9000 bytes)"));
}

TEST_CASE("config: the global bounds", "[config]") {
  auto c = FromYaml(kMinimal);
  REQUIRE(c.ok());
  CHECK(c->server.max_concurrent_rpcs == 4096);
  CHECK(c->server.max_streams == 16384);
  c = FromYaml(With("server:\n  maxConcurrentRpcs: 8\n  maxStreams: 3\n"));
  REQUIRE(c.ok());
  CHECK(c->server.max_concurrent_rpcs == 8);
  CHECK(c->server.max_streams == 3);
  CHECK(FromYaml(With("server:\n  maxInternedBytes: 0\n"))->server.max_interned_bytes == 0);
  CHECK(FromYaml(With("server:\n  maxInternedBytes: 4096\n"))->server.max_interned_bytes == 4096);
  CHECK(FromYaml(With(""))->server.max_interned_bytes == 1 << 20);
  CHECK(ErrorOf(With("server:\n  maxInternedBytes: -1\n")) ==
        "server.maxInternedBytes: must be a number of bytes from 0 to 1073741824, got \"-1\"");
  CHECK(ErrorOf(With("server:\n  maxStreams: 0\n")) ==
        "server.maxStreams: must be a number from 1 to 1000000, got \"0\"");
  CHECK_THAT(ErrorOf(With("server:\n  maxConcurrentRpcs: many\n")),
             Catch::StartsWith("server.maxConcurrentRpcs: must be a number"));
}

TEST_CASE("config: a misspelt key or variable says which one was meant", "[config]") {
  CHECK(ErrorOf(With("spark:\n  imag: x\n")) ==
        "spark.imag: unknown configuration key (from config); did you mean spark.image?");
  CHECK_THAT(ErrorOf(kMinimal, Flags({{"server.maxStream", "3"}})),
             Catch::EndsWith("; did you mean server.maxStreams?"));
  // Nothing near: no guess.
  CHECK_THAT(ErrorOf(kMinimal, Flags({{"volcano", "x"}})),
             Catch::EndsWith("unknown configuration key (from command line)"));
  ConfigSources env;
  env.env = {{"K8S_JOB_EXECUTOR_NAMESAPCE", "secret-looking-value"}};
  std::string message = ErrorOf(kMinimal, env);
  CHECK(message ==
        "\"K8S_JOB_EXECUTOR_NAMESAPCE\": unknown configuration variable (from the environment); "
        "did you mean K8S_JOB_EXECUTOR_NAMESPACE?");
  CHECK(message.find("secret-looking-value") == std::string::npos);
  // What Kubernetes sets for a Service named k8s-job-executor, and the CLI's address, are not
  // ours to refuse.
  env.env = {{"K8S_JOB_EXECUTOR_SERVICE_HOST", "10.0.0.1"},
             {"K8S_JOB_EXECUTOR_SERVICE_PORT", "50051"},
             {"K8S_JOB_EXECUTOR_SERVICE_PORT_GRPC", "50051"},
             {"K8S_JOB_EXECUTOR_PORT", "tcp://10.0.0.1:50051"},
             {"K8S_JOB_EXECUTOR_PORT_50051_TCP", "tcp://10.0.0.1:50051"},
             {"K8S_JOB_EXECUTOR_PORT_50051_TCP_PROTO", "tcp"},
             {"K8S_JOB_EXECUTOR_PORT_50051_TCP_PORT", "50051"},
             {"K8S_JOB_EXECUTOR_PORT_50051_TCP_ADDR", "10.0.0.1"},
             {"K8S_JOB_EXECUTOR_SERVER", "localhost:50051"}};
  CHECK(FromYaml(kMinimal, env).ok());
  env.env = {{"K8S_JOB_EXECUTOR_PORT_50051_TCP_HOST", "x"}};
  CHECK_THAT(ErrorOf(kMinimal, env), Catch::Contains("unknown configuration variable"));
}

TEST_CASE("config: a watch's and a follow's bounds", "[config]") {
  auto c = FromYaml(kMinimal);
  REQUIRE(c.ok());
  CHECK(c->server.max_watched_jobs == 100);
  CHECK(c->server.max_follow_seconds == 86400);
  c = FromYaml(With("server:\n  maxWatchedJobs: 500\n  maxFollowSeconds: 3600\n"));
  REQUIRE(c.ok());
  CHECK(c->server.max_watched_jobs == 500);
  CHECK(c->server.max_follow_seconds == 3600);
  CHECK(ErrorOf(With("server:\n  maxWatchedJobs: 0\n")) ==
        "server.maxWatchedJobs: must be a number from 1 to 10000, got \"0\"");
  CHECK_THAT(ErrorOf(With("server:\n  maxFollowSeconds: 604801\n")),
             Catch::StartsWith("server.maxFollowSeconds: must be a number of seconds from 1"));
}

TEST_CASE("config: server.staleAfterMs", "[config]") {
  auto c = FromYaml(kMinimal);
  REQUIRE(c.ok());
  CHECK(c->server.stale_after_ms == 180000);
  c = FromYaml(With("server:\n  staleAfterMs: 2500\n"));
  REQUIRE(c.ok());
  CHECK(c->server.stale_after_ms == 2500);
  CHECK(ErrorOf(With("server:\n  staleAfterMs: 0\n")) ==
        "server.staleAfterMs: must be a positive number of milliseconds, got \"0\"");
  CHECK_THAT(ErrorOf(With("server:\n  staleAfterMs: soon\n")),
             Catch::StartsWith("server.staleAfterMs: must be a positive number"));
}

TEST_CASE("config: operator chooses the backend", "[config]") {
  auto c = FromYaml(kMinimal);
  REQUIRE(c.ok());
  CHECK(c->operator_name == "apache");
  c = FromYaml(With("operator: kubeflow\n"));
  REQUIRE(c.ok());
  CHECK(c->operator_name == "kubeflow");
  c = FromYaml(kMinimal, Flags({{"operator", "kubeflow"}}));
  REQUIRE(c.ok());
  CHECK(c->operator_name == "kubeflow");
  ConfigSources env;
  env.env = {{"K8S_JOB_EXECUTOR_OPERATOR", "kubeflow"}};
  c = FromYaml(kMinimal, env);
  REQUIRE(c.ok());
  CHECK(c->operator_name == "kubeflow");
  CHECK_THAT(ErrorOf(With("operator: volcano\n")),
             Catch::StartsWith("operator: must be apache (apache/spark-kubernetes-operator) or "
                               "kubeflow (kubeflow/spark-operator), not \"volcano\""));
  // What the Kubeflow operator's webhook refuses can't be a server-wide default there.
  constexpr char kWithImageConf[] =
      "spark:\n  image: a\n  sparkVersion: 3.5.5\n  conf:\n"
      "    spark.kubernetes.container.image: x\n";
  std::string denied = std::string("operator: kubeflow\n") + kWithImageConf;
  CHECK_THAT(
      ErrorOf(denied),
      Catch::StartsWith("\"spark.conf.spark.kubernetes.container.image\": isn't allowed with "
                        "operator kubeflow"));
  CHECK(FromYaml(kWithImageConf).ok());
}

TEST_CASE("config: server.sensitiveKeys and monitoring", "[config]") {
  auto c = FromYaml(kMinimal);
  REQUIRE(c.ok());
  CHECK(c->server.sensitive_keys == DefaultSensitiveWords());
  CHECK(c->monitoring.expose == "none");
  CHECK(c->monitoring.port == 8090);
  c =
      FromYaml(With("server: {sensitiveKeys: [sas-key, \" pin \"]}\nmonitoring: {expose: "
                    "\"driver, executor\", jmxExporterJar: /p/jmx.jar, port: 9100}\n"));
  INFO((c.ok() ? std::string() : std::string(c.status().message())));
  REQUIRE(c.ok());
  CHECK(c->server.sensitive_keys == std::vector<std::string>{"sas-key", "pin"});
  CHECK(c->monitoring.expose == "driver, executor");
  CHECK(c->monitoring.jmx_exporter_jar == "/p/jmx.jar");
  CHECK(c->monitoring.port == 9100);
  CHECK_THAT(ErrorOf(With("server: {sensitiveKeys: \"secret, --\"}\n")),
             Catch::StartsWith("server.sensitiveKeys: every entry must hold a letter or digit"));
  CHECK_THAT(ErrorOf(With("monitoring: {expose: all}\n")),
             Catch::StartsWith("monitoring.expose must list driver, executor or both"));
  CHECK_THAT(ErrorOf(With("monitoring: {port: 80}\n")), Catch::StartsWith("monitoring.port"));
}

TEST_CASE("config: queue.scheduler and queue.name", "[config]") {
  auto c = FromYaml(kMinimal);
  REQUIRE(c.ok());
  CHECK(c->queue.scheduler == "none");
  CHECK(c->queue.name.empty());
  c = FromYaml(With("queue: {scheduler: kueue, name: team-a}\n"));
  REQUIRE(c.ok());
  CHECK(c->queue.scheduler == "kueue");
  CHECK(c->queue.name == "team-a");
  c = FromYaml(With("queue: {scheduler: yunikorn}\n"));
  REQUIRE(c.ok());
  CHECK(c->queue.name.empty());  // no default queue: only templates name one
  ConfigSources env;
  env.env = {{"K8S_JOB_EXECUTOR_QUEUE_SCHEDULER", "volcano"},
             {"K8S_JOB_EXECUTOR_QUEUE_NAME", "batch"}};
  c = FromYaml(kMinimal, env);
  REQUIRE(c.ok());
  CHECK(c->queue.scheduler == "volcano");
  CHECK(c->queue.name == "batch");
  c = FromYaml(kMinimal, Flags({{"queue.scheduler", "yunikorn"}, {"queue.name", "root.etl"}}));
  REQUIRE(c.ok());
  CHECK(c->queue.name == "root.etl");

  CHECK(ErrorOf(With("queue: {scheduler: Kueue}\n")) ==
        "queue.scheduler: must be one of none, kueue, yunikorn or volcano, got \"Kueue\"");
  CHECK(ErrorOf(With("queue: {name: team-a}\n")) ==
        "queue.name: needs queue.scheduler (kueue, yunikorn or volcano): with none, no job goes "
        "to a queue");
  CHECK_THAT(ErrorOf(With("queue: {scheduler: kueue, name: Team_A}\n")),
             Catch::StartsWith("queue.name: must be a Kueue LocalQueue name") &&
                 Catch::EndsWith(", not \"Team_A\""));
  CHECK_THAT(ErrorOf(With("queue: {scheduler: yunikorn, name: default}\n")),
             Catch::StartsWith("queue.name: must be a full YuniKorn queue path"));
  CHECK_THAT(ErrorOf(With("queue: {scheduler: volcano, name: Batch}\n")),
             Catch::StartsWith("queue.name: must be a Volcano Queue name"));
  CHECK(ErrorOf(With("queue: {schedular: kueue}\n")) ==
        "queue.schedular: unknown configuration key (from config); did you mean "
        "queue.scheduler?");
  ConfigSources typo;
  typo.env = {{"K8S_JOB_EXECUTOR_QUEUE_NAMES", "a"}};
  CHECK_THAT(ErrorOf(kMinimal, typo), Catch::EndsWith("did you mean K8S_JOB_EXECUTOR_QUEUE_NAME?"));
}

TEST_CASE("config: kubernetes.maxInFlight, qps and burst", "[config]") {
  auto c = FromYaml(kMinimal);
  REQUIRE(c.ok());
  CHECK(c->kubernetes.max_in_flight == 64);
  CHECK(c->kubernetes.qps == 100);
  CHECK(c->kubernetes.burst == 200);
  c = FromYaml(With("kubernetes:\n  maxInFlight: 8\n  qps: 2.5\n  burst: 5\n"));
  REQUIRE(c.ok());
  CHECK(c->kubernetes.max_in_flight == 8);
  CHECK(c->kubernetes.qps == 2.5);
  CHECK(c->kubernetes.burst == 5);
  c = FromYaml(With("kubernetes:\n  qps: 0\n"));
  REQUIRE(c.ok());
  CHECK(c->kubernetes.qps == 0);  // no rate limit
  CHECK_THAT(ErrorOf(With("kubernetes:\n  maxInFlight: 0\n")),
             Catch::StartsWith("kubernetes.maxInFlight: must be a number from 1 to 100000"));
  CHECK_THAT(ErrorOf(With("kubernetes:\n  qps: -1\n")),
             Catch::StartsWith("kubernetes.qps: must be a number from 0 (no limit)"));
  CHECK_THAT(ErrorOf(With("kubernetes:\n  qps: nan\n")),
             Catch::StartsWith("kubernetes.qps: must be a number"));
  CHECK_THAT(ErrorOf(With("kubernetes:\n  burst: 0\n")),
             Catch::StartsWith("kubernetes.burst: must be a number from 1 to 1000000"));
}

}  // namespace
}  // namespace kje::server

namespace kje::server {
namespace {

TEST_CASE("config: links are URL templates, parsed when the configuration loads", "[config]") {
  auto c =
      FromYaml(With("links:\n"
                    "  spark-ui: \"https://spark.example/{namespace}/{name}\"\n"
                    "  history: \"https://history.example/history/{sparkAppId}/jobs/\"\n"));
  INFO(c.status().ToString());
  REQUIRE(c.ok());
  CHECK(c->links.size() == 2);
  spark::LinkValues values;
  values.namespace_ = "team-a";
  values.name = "gravitino-job-7";
  std::vector<spark::JobLink> links = c->links.Render(values);
  REQUIRE(links.size() == 1);  // no Spark app id yet
  CHECK(links[0].name == "spark-ui");
  CHECK(links[0].url == "https://spark.example/team-a/gravitino-job-7");
  // A flag sets one the same way; none at all is none.
  auto flagged = FromYaml(kMinimal, Flags({{"links.logs", "https://logs.example/{jobId}"}}));
  REQUIRE(flagged.ok());
  CHECK(flagged->links.size() == 1);
  CHECK(FromYaml(kMinimal)->links.empty());
}

TEST_CASE("config: a link naming an unknown variable stops the start, saying which", "[config]") {
  std::string error = ErrorOf(With("links: {logs: \"https://logs.example/{podName}\"}\n"));
  CHECK(error.find("links: link \"logs\": unknown variable \"podName\"") != std::string::npos);
  CHECK(error.find("sparkAppId") != std::string::npos);  // the known ones listed
  CHECK(ErrorOf(With("links: {Logs: \"https://logs.example/\"}\n")).find("DNS-1123") !=
        std::string::npos);
  CHECK(ErrorOf(With("links: {logs: \"logs.example/{name}\"}\n")).find("http:// or https://") !=
        std::string::npos);
}

}  // namespace
}  // namespace kje::server
