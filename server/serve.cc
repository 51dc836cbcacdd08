#include "server/serve.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "base/interner.h"
#include "base/log.h"
#include "base/quote.h"
#include "cache/app_cache.h"
#include "executor/executor.h"
#include "executor/namespace_policy.h"
#include "k8s/client.h"
#include "k8s/connection_config.h"
#include "server/grpc_server.h"
#include "server/job_executor_service.h"
#include "server/metrics.h"
#include "server/metrics_http.h"
#include "server/protobuf_log.h"
#include "server/readiness.h"
#include "spark/operators.h"

extern char** environ;

namespace kje::server {
namespace {

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

}  // namespace

std::string ServeUsage() {
  return "usage: k8s-job-executor serve [--config FILE] [--listen HOST:PORT] [--set KEY=VALUE]...\n"
         "                              [--log-level debug|info|warn|error] [--log-format "
         "text|json]\n"
         "\n"
         "Configuration keys come from, later ones winning: defaults, the YAML file given with\n"
         "--config, K8S_JOB_EXECUTOR_<KEY> environment variables (e.g. "
         "K8S_JOB_EXECUTOR_SPARK_IMAGE\n"
         "for spark.image), then flags. See README.md for every key.\n";
}

absl::StatusOr<ServeArgs> ParseServeArgs(const std::vector<std::string>& args) {
  ServeArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      out.help = true;
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
  // Debian's Abseil tracks every absl::Mutex in a global lock-order graph (a node per mutex,
  // edges per nested acquisition, under one global lock): a tenth of the CPU of a cached Status
  // call, whose reactor and operation each own a mutex. Tests turn it back on
  // (KJE_MUTEX_DEADLOCK_DETECTION=abort) so lock-order bugs still fail them.
  const char* detection = std::getenv("KJE_MUTEX_DEADLOCK_DETECTION");
  absl::SetMutexDeadlockDetectionMode(detection != nullptr && std::string_view(detection) == "abort"
                                          ? absl::OnDeadlockCycle::kAbort
                                          : absl::OnDeadlockCycle::kIgnore);
  ConfigSources sources = args.sources;
  sources.env = ProcessEnvironment();
  absl::StatusOr<Config> config = LoadConfig(sources);
  if (!config.ok()) {
    std::cerr << "k8s-job-executor: invalid configuration: " << config.status().message() << "\n";
    return 2;
  }
  log::Configure(*log::ParseLevel(config->server.log_level),
                 *log::ParseFormat(config->server.log_format));
  RouteProtobufLog();

  k8s::ConnectionOptions connection_options{config->kubeconfig, config->context, config->master_url,
                                            config->ca_cert_file, config->token_file};
  absl::StatusOr<k8s::ConnectionConfig> connection =
      k8s::ResolveConnection(connection_options, k8s::Environment::Process());
  if (!connection.ok()) {
    std::cerr << "k8s-job-executor: can't use the Kubernetes connection: "
              << connection.status().message() << "\n";
    return 2;
  }

  // Declared before everything that records into it (the client lives as long as its pending
  // operations on the io_context).
  k8s::RequestMetrics k8s_requests;

  // One io_context, a few threads, for every outbound conversation (the Kubernetes API) and for
  // the signals that end the process.
  boost::asio::io_context ioc;
  auto work = boost::asio::make_work_guard(ioc);
  std::vector<std::thread> io_threads;
  io_threads.reserve(config->server.io_threads);
  for (int i = 0; i < config->server.io_threads; ++i) {
    io_threads.emplace_back([&ioc] { ioc.run(); });
  }
  auto stop_io = [&] {
    work.reset();
    ioc.stop();
    for (auto& t : io_threads) t.join();
  };

  absl::Notification stop_requested;
  boost::asio::signal_set signals(ioc, SIGTERM, SIGINT);
  signals.async_wait([&](const boost::system::error_code& ec, int signo) {
    if (ec) return;
    log::Info("shutdown requested").Kv("signal", signo == SIGTERM ? "SIGTERM" : "SIGINT");
    stop_requested.Notify();
  });

  std::string kube_source = connection->source;
  k8s::ClientOptions client_options;
  client_options.metrics = &k8s_requests;
  auto limiter = std::make_shared<k8s::RequestLimiter>(
      k8s::LimiterOptions{config->kubernetes.qps, config->kubernetes.burst,
                          static_cast<size_t>(config->kubernetes.max_in_flight)});
  client_options.limiter = limiter;
  auto client = k8s::NewClient(ioc, *std::move(connection), client_options);
  if (!client.ok()) {
    std::cerr << "k8s-job-executor: can't use the Kubernetes connection: "
              << client.status().message() << "\n";
    stop_io();
    return 2;
  }

  const Clock& clock = RealClock::Get();
  // The operator's resource, selector and projection come from its backend, for the cache as for
  // the executor.
  spark::OperatorOptions operator_options;
  operator_options.driver_start_timeout = absl::Milliseconds(config->spark.driver_start_timeout_ms);
  // The name was checked with the configuration.
  std::shared_ptr<const spark::OperatorBackend> backend =
      *spark::NewOperatorBackend(config->operator_name, operator_options);
  cache::InformerOptions informer;
  const spark::ResourceKind apps = backend->Applications();
  informer.collection = k8s::CollectionRef(apps.group, apps.version, apps.plural, "");
  informer.label_selector = backend->ManagedSelector();
  informer.project = [backend](const rapidjson::Value& app) { return backend->Project(app); };
  cache::CacheOptions cache_options;
  cache_options.enabled = config->status_cache_ttl_ms > 0;
  cache_options.max_on_demand = static_cast<size_t>(config->server.max_on_demand_informers);
  Interner::Global().set_max_bytes(static_cast<size_t>(config->server.max_interned_bytes));
  cache::AppCache cache(ioc, *client, informer, cache_options, clock);

  executor::ExecutorOptions executor_options;
  spark::BuilderOptions& b = executor_options.builder;
  b.cluster = config->cluster;
  b.namespace_ = config->namespace_;
  b.name_prefix = config->name_prefix;
  b.image = config->spark.image;
  b.spark_version = config->spark.spark_version;
  b.service_account = config->spark.service_account;
  b.resource_retain_duration_ms = config->spark.resource_retain_duration_ms;
  b.ttl_after_stop_ms = config->spark.ttl_after_stop_ms;
  b.driver_start_timeout_ms = config->spark.driver_start_timeout_ms;
  b.driver_ready_timeout_ms = config->spark.driver_ready_timeout_ms;
  b.builtin_jobs_jar = config->spark.builtin_jobs_jar;
  b.conf = config->spark.conf;
  executor_options.no_status_timeout = absl::Milliseconds(config->no_status_timeout_ms);
  executor_options.max_queued_changes = static_cast<size_t>(config->server.max_queued_changes);
  executor_options.max_watched_jobs = static_cast<size_t>(config->server.max_watched_jobs);
  executor_options.max_follow = absl::Seconds(config->server.max_follow_seconds);
  executor::NamespacePolicy policy(config->namespace_, config->server.allowed_namespaces);
  std::vector<std::string> configured = policy.Configured();
  executor::Executor executor(ioc, *client, cache, std::move(policy), executor_options, clock,
                              backend);

  std::unique_ptr<TokenAuthenticator> auth;
  if (!config->server.token_file.empty()) {
    auto loaded = TokenAuthenticator::FromFile(config->server.token_file);
    if (!loaded.ok()) {
      std::cerr << "k8s-job-executor: invalid configuration: " << loaded.status().message() << "\n";
      cache.Stop();
      stop_io();
      return 2;
    }
    auth = *std::move(loaded);
  }
  Metrics metrics(KJE_VERSION, clock);
  metrics.SetKubernetesRequests(&k8s_requests);
  metrics.SetKubernetesLimiter(limiter);
  metrics.SetInformerStats([&cache] { return cache.Stats(); });
  for (const char* name : {"jobexecutor.v1.JobExecutor", "grpc.health.v1.Health"}) {
    if (const auto* d =
            google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(name)) {
      metrics.InitializeGrpcService(*d);
    }
  }
  // Up before the gRPC port, so that a scraper sees the process from its first RPC on.
  std::unique_ptr<MetricsHttpServer> metrics_http;
  if (!config->server.metrics_listen.empty()) {
    MetricsHttpOptions options;
    options.listen = config->server.metrics_listen;
    auto started = MetricsHttpServer::Start(options, [&metrics] { return metrics.Render(); });
    if (!started.ok()) {
      log::Error("can't start").Kv("error", std::string(started.status().message()));
      cache.Stop();
      stop_io();
      return 1;
    }
    metrics_http = *std::move(started);
    log::Info("metrics listening")
        .Kv("address", metrics_http->Address())
        .Kv("port", metrics_http->Port())
        .Kv("path", "/metrics");
  }

  // Without an endpoint nobody reads the counters: calls then skip the interceptor entirely.
  Metrics* counted = metrics_http != nullptr ? &metrics : nullptr;
  Admission admission(config->server.max_concurrent_rpcs, config->server.max_streams, &metrics);
  JobExecutorService service(&executor, auth.get(), &metrics, &admission);
  auto server = GrpcServer::Start(config->server, {&service}, counted);
  if (!server.ok()) {
    log::Error("can't start").Kv("error", std::string(server.status().message()));
    cache.Stop();
    stop_io();
    return 1;
  }
  std::string host = config->server.listen.substr(0, config->server.listen.rfind(':'));
  log::Info("listening")
      .Kv("address", absl::StrCat(host, ":", (*server)->port()))
      .Kv("port", (*server)->port())
      .Kv("tls", !config->server.tls_cert_file.empty())
      .Kv("mtls", !config->server.tls_client_ca_file.empty())
      .Kv("caller_auth", auth != nullptr ? "token" : "none")
      .Kv("cluster", config->cluster)
      .Kv("operator", std::string(backend->Name()))
      .Kv("namespace", config->namespace_)
      .Kv("kubernetes", kube_source)
      .Kv("status_cache", cache.enabled() ? "informer" : "off");
  // The configured namespaces are followed from the start (others from their first lookup),
  // once the port is up: the first LIST's TLS handshake and parsing would otherwise compete with
  // start-up for the CPU. Reads before the first sync GET what they need.
  for (const auto& ns : configured) cache.Pin(ns);

  // Readiness that tells the truth (server/readiness.h): with readinessRequiresSync NOT_SERVING
  // until the configured namespaces have synced, and at any time while one of their informers has
  // heard nothing from the API server for server.staleAfterMs (without the cache: while every
  // request has failed that long); SERVING again once it hears.
  // Judged on a timer of the io_context, never by blocking a thread.
  auto ready_strand = boost::asio::make_strand(ioc);
  boost::asio::steady_timer ready_timer(ready_strand);
  absl::Mutex ready_mu;
  bool draining = false;  // guarded by ready_mu: no readiness change once the drain began
  const absl::Duration stale_after = absl::Milliseconds(config->server.stale_after_ms);
  const bool requires_sync = config->server.readiness_requires_sync;
  // Often enough to notice within a fraction of the bound, never more than once a second.
  const auto period =
      std::chrono::milliseconds(std::clamp<int64_t>(config->server.stale_after_ms / 4, 10, 1000));
  std::optional<bool> ready_now;  // ready_strand only
  bool probing = false;           // ready_strand only: a probe of the API server is under way
  // Without informers the requests tell (JudgeApiReadiness); a quiet replica asks GET /version
  // (allowed to every authenticated client) so that it notices a recovery without traffic.
  auto probe = [&] {
    probing = true;
    const absl::Duration timeout = std::min(stale_after / 2, absl::Seconds(10));
    boost::asio::co_spawn(ready_strand,
                          (*client)->Raw("GET", "/version", "", "", k8s::Idempotency::kIdempotent,
                                         absl::Now() + timeout),
                          [&](const std::exception_ptr&, const absl::StatusOr<k8s::RawResponse>&) {
                            probing = false;
                          });
  };
  std::function<void()> check = [&] {
    std::vector<std::pair<std::string, cache::InformerStats>> informers = cache.PinnedStats();
    Readiness verdict;
    if (!informers.empty()) {
      verdict = JudgeReadiness(informers, clock.Now(), stale_after, requires_sync);
    } else {
      k8s::RequestMetrics::Health health = k8s_requests.ApiHealth();
      verdict = JudgeApiReadiness(health, absl::Now(), stale_after);
      if (!probing && ShouldProbe(health, absl::Now(), stale_after)) probe();
    }
    if (verdict.ready != ready_now) {
      absl::MutexLock lock(&ready_mu);
      if (draining) return;
      if (verdict.ready) {
        log::Info("ready").Kv("reason", verdict.reason);
      } else {
        log::Warn("not ready").Kv("reason", verdict.reason);
      }
      (*server)->SetReady(verdict.ready);
      ready_now = verdict.ready;
    }
    ready_timer.expires_after(period);
    ready_timer.async_wait([&](const boost::system::error_code& ec) {
      if (!ec) check();
    });
  };
  if (cache.enabled() && requires_sync) (*server)->SetReady(false);
  boost::asio::post(ready_strand, check);

  stop_requested.WaitForNotification();
  {
    absl::MutexLock lock(&ready_mu);
    draining = true;
  }
  boost::asio::post(ready_strand, [&] { ready_timer.cancel(); });
  absl::Duration drain = absl::Milliseconds(config->server.drain_timeout_ms);
  log::Info("draining").Kv("deadline_ms", config->server.drain_timeout_ms);
  (*server)->Shutdown(drain);
  server->reset();
  // Scrapeable through the drain; gone before the cache it reads.
  if (metrics_http != nullptr) metrics_http->Stop();
  cache.Stop();
  stop_io();
  log::Info("stopped");
  return 0;
}

}  // namespace kje::server
