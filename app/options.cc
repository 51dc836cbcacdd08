#include "app/options.h"

#include <utility>

#include "spark/cancel_keep.h"
#include "spark/monitoring.h"

namespace kje::app {

k8s::ConnectionOptions ConnectionOptionsFrom(const server::Config& config) {
  return {config.kubeconfig, config.context, config.master_url, config.ca_cert_file,
          config.token_file};
}

k8s::LimiterOptions LimiterOptionsFrom(const server::Config& config) {
  return {config.kubernetes.qps, config.kubernetes.burst,
          static_cast<size_t>(config.kubernetes.max_in_flight)};
}

k8s::ClientOptions ClientOptionsFrom(const server::Config& config, k8s::RequestMetrics* metrics,
                                     std::shared_ptr<k8s::RequestLimiter> limiter) {
  k8s::ClientOptions options;
  options.metrics = metrics;
  options.limiter = std::move(limiter);
  // As many idle connections kept as requests may be in flight at once (the limiter's places):
  // with fewer, each burst past the pool's size closes its extra connections after their answers
  // and opens them again, a full TLS handshake per request, which costs more CPU than the
  // request itself (at 32 Submits in flight against a pool of 16, half of the throughput).
  options.max_idle_connections = static_cast<size_t>(config.kubernetes.max_in_flight);
  return options;
}

spark::OperatorOptions OperatorOptionsFrom(const server::Config& config) {
  spark::OperatorOptions options;
  options.driver_start_timeout = absl::Milliseconds(config.spark.driver_start_timeout_ms);
  return options;
}

cache::InformerOptions InformerOptionsFrom(std::shared_ptr<const spark::OperatorBackend> backend) {
  cache::InformerOptions options;
  const spark::ResourceKind apps = backend->Applications();
  options.collection = k8s::CollectionRef(apps.group, apps.version, apps.plural, "");
  options.label_selector = backend->ManagedSelector();
  options.project = [backend = std::move(backend)](const rapidjson::Value& app) {
    return backend->Project(app);
  };
  return options;
}

cache::CacheOptions CacheOptionsFrom(const server::Config& config) {
  cache::CacheOptions options;
  options.enabled = config.status_cache_ttl_ms > 0;
  options.max_on_demand = static_cast<size_t>(config.server.max_on_demand_informers);
  return options;
}

executor::ExecutorOptions ExecutorOptionsFrom(const server::Config& config) {
  executor::ExecutorOptions options;
  spark::BuilderOptions& b = options.builder;
  b.cluster = config.cluster;
  b.namespace_ = config.namespace_;
  b.name_prefix = config.name_prefix;
  b.image = config.spark.image;
  b.spark_version = config.spark.spark_version;
  b.service_account = config.spark.service_account;
  b.resource_retain_duration_ms = config.spark.resource_retain_duration_ms;
  b.ttl_after_stop_ms = config.spark.ttl_after_stop_ms;
  b.driver_start_timeout_ms = config.spark.driver_start_timeout_ms;
  b.driver_ready_timeout_ms = config.spark.driver_ready_timeout_ms;
  b.builtin_jobs_jar = config.spark.builtin_jobs_jar;
  b.conf = config.spark.conf;
  b.environment_secrets = config.spark.environment_secrets;
  // LoadConfig has checked the scheduler's name.
  b.queue_scheduler =
      spark::ParseQueueScheduler(config.queue.scheduler).value_or(spark::QueueScheduler::kNone);
  b.queue_name = config.queue.name;
  b.max_queued_seconds = config.max_queued_seconds;
  b.max_run_seconds = config.max_run_seconds;
  // LoadConfig has checked the list.
  (void)spark::ParseMonitoringExpose(config.monitoring.expose, "monitoring.expose", b.monitoring);
  b.monitoring.jmx_exporter_jar = config.monitoring.jmx_exporter_jar;
  b.monitoring.port = config.monitoring.port;
  options.no_status_timeout = absl::Milliseconds(config.no_status_timeout_ms);
  options.waiting_grace = absl::Milliseconds(config.waiting_grace_ms);
  options.waiting_refresh = absl::Milliseconds(config.waiting_refresh_ms);
  // LoadConfig has checked the mode.
  options.cancel_mode =
      spark::ParseCancelMode(config.cancel_mode, "cancelMode").value_or(spark::CancelMode::kDelete);
  options.max_queued_changes = static_cast<size_t>(config.server.max_queued_changes);
  options.max_watched_jobs = static_cast<size_t>(config.server.max_watched_jobs);
  options.max_follow = absl::Seconds(config.server.max_follow_seconds);
  if (!config.links.empty()) {
    options.links = std::make_shared<const spark::LinkTemplates>(config.links);
  }
  options.max_ui_proxy_bytes = static_cast<size_t>(config.server.max_ui_proxy_bytes);
  options.keep_output = config.output.keep;
  options.keep_as_secret = config.output.keep_as_secret;
  options.keep_max_lines = config.output.keep_max_lines;
  options.keep_max_bytes = config.output.keep_max_bytes;
  options.keep_max_events = static_cast<size_t>(config.output.keep_max_events);
  options.keep_max_in_flight = static_cast<size_t>(config.output.keep_max_in_flight);
  options.keep_per_second = config.output.keep_per_second;
  options.keep_max_pending = static_cast<size_t>(config.output.keep_max_pending);
  return options;
}

server::MetricsHttpOptions MetricsHttpOptionsFrom(const server::Config& config) {
  server::MetricsHttpOptions options;
  options.listen = config.server.metrics_listen;
  return options;
}

}  // namespace kje::app
