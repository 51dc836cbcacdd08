#include "app/serve.h"

#include <google/protobuf/descriptor.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/strand.hpp>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "app/options.h"
#include "app/output_keeper.h"
#include "app/periodic_sweep.h"
#include "app/process.h"
#include "app/readiness_monitor.h"
#include "app/staging_setup.h"
#include "base/interner.h"
#include "base/log.h"
#include "base/mask.h"
#include "base/quote.h"
#include "base/strings.h"
#include "cache/app_cache.h"
#include "executor/executor.h"
#include "executor/namespace_policy.h"
#include "k8s/client.h"
#include "k8s/connection_config.h"
#include "server/app_metrics.h"
#include "server/caller_auth.h"
#include "server/grpc_server.h"
#include "server/job_executor_service.h"
#include "server/metrics.h"
#include "server/metrics_http.h"
#include "server/protobuf_log.h"
#include "spark/operators.h"

extern char** environ;

namespace kje::app {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitCantStart = 1;
constexpr int kExitBadConfiguration = 2;

constexpr std::string_view kInvalidConfiguration = "invalid configuration";
constexpr std::string_view kUnusableConnection = "can't use the Kubernetes connection";

// What the operator must fix before the process can start: said on stderr, as the log may not
// be configured yet.
int Refuse(std::string_view what, const absl::Status& status) {
  std::cerr << "k8s-job-executor: " << what << ": " << status.message() << "\n";
  return kExitBadConfiguration;
}

// What went wrong starting with a good configuration (a port taken).
int CantStart(const absl::Status& status) {
  log::Error("can't start").Kv("error", std::string(status.message()));
  return kExitCantStart;
}

std::map<std::string, std::string> ProcessEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return env;
}

// Debian's Abseil tracks every absl::Mutex in a global lock-order graph (a node per mutex, edges
// per nested acquisition, under one global lock): a tenth of the CPU of a cached Status call,
// whose reactor and operation each own a mutex. Tests turn it back on
// (KJE_MUTEX_DEADLOCK_DETECTION=abort) so lock-order bugs still fail them.
void SetMutexDeadlockDetection() {
  const char* detection = std::getenv("KJE_MUTEX_DEADLOCK_DETECTION");
  absl::SetMutexDeadlockDetectionMode(detection != nullptr && std::string_view(detection) == "abort"
                                          ? absl::OnDeadlockCycle::kAbort
                                          : absl::OnDeadlockCycle::kIgnore);
}

server::Metrics& KeepMetrics(Process& process, const Clock& clock,
                             k8s::RequestMetrics& k8s_requests,
                             std::shared_ptr<k8s::RequestLimiter> limiter, cache::AppCache& cache) {
  auto& metrics = process.Keep(std::make_unique<server::Metrics>(KJE_VERSION, clock));
  metrics.SetKubernetesRequests(&k8s_requests);
  metrics.SetKubernetesLimiter(std::move(limiter));
  metrics.SetInformerStats([&cache] { return cache.Stats(); });
  for (const char* name : {"jobexecutor.v1.JobExecutor", "grpc.health.v1.Health"}) {
    if (const auto* d =
            google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(name)) {
      metrics.InitializeGrpcService(*d);
    }
  }
  return metrics;
}

// Up before the gRPC port, so that a scraper sees the process from its first RPC on. Null
// without server.metricsListen.
absl::StatusOr<server::MetricsHttpServer*> StartMetricsHttp(Process& process,
                                                            const server::Config& config,
                                                            server::Metrics& metrics) {
  if (config.server.metrics_listen.empty()) return nullptr;
  auto started = server::MetricsHttpServer::Start(MetricsHttpOptionsFrom(config),
                                                  [&metrics] { return metrics.Render(); });
  if (!started.ok()) return started.status();
  auto& http = process.Keep(*std::move(started), &server::MetricsHttpServer::Stop);
  log::Info("metrics listening")
      .Kv("address", http.Address())
      .Kv("port", http.Port())
      .Kv("path", "/metrics");
  return &http;
}

