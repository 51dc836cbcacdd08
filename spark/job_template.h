#pragma once

// A job as the service takes it, whatever the operator: the template with its placeholders
// resolved, the deployment's options that shape every application, and an application built by
// an operator's backend.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "spark/execution_id.h"
#include "spark/monitoring.h"
#include "spark/queue.h"

namespace kje::spark {

// The executor's configuration that shapes every SparkApplication (`gravitino.jobExecutor.k8s.*`
// in the Java executor; validated when the server starts).
struct BuilderOptions {
  std::string cluster = "default";
  std::string namespace_ = "default";  // Used unless the job sets spark.kubernetes.namespace.
  std::string name_prefix = "gravitino-job";
  std::string image;          // Required: spark.kubernetes.container.image unless the job sets it.
  std::string spark_version;  // Required: spec.runtimeVersions.sparkVersion.
  std::string service_account = "spark";
  int64_t resource_retain_duration_ms = 86400000;  // Keeps the driver pod and its log.
  int64_t ttl_after_stop_ms = 604800000;           // Then the app itself is deleted.
  int64_t driver_start_timeout_ms = 3600000;
  int64_t driver_ready_timeout_ms = 3600000;
  // The executable of built-in (`builtin-*`) templates whose own one is a server-local path.
  std::string builtin_jobs_jar = "local:///opt/gravitino/jobs/gravitino-jobs.jar";
  std::map<std::string, std::string> conf;  // Server-level Spark conf defaults.
  // The largest application JSON a Submit may send: etcd's limit on an object (1.5 MiB), so that
  // a cluster's late, opaque refusal becomes a clear one before anything is sent.
  size_t max_application_bytes = 1572864;
  // The batch scheduler every job goes through (queue.scheduler), and the queue a job goes to
  // unless its template names one (queue.name; "" for none).
  QueueScheduler queue_scheduler = QueueScheduler::kNone;
  std::string queue_name;
  // Each job's deadlines unless its template sets its own (maxQueuedSeconds, maxRunSeconds;
  // 0: none): written on its application (spark/deadline.h).
  int64_t max_queued_seconds = 0;
  int64_t max_run_seconds = 0;
  // Whether a template's environment variables go into a Secret its pods read
  // (spark.environmentSecrets); when off they are refused, as the Java executor refuses them.
  bool environment_secrets = false;
  // Driver and executor metrics unless a template says otherwise (monitoring.*).
  Monitoring monitoring;
};

// A Gravitino job template with its placeholders already resolved.
struct SparkTemplate {
  std::string name;
  std::string comment;
  std::string executable;
  std::vector<std::string> arguments;
  std::map<std::string, std::string> environments;
  std::map<std::string, std::string> custom_fields;
  bool is_shell = false;  // A SHELL template: rejected, only Spark jobs run on Kubernetes.
  std::string class_name;
  std::vector<std::string> jars;
  std::vector<std::string> files;
  std::vector<std::string> archives;
  std::map<std::string, std::string> configs;
  // Set by the executor from the staging store (spark/staged_reference.h), never by a caller:
  // the URI of each staged reference the template names, and the Spark conf a job that names
  // one needs to reach the store (a volume's mount, the s3a endpoint and credentials' Secret).
  std::map<std::string, std::string> staged_uris;
  std::map<std::string, std::string> staged_conf;
};

struct BuiltApplication {
  std::string namespace_;
  std::string name;
  ExecutionId execution_id;
  std::string json;  // The application to POST, in the operator's own API.
  // The labels it carries (a schedule of it carries them too, and copies them to its runs).
  std::map<std::string, std::string> labels;
  // What the builder ignored and the caller should log (never a value: values may be secrets).
  std::vector<std::string> warnings;
  // The Secret of the template's environment variables, created before the application and
  // owned by it once it exists; "" when there is none. `env_secret_json` holds the values: it
  // goes to the API server and nowhere else.
  std::string env_secret_name;
  std::string env_secret_json;
  // The application's apiVersion and kind, for the Secret's owner reference.
  std::string api_version;
  std::string kind;
  // The template's hashes (spark/template_hash.h), also the app's annotation template-hash.
  std::string template_hash;
};

// The Spark conf of a built-in job's `--spark-conf` argument (a JSON object; numbers and
// booleans as their text, null as blank); empty when the argument is absent or blank.
// INVALID_ARGUMENT, without quoting the text, when it isn't a JSON object of scalars.
absl::StatusOr<std::map<std::string, std::string>> ParseSparkConfArgument(
    const std::vector<std::string>& arguments);

// The scheme of a URI ("https", "local"), or "" when the text has none (a plain path).
std::string_view UriScheme(std::string_view uri);
// Whether the text is a URI as java.net.URI accepts it, roughly: no spaces, controls or
// "<>\\^`{|}, well-formed %-escapes, at most one '#', and something after "scheme:".
bool IsValidUri(std::string_view uri);
// Whether the cluster can fetch the resource: it has a URI scheme other than `file`.
bool IsClusterReachable(std::string_view uri);
// Whether the URI's path (query and fragment ignored), lower-cased, ends with ".py".
bool IsPythonResource(std::string_view uri);
// The same for ".r" (an R script).
bool IsRResource(std::string_view uri);

}  // namespace kje::spark
