#pragma once

// What a job template resolves to before any operator's resource is written: the Java
// executor's submit rules, which hold whatever operator runs the job (the checks of the template
// and its resources, the merged Spark conf, the namespace, the name and the execution id). Each
// backend's builder writes its own resource from one of these.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "spark/deadline.h"
#include "spark/execution_id.h"
#include "spark/job_template.h"
#include "spark/monitoring.h"
#include "spark/pod_template.h"
#include "spark/restart.h"

namespace kje::spark {

// One Spark conf value and where it came from, for errors that name the source.
struct ConfValue {
  std::string value;
  std::string source;
};
using MergedConf = std::map<std::string, ConfValue>;

struct ResolvedJob {
  // The template's name, quoted and bounded once: every message names it.
  std::string template_name;
  // The executable to run: a built-in template's server-local one is replaced by the image's
  // jobs jar (BuilderOptions::builtin_jobs_jar).
  std::string executable;
  std::string class_name;  // "" when blank
  std::vector<std::string> arguments;
  std::vector<std::string> jars;
  std::vector<std::string> files;
  std::vector<std::string> archives;
  // The merged Spark conf, sorted by key like the Java TreeMap: no blank values, and neither
  // spark.master nor spark.submit.deployMode (the operator sets both).
  MergedConf conf;
  std::string namespace_;
  std::string name;
  ExecutionId execution_id;
  // The batch scheduler (BuilderOptions::queue_scheduler) and the queue the job goes to: the
  // template's custom field `queue`, else the deployment's queue.name; "" for none.
  QueueScheduler queue_scheduler = QueueScheduler::kNone;
  std::string queue;
  // The template's maxQueuedSeconds and maxRunSeconds custom fields, else the deployment's.
  Deadlines deadlines;
  // The driver's and executors' pod templates (spark/pod_template.h), and the Secret of the
  // template's environment variables they read (its values stay in the template).
  PodTemplates pod_templates;
  EnvironmentSecret env_secret;
  // The template's restart policy (custom fields restartPolicy and the retries').
  RestartPolicy restart;
  // The deployment's monitoring, with the template's custom field `monitoring` applied.
  Monitoring monitoring;
  // What was ignored and the caller should log (never a value).
  std::vector<std::string> warnings;
};

// The checks and the merge BuildSparkApplication documents, without writing a resource: the
// same errors for the same templates.
absl::StatusOr<ResolvedJob> ResolveJob(std::string_view job_id, std::string_view metalake,
                                       const SparkTemplate& spark_template,
                                       const BuilderOptions& options);

// Whether Kueue queues the job: its app gets the label kueue.x-k8s.io/queue-name.
inline bool QueuedByKueue(const ResolvedJob& job) {
  return job.queue_scheduler == QueueScheduler::kKueue && !job.queue.empty();
}

// The environment variables' Secret of a built application (BuiltApplication::env_secret_*),
// labelled as the application is; nothing when the job has none.
void AddEnvironmentSecret(const ResolvedJob& job, const SparkTemplate& spark_template,
                          const std::map<std::string, std::string>& labels,
                          BuiltApplication& built);

// INVALID_ARGUMENT naming the size and the limit when an application's JSON is over
// options.max_application_bytes.
absl::Status CheckApplicationSize(size_t bytes, const ResolvedJob& job,
                                  const BuilderOptions& options);

// The text without leading and trailing ASCII whitespace.
std::string_view TrimmedText(std::string_view text);

}  // namespace kje::spark