// The informers tell while there are any; without them the requests do, and a quiet replica
// asks GET /version (allowed to every authenticated client) so that it notices a recovery
// without traffic.
ReadinessInputs ReadinessInputsOf(boost::asio::io_context& io, cache::AppCache& cache,
                                  k8s::RequestMetrics& k8s_requests,
                                  std::shared_ptr<k8s::Client> client, server::GrpcServer& grpc) {
  ReadinessInputs inputs;
  inputs.informers = [&cache] { return cache.PinnedStats(); };
  inputs.api_health = [&k8s_requests] { return k8s_requests.ApiHealth(); };
  inputs.probe = [&io, client = std::move(client)](absl::Time deadline,
                                                   std::function<void()> done) {
    boost::asio::co_spawn(
        boost::asio::make_strand(io),
        client->Raw("GET", "/version", "", "", k8s::Idempotency::kIdempotent, deadline),
        [done = std::move(done)](const std::exception_ptr&,
                                 const absl::StatusOr<k8s::RawResponse>&) { done(); });
  };
  inputs.set_ready = [&grpc](bool ready) { grpc.SetReady(ready); };
  return inputs;
}

void LogListening(const server::Config& config, int port, bool caller_auth,
                  const spark::OperatorBackend& backend, const std::string& kube_source,
                  bool cached) {
  std::string host = config.server.listen.substr(0, config.server.listen.rfind(':'));
  log::Info("listening")
      .Kv("address", absl::StrCat(host, ":", port))
      .Kv("port", port)
      .Kv("tls", !config.server.tls_cert_file.empty())
      .Kv("mtls", !config.server.tls_client_ca_file.empty())
      .Kv("caller_auth", caller_auth ? "token" : "none")
      .Kv("cluster", config.cluster)
      .Kv("operator", std::string(backend.Name()))
      .Kv("namespace", config.namespace_)
      .Kv("kubernetes", kube_source)
      .Kv("status_cache", cached ? "informer" : "off");
}

void LogHealthListening(const server::Config& config, int health_port) {
  if (health_port == 0) return;
  std::string host = config.server.health_listen.substr(0, config.server.health_listen.rfind(':'));
  log::Info("health listening")
      .Kv("address", absl::StrCat(host, ":", health_port))
      .Kv("health_port", health_port);
}

