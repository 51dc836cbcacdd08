#pragma once

// The service's configuration: the Java k8s job executor's keys (same names, defaults and
// validation) plus the server's own keys under
// `server.`. Sources, later ones winning: defaults, the YAML file, K8S_JOB_EXECUTOR_* environment
// variables, command-line flags.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "base/mask.h"
#include "spark/job_links.h"

namespace kje::server {

struct SparkConfig {
  std::string image;          // spark.image, required
  std::string spark_version;  // spark.sparkVersion, required
  std::string service_account = "spark";
  int64_t resource_retain_duration_ms = 86400000;  // 1 day
  int64_t ttl_after_stop_ms = 604800000;           // 7 days
  int64_t driver_start_timeout_ms = 3600000;       // 1 hour
  int64_t driver_ready_timeout_ms = 3600000;       // 1 hour
  std::string builtin_jobs_jar = "local:///opt/gravitino/jobs/gravitino-jobs.jar";
  // spark.environmentSecrets: a template's environment variables go into a Secret its pods read
  // (the service then needs secrets create/get/patch/delete); off, they are refused.
  bool environment_secrets = false;
  // spark.conf.<key>: server-level Spark configuration defaults, sorted by key.
  std::map<std::string, std::string> conf;
};

struct ServerConfig {
  std::string listen = "0.0.0.0:50051";
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;
  std::string token_file;      // callers must send "authorization: Bearer <its content>"
  std::string metrics_listen;  // empty: no metrics endpoint
  // A loopback HOST:PORT serving grpc.health.v1 alone, in plaintext, for the exec probes inside
  // the pod: they then need no CA, no certificate name and no client certificate. Empty: none.
  std::string health_listen;
  std::string log_level = "info";
  std::string log_format = "text";
  std::vector<std::string> allowed_namespaces;  // empty: any namespace
  // Words that make a conf key or argument sensitive: its value is masked in every answer, error,
  // event and log line (base/mask.h). Empty: nothing is masked.
  std::vector<std::string> sensitive_keys = DefaultSensitiveWords();
  int64_t drain_timeout_ms = 15000;
  int io_threads = 2;
  // Readiness stays NOT_SERVING until the configured namespaces' informers have synced.
  bool readiness_requires_sync = false;
  // Namespaces outside the configured ones followed at once for WatchStatus / FollowOutput.
  int max_on_demand_informers = 8;
  // Changes a WatchStatus caller may fall behind by before its stream ends RESOURCE_EXHAUSTED.
  int max_queued_changes = 1024;
  // Execution ids one WatchStatus may follow.
  int max_watched_jobs = 100;
  // How long one FollowOutput lasts at most without a deadline of the caller's (it may re-open).
  int64_t max_follow_seconds = 86400;
  // The largest Spark UI answer ProxyUi passes on (RESOURCE_EXHAUSTED past it).
  int64_t max_ui_proxy_bytes = 8 << 20;
  // An informer that has heard nothing from the API server this long makes the replica not
  // ready (app/readiness.h).
  int64_t stale_after_ms = 180000;
  // Global bounds (server/admission.h): unary RPCs in flight, open streams.
  int64_t max_concurrent_rpcs = 4096;
  int64_t max_streams = 16384;
  // Bytes of strings the cached applications share (namespaces, label keys, container names:
  // base/interner.h); past it each app keeps its own copies.
  int64_t max_interned_bytes = 1 << 20;
};

// The batch scheduler the jobs go through, and their default queue (spark/queue.h).
struct QueueConfig {
  std::string scheduler = "none";  // queue.scheduler: none, kueue, yunikorn or volcano
  std::string name;                // queue.name: "" for no queue unless a template names one
};

// Driver and executor metrics for Prometheus (spark/monitoring.h).
struct MonitoringConfig {
  std::string expose = "none";  // monitoring.expose: none, driver, executor or driver,executor
  // The Prometheus JMX exporter agent's jar in the image and its port, for an operator that
  // serves metrics through it (its builder refuses a job that exposes metrics without the jar).
  std::string jmx_exporter_jar;  // monitoring.jmxExporterJar
  int port = 8090;               // monitoring.port
};

// The kept record of an ended job (executor/output_keep.h): its driver log's tail, how the
// driver ended and its last Events, in an object the application owns.
struct OutputConfig {
  bool keep = true;                  // output.keep
  bool keep_as_secret = false;       // output.keepAsSecret: a Secret instead of a ConfigMap
  int64_t keep_max_lines = 1000;     // output.keepMaxLines
  int64_t keep_max_bytes = 262144;   // output.keepMaxBytes (the stamps count)
  int64_t keep_max_events = 50;      // output.keepMaxEvents
  int64_t keep_max_in_flight = 4;    // output.keepMaxInFlight: captures at once per replica
  double keep_per_second = 10;       // output.keepPerSecond: captures started a second
  int64_t keep_max_pending = 10000;  // output.keepMaxPending: per followed namespace
};

// The service's own limits on its requests to the Kubernetes API server (k8s/request_limiter.h).
struct KubernetesConfig {
  int64_t max_in_flight = 64;  // kubernetes.maxInFlight: requests at once, watches aside
  double qps = 100;            // kubernetes.qps: sustained requests a second (0: no limit)
  int64_t burst = 200;         // kubernetes.burst: requests above qps for a moment
};

// Where uploaded job files are staged (staging/): none, a volume shared with the drivers, or an
// S3-compatible object store. See README "Staged dependencies" for the RBAC and credentials.
struct StagingConfig {
  std::string store = "none";  // staging.store: none, volume or s3
  // staging.urlMode (s3): presigned https:// URLs, or s3a:// URIs read with the credentials of
  // the Secret staging.s3.credentialsSecret.
  std::string url_mode = "presigned";
  std::string volume_path;                         // staging.volume.path: the service's mount
  std::string volume_claim_name;                   // staging.volume.claimName: the pods' PVC
  std::string volume_mount_path = "/kje-staging";  // staging.volume.mountPath: the pods' mount
  std::string s3_endpoint;                         // staging.s3.endpoint: http(s)://host[:port]
  std::string s3_bucket;
  std::string s3_region = "us-east-1";
  std::string s3_prefix;                    // staging.s3.prefix: a key prefix inside the bucket
  std::string s3_access_key_file;           // else $AWS_ACCESS_KEY_ID
  std::string s3_secret_key_file;           // else $AWS_SECRET_ACCESS_KEY
  std::string s3_credentials_secret;        // urlMode s3a: the Secret the pods' env reads
  int64_t presign_expiry_seconds = 604800;  // the longest SigV4 allows: a week
  int64_t multipart_part_bytes = 16 << 20;
  int64_t max_file_bytes = int64_t{1} << 30;
  int64_t max_upload_bytes = int64_t{4} << 30;
  int64_t max_files_per_upload = 100;
  int64_t max_concurrent_uploads = 8;
  int threads = 2;
  int64_t sweep_interval_ms = 300000;
  int64_t sweep_grace_ms = 3600000;
};

struct Config {
  std::string cluster = "default";
  // `operator`: the Spark operator whose applications this deployment creates and reads, one of
  // spark::OperatorNames().
  std::string operator_name = "apache";
  std::string kubeconfig;
  std::string context;
  std::string master_url;
  std::string ca_cert_file;
  std::string token_file;
  std::string namespace_ = "default";
  std::string name_prefix = "gravitino-job";
  int64_t status_cache_ttl_ms = 5000;
  int64_t no_status_timeout_ms = 600000;
  int64_t waiting_grace_ms = 10000;
  int64_t waiting_refresh_ms = 15000;
  // Each job's deadlines unless its template sets its own; 0: none (spark/deadline.h).
  int64_t max_queued_seconds = 0;
  int64_t max_run_seconds = 0;
  // How often each replica looks for jobs past their deadline that nobody asks about.
  int64_t deadline_sweep_ms = 5000;
  // How Cancel (and a deadline) stops a job: "delete" its application (as the Java executor) or
  // "keep" it as the job's record (spark/cancel_keep.h).
  std::string cancel_mode = "delete";
  SparkConfig spark;
  QueueConfig queue;
  MonitoringConfig monitoring;
  OutputConfig output;
  ServerConfig server;
  KubernetesConfig kubernetes;
  // links.<name>: URL templates of JobInfo.links, parsed when the configuration loads (a template
  // naming an unknown variable stops the start), in name order.
  spark::LinkTemplates links;
  StagingConfig staging;
};

// Where the raw values come from. Each is optional.
struct ConfigSources {
  std::optional<std::string> yaml_path;  // --config FILE
  // The process environment; only K8S_JOB_EXECUTOR_* names are read, and one no key has is
  // refused, but for those Kubernetes injects for a Service of that name (_SERVICE_HOST and the
  // like) and the CLI's K8S_JOB_EXECUTOR_SERVER.
  std::map<std::string, std::string> env;
  // --set KEY=VALUE and the dedicated flags, in command-line order.
  std::vector<std::pair<std::string, std::string>> flags;
};

// Loads and validates. An error's message names the key and the rule, e.g.
// `namePrefix: must match [a-z]([-a-z0-9]*[a-z0-9])? …: "Bad_Prefix"`.
absl::StatusOr<Config> LoadConfig(const ConfigSources& sources);

// Same, from YAML text instead of a file (for tests and embedding).
absl::StatusOr<Config> LoadConfigFromYaml(const std::string& yaml, const ConfigSources& rest);

// The environment variable that sets `key`, e.g. "spark.sparkVersion" →
// "K8S_JOB_EXECUTOR_SPARK_SPARK_VERSION".
std::string EnvNameForKey(const std::string& key);

// Every key the service knows, in documentation order (spark.conf.* and links.* are prefixes, not
// listed).
const std::vector<std::string>& KnownConfigKeys();

}  // namespace kje::server