// The service in its process, from the Kubernetes client to the gRPC port, until a signal ends
// it; every part is the process's, which stops them whichever way this returns.
int Serve(const server::Config& config, k8s::ConnectionConfig connection,
          k8s::RequestMetrics& k8s_requests) {
  Process process(ProcessOptionsFrom(config));
  const std::string kube_source = connection.source;
  auto limiter = std::make_shared<k8s::RequestLimiter>(LimiterOptionsFrom(config));
  auto client = k8s::NewClient(process.io(), std::move(connection),
                               ClientOptionsFrom(config, &k8s_requests, limiter));
  if (!client.ok()) return Refuse(kUnusableConnection, client.status());

  const Clock& clock = RealClock::Get();
  // The name was checked with the configuration.
  std::shared_ptr<const spark::OperatorBackend> backend =
      *spark::NewOperatorBackend(config.operator_name, OperatorOptionsFrom(config));
  Interner::Global().set_max_bytes(static_cast<size_t>(config.server.max_interned_bytes));
  auto& cache = process.Keep(
      std::make_unique<cache::AppCache>(process.io(), *client, InformerOptionsFrom(backend),
                                        CacheOptionsFrom(config), clock),
      &cache::AppCache::Stop);
  executor::NamespacePolicy policy(config.server.allowed_namespaces);
  const std::vector<std::string> configured = policy.Configured(config.namespace_);
  auto& executor = process.Keep(
      std::make_unique<executor::Executor>(process.io(), *client, cache, std::move(policy),
                                           ExecutorOptionsFrom(config), clock, backend));

  server::TokenAuthenticator* auth = nullptr;
  if (!config.server.token_file.empty()) {
    auto loaded = server::TokenAuthenticator::FromFile(config.server.token_file);
    if (!loaded.ok()) return Refuse(kInvalidConfiguration, loaded.status());
    auth = &process.Keep(*std::move(loaded));
  }
  server::Metrics& metrics = KeepMetrics(process, clock, k8s_requests, limiter, cache);
  metrics.SetJobStats([&executor] {
    server::Metrics::JobStats stats;
    stats.backend = std::string(executor.BackendName());
    for (const auto& [reason, count] : executor.RecentlyWaiting()) {
      stats.waiting.emplace_back(std::string(spark::WaitingReasonName(reason)), count);
    }
    const std::array<int64_t, 2> stops = executor.DeadlineStops();
    stats.queued_deadline_stops = stops[0];
    stats.run_deadline_stops = stops[1];
    for (size_t i = 0; i < executor::kRecordOutcomeCount; ++i) {
      const auto outcome = static_cast<executor::RecordOutcome>(i);
      stats.output_records.emplace_back(std::string(executor::RecordOutcomeName(outcome)),
                                        executor.RecordOutcomeCount(outcome));
    }
    return stats;
  });
  absl::StatusOr<server::MetricsHttpServer*> metrics_http =
      StartMetricsHttp(process, config, metrics);
  if (!metrics_http.ok()) return CantStart(metrics_http.status());

  // Without an endpoint nobody reads the counters: calls then skip the interceptor entirely.
  server::Metrics* counted = *metrics_http != nullptr ? &metrics : nullptr;
  auto& admission = process.Keep(std::make_unique<server::Admission>(
      config.server.max_concurrent_rpcs, config.server.max_streams, &metrics));
  auto stager = NewStager(config, clock);
  if (!stager.ok()) return Refuse(kInvalidConfiguration, stager.status());
  staging::Stager* staged = *stager ? &process.Keep(*std::move(stager)) : nullptr;
  executor.EnableStaging(staged);
  auto& service = process.Keep(
      std::make_unique<server::JobExecutorService>(&executor, auth, &metrics, &admission));
  service.EnableStaging(staged);
  auto started = server::GrpcServer::Start(config.server, {&service}, counted);
  if (!started.ok()) return CantStart(started.status());
  auto& grpc = process.Keep(*std::move(started),
                            [](server::GrpcServer& s) { s.Shutdown(absl::ZeroDuration()); });
  LogListening(config, grpc.port(), auth != nullptr, *backend, kube_source, cache.enabled());
  LogHealthListening(config, grpc.health_port());
  // The configured namespaces are followed from the start (others from their first lookup),
  // once the port is up: the first LIST's TLS handshake and parsing would otherwise compete with
  // start-up for the CPU. Reads before the first sync GET what they need.
  for (const auto& ns : configured) cache.Pin(ns);
  // Application metrics from those namespaces' informers (after the pins: a subscription to a
  // namespace not followed yet would start an informer of its own).
  auto job_metrics =
      std::make_shared<executor::JobMetrics>(configured, executor.JobStatusMapper(), clock);
  auto& feed =
      process.Keep(std::make_unique<executor::JobMetricsFeed>(
                       cache, job_metrics, static_cast<size_t>(config.server.max_queued_changes)),
                   &executor::JobMetricsFeed::Stop);
  if (cache.enabled()) {
    for (const auto& ns : configured) {
      if (absl::Status followed = feed.Follow(ns); !followed.ok()) {
        log::Warn("job metrics can't follow").Kv("namespace", ns).Kv("error", followed.ToString());
      }
    }
  }
  metrics.AddCollectable(
      server::NewAppMetricsCollector(job_metrics, std::string(executor.BackendName())));

  auto& readiness =
      process.Keep(std::make_unique<ReadinessMonitor>(
                       process.io().get_executor(), ReadinessOptionsFrom(config),
                       ReadinessInputsOf(process.io(), cache, k8s_requests, *client, grpc), clock),
                   &ReadinessMonitor::Stop);
  readiness.Start();
  // Stops jobs whose deadline passed while nobody asks for their status; the mark on the
  // application makes each stop happen once, whichever replica gets there first.
  auto& deadlines =
      process.Keep(std::make_unique<PeriodicSweep>(
                       process.io().get_executor(), absl::Milliseconds(config.deadline_sweep_ms),
                       absl::Seconds(30),
                       [&executor](absl::Time deadline, PeriodicSweep::Done done) {
                         return executor.SweepDeadlines(deadline, std::move(done));
                       },
                       [](const absl::StatusOr<int64_t>& stopped_jobs) {
                         if (!stopped_jobs.ok()) {
                           log::Warn("the deadline sweep failed")
                               .Kv("error", std::string(stopped_jobs.status().message()));
                         }
                       }),
                   &PeriodicSweep::Stop);
  deadlines.Start();
  // Removes staged files no application names any more.
  PeriodicSweep* sweeper = nullptr;
  if (staged != nullptr) {
    const absl::Duration grace = absl::Milliseconds(config.staging.sweep_grace_ms);
    sweeper = &process.Keep(
        std::make_unique<PeriodicSweep>(
            process.io().get_executor(), absl::Milliseconds(config.staging.sweep_interval_ms),
            absl::Seconds(60),
            [&executor, grace](absl::Time deadline, PeriodicSweep::Done done) {
              return executor.SweepStaged(grace, deadline, std::move(done));
            },
            [](const absl::StatusOr<int64_t>& deleted) {
              if (!deleted.ok()) {
                log::Warn("the sweep of staged files failed; the next one tries again")
                    .Kv("error", std::string(deleted.status().message()));
              } else if (*deleted > 0) {
                log::Info("staged files removed: no application names them").Kv("files", *deleted);
              }
            }),
        &PeriodicSweep::Stop);
    sweeper->Start();
  }
  auto& keeper =
      process.Keep(std::make_unique<OutputKeeper>(executor, configured), &OutputKeeper::Stop);
  keeper.Start();

  process.WaitForShutdownSignal();
  keeper.Stop();
  deadlines.Stop();
  if (sweeper != nullptr) sweeper->Stop();
  readiness.Stop();
  log::Info("draining").Kv("deadline_ms", config.server.drain_timeout_ms);
  grpc.Shutdown(absl::Milliseconds(config.server.drain_timeout_ms));
  return kExitOk;
}

}  // namespace

std::string ServeUsage() {
  return "usage: k8s-job-executor serve [--config FILE] [--listen HOST:PORT] [--set KEY=VALUE]...\n"
         "                              [--log-level debug|info|warn|error] [--log-format "
         "text|json]\n"
         "                              [--check-config]\n"
         "\n"
         "Configuration keys come from, later ones winning: defaults, the YAML file given with\n"
         "--config, K8S_JOB_EXECUTOR_<KEY> environment variables (e.g. "
         "K8S_JOB_EXECUTOR_SPARK_IMAGE\n"
         "for spark.image), then flags. See README.md for every key.\n"
         "--check-config checks all of it without the network, prints what would run and exits\n"
         "(0, or 2 with what to fix).\n";
}

absl::StatusOr<std::string> CheckConfiguration(const server::ConfigSources& sources,
                                               const k8s::Environment& env) {
  absl::StatusOr<server::Config> config = server::LoadConfig(sources);
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(kInvalidConfiguration), ": ", config.status().message()));
  }
  absl::StatusOr<k8s::ConnectionConfig> connection =
      k8s::ResolveConnection(ConnectionOptionsFrom(*config), env);
  if (!connection.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(ToAbsl(kUnusableConnection), ": ", connection.status().message()));
  }
  if (!config->server.token_file.empty()) {
    auto auth = server::TokenAuthenticator::FromFile(config->server.token_file);
    if (!auth.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(ToAbsl(kInvalidConfiguration), ": ", auth.status().message()));
    }
  }
  const server::ServerConfig& srv = config->server;
  return absl::StrCat(
      "configuration OK\n", "operator         ", config->operator_name, "\n", "kubernetes       ",
      connection->server_url, " (", connection->source, ")\n", "namespace        ",
      config->namespace_,
      srv.allowed_namespaces.empty()
          ? ""
          : absl::StrCat(" (allowed: ", absl::StrJoin(srv.allowed_namespaces, ", "), ")"),
      "\n", "listen           ", srv.listen, srv.tls_cert_file.empty() ? " (plaintext)" : " (TLS)",
      "\n", "callers          ",
      srv.token_file.empty() ? "not authenticated" : "bearer token (server.tokenFile)", "\n",
      "metrics          ", srv.metrics_listen.empty() ? "off" : srv.metrics_listen, "\n");
}

absl::StatusOr<ServeArgs> ParseServeArgs(const std::vector<std::string>& args) {
  ServeArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      out.help = true;
      continue;
    }
    if (arg == "--check-config") {
      out.check_config = true;
      continue;
    }
    if (!absl::StartsWith(arg, "--")) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument ", QuoteBounded(arg)));
    }
    std::string name = arg;
    std::string value;
    bool has_value = false;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    static const char* const kKnown[] = {"--config", "--listen", "--set", "--log-level",
                                         "--log-format"};
    bool known = false;
    for (const char* k : kKnown) known |= name == k;
    if (!known) return absl::InvalidArgumentError(absl::StrCat("unknown flag ", name));
    if (!has_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
      }
      value = args[++i];
    }
    if (name == "--config") {
      out.sources.yaml_path = value;
    } else if (name == "--listen") {
      out.sources.flags.emplace_back("server.listen", value);
    } else if (name == "--log-level") {
      out.sources.flags.emplace_back("server.logLevel", value);
    } else if (name == "--log-format") {
      out.sources.flags.emplace_back("server.logFormat", value);
    } else {  // --set
      size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("--set needs KEY=VALUE, got ", QuoteBounded(value)));
      }
      out.sources.flags.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    }
  }
  return out;
}

int RunServe(const ServeArgs& args) {
  SetMutexDeadlockDetection();
  server::ConfigSources sources = args.sources;
  sources.env = ProcessEnvironment();
  if (args.check_config) {
    absl::StatusOr<std::string> checked = CheckConfiguration(sources, k8s::Environment::Process());
    if (!checked.ok()) {
      std::cerr << "k8s-job-executor: " << checked.status().message() << "\n";
      return kExitBadConfiguration;
    }
    std::cout << *checked;
    return kExitOk;
  }
  absl::StatusOr<server::Config> config = server::LoadConfig(sources);
  if (!config.ok()) return Refuse(kInvalidConfiguration, config.status());
  log::Configure(*log::ParseLevel(config->server.log_level),
                 *log::ParseFormat(config->server.log_format));
  SetSensitiveWords(config->server.sensitive_keys);
  server::RouteProtobufLog();
  server::RouteGrpcCoreLog();

  absl::StatusOr<k8s::ConnectionConfig> connection =
      k8s::ResolveConnection(ConnectionOptionsFrom(*config), k8s::Environment::Process());
  if (!connection.ok()) return Refuse(kUnusableConnection, connection.status());
  // Outlives the process's io_context, where the client's last operations may still be pending.
  k8s::RequestMetrics k8s_requests;
  const int exit_code = Serve(*config, *std::move(connection), k8s_requests);
  if (exit_code == kExitOk) log::Info("stopped");
  return exit_code;
}

}  // namespace kje::app
