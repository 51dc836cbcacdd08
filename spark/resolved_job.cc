#include "spark/resolved_job.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/mask.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "spark/build_error.h"
#include "spark/names.h"
#include "spark/staged_reference.h"

namespace kje::spark {
namespace {

// The executor's own configuration can't make this job: not the caller's to fix.
absl::Status ServerConfigError(absl::string_view message) {
  return TagBuildError(BuildInput::kServerConfig, absl::FailedPreconditionError(message));
}

constexpr std::string_view kBuiltinPrefix = "builtin-";
constexpr std::string_view kK8sMasterPrefix = "k8s://";

using Conf = MergedConf;

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
    std::string_view mode = TrimmedText(it->second.value);
    if (mode == "client") {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(kConfDeployMode), "=client of ", it->second.source,
          " isn't supported: the k8s job executor runs Spark jobs in cluster mode only"));
    }
    if (mode != "cluster") {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(kConfDeployMode), " of ", it->second.source, " must be cluster or unset, not ",
          QuoteBounded(MaskValue(kConfDeployMode, mode))));
    }
    conf.erase(it);  // The operator builds the driver in cluster mode itself.
  }
  if (auto it = conf.find(std::string(kConfMaster)); it != conf.end()) {
    std::string_view master = TrimmedText(it->second.value);
    if (!absl::StartsWith(ToAbsl(master), ToAbsl(kK8sMasterPrefix))) {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(kConfMaster), " of ", it->second.source, " is ",
          QuoteBounded(MaskValue(kConfMaster, master)),
          ", which isn't a k8s:// master: the job runs on the Kubernetes cluster of the "
          "executor"));
    }
    conf.erase(it);  // The operator sets the cluster's own master.
  }
  return absl::OkStatus();
}

absl::Status CheckReachable(std::string_view uri) {
  if (!IsValidUri(uri)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid resource URI: ", QuoteBounded(MaskText(uri))));
  }
  if (IsClusterReachable(uri)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "Resource ", QuoteBounded(MaskText(uri)),
      " of the job is a path on the Gravitino server, which the Spark job on Kubernetes can't "
      "reach. Use a URI reachable from the cluster instead, such as local:// for a file in the "
      "image, https://, s3a:// or hdfs://"));
}

// A few names of the template's environment variables, enough to act on (a template may set
// thousands); never a value.
std::string EnvNamesShown(const std::map<std::string, std::string>& environments) {
  constexpr size_t kNamesShown = 5;
  std::vector<std::string> names;
  for (const auto& [name, value] : environments) {
    if (names.size() == kNamesShown) {
      names.push_back(absl::StrCat("and ", environments.size() - kNamesShown, " more"));
      break;
    }
    names.push_back(QuoteBounded(name, 48));
  }
  return absl::StrJoin(names, ", ");
}

// The checks of the template itself, before its conf is looked at.
absl::Status CheckTemplate(std::string_view job_id, std::string_view metalake,
                           const SparkTemplate& spark_template, const BuilderOptions& options,
                           const std::string& template_name) {
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
    return ServerConfigError("The executor is configured without a Spark image or Spark version");
  }
  RETURN_IF_ERROR(TagBuildError(BuildInput::kJobId, ValidateJobId(options.name_prefix, job_id)));
  if (!spark_template.environments.empty() && !options.environment_secrets) {
    // Values may be secrets: only the names are ever quoted.
    return absl::InvalidArgumentError(absl::StrCat(
        "Job template ", template_name, " sets environment variables [",
        EnvNamesShown(spark_template.environments),
        "], which this k8s job executor doesn't take (spark.environmentSecrets is off). Pass "
        "them as Spark configurations instead, for example spark.kubernetes.driverEnv.<name> and "
        "spark.executorEnv.<name>"));
  }
  for (const auto& [name, value] : spark_template.environments) {
    if (!IsEnvVarName(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Job template ", template_name, " sets the environment variable ", QuoteBounded(name, 48),
          ", which isn't a valid name: letters, digits, '_', '-' and '.', not starting with a "
          "digit"));
    }
  }
  if (HasControlByte(metalake)) {
    return absl::InvalidArgumentError(absl::StrCat("The metalake (annotation ",
                                                   ToAbsl(kAnnotationMetalake),
                                                   ") contains a control character"));
  }
  return absl::OkStatus();
}

// A built-in job applies its spark_conf inside the driver, too late for spark.jars and with
// spark.master meaning local mode there: it goes into the application's conf instead.
absl::Status MergeBuiltinSparkConf(Conf& merged, const SparkTemplate& spark_template,
                                   const std::string& template_name,
                                   std::vector<std::string>& warnings) {
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
  return MergeConf(merged, applied, absl::StrCat("the spark_conf of job template ", template_name));
}

// The queue the job goes to (ResolvedJob::queue) and the check of the scheduler name the conf
// may already set.
absl::Status ResolveQueue(const SparkTemplate& spark_template, const BuilderOptions& options,
                          ResolvedJob& job) {
  job.queue_scheduler = options.queue_scheduler;
  auto field = spark_template.custom_fields.find(std::string(kCustomFieldQueue));
  const bool named = field != spark_template.custom_fields.end() && !IsBlank(field->second);
  if (named && options.queue_scheduler == QueueScheduler::kNone) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Job template ", job.template_name, " names a queue in its custom field ",
        ToAbsl(kCustomFieldQueue),
        ", but this executor sends jobs to no batch scheduler (queue.scheduler is none)"));
  }
  if (options.queue_scheduler == QueueScheduler::kNone) return absl::OkStatus();
  job.queue = named ? std::string(TrimmedText(field->second)) : options.queue_name;
  if (!job.queue.empty()) {
    if (absl::Status bad = CheckQueueName(options.queue_scheduler, job.queue); !bad.ok()) {
      if (!named) {
        return ServerConfigError(absl::StrCat("The executor's queue.name ", bad.message()));
      }
      return absl::InvalidArgumentError(absl::StrCat("The custom field ", ToAbsl(kCustomFieldQueue),
                                                     " of job template ", job.template_name, " ",
                                                     bad.message()));
    }
  }
  // Kueue leaves the pods to the cluster's scheduler; the others are the pods' scheduler.
  if (options.queue_scheduler == QueueScheduler::kKueue) return absl::OkStatus();
  const std::string_view scheduler = QueueSchedulerName(options.queue_scheduler);
  if (auto it = job.conf.find(std::string(kConfSchedulerName));
      it != job.conf.end() && TrimmedText(it->second.value) != scheduler) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(kConfSchedulerName), " of ", it->second.source, " is ",
                     QuoteBounded(MaskValue(kConfSchedulerName, it->second.value)),
                     ", but this executor's jobs go through the batch scheduler ",
                     ToAbsl(scheduler), " (queue.scheduler): leave it unset"));
  }
  return absl::OkStatus();
}

// The deadlines (ResolvedJob::deadlines): a custom field, when set, wins over the default.
absl::Status ResolveDeadlines(const SparkTemplate& spark_template, const BuilderOptions& options,
                              ResolvedJob& job) {
  job.deadlines = Deadlines{options.max_queued_seconds, options.max_run_seconds};
  for (auto [field, out] :
       {std::pair{kCustomFieldMaxQueuedSeconds, &job.deadlines.max_queued_seconds},
        std::pair{kCustomFieldMaxRunSeconds, &job.deadlines.max_run_seconds}}) {
    auto it = spark_template.custom_fields.find(std::string(field));
    if (it == spark_template.custom_fields.end() || IsBlank(it->second)) continue;
    absl::StatusOr<int64_t> seconds = ParseDeadlineSeconds(
        TrimmedText(it->second),
        absl::StrCat("The custom field ", ToAbsl(field), " of job template ", job.template_name));
    if (!seconds.ok()) return seconds.status();
    *out = *seconds;
  }
  return absl::OkStatus();
}

}  // namespace

std::string_view TrimmedText(std::string_view text) {
  return ToStd(absl::StripAsciiWhitespace(ToAbsl(text)));
}

absl::StatusOr<ResolvedJob> ResolveJob(std::string_view job_id, std::string_view metalake,
                                       const SparkTemplate& given, const BuilderOptions& options) {
  ResolvedJob job;
  job.template_name = QuoteBounded(given.name);
  // Staged references become the store's URIs first, so every rule below judges URIs.
  ASSIGN_OR_RETURN(const SparkTemplate spark_template, WithStagedUris(given, job.template_name));
  RETURN_IF_ERROR(CheckTemplate(job_id, metalake, spark_template, options, job.template_name));
  const bool builtin = absl::StartsWith(spark_template.name, ToAbsl(kBuiltinPrefix));
  job.executable = spark_template.executable;
  if (builtin && !IsClusterReachable(job.executable)) {
    // Built-in jobs name the jobs jar on the server; the Spark image carries its own copy.
    if (!IsValidUri(options.builtin_jobs_jar) || !IsClusterReachable(options.builtin_jobs_jar)) {
      return ServerConfigError(absl::StrCat(
          "The executor's spark.builtinJobsJar isn't a URI reachable from the cluster: ",
          QuoteBounded(options.builtin_jobs_jar)));
    }
    job.executable = options.builtin_jobs_jar;
  }
  RETURN_IF_ERROR(CheckReachable(job.executable));
  for (const auto* list : {&spark_template.jars, &spark_template.files, &spark_template.archives}) {
    for (const std::string& uri : *list) {
      RETURN_IF_ERROR(CheckReachable(uri));
    }
  }

  // Later sources override earlier ones.
  RETURN_IF_ERROR(MergeConf(job.conf, options.conf, "the executor's defaults (spark.conf.*)"));
  RETURN_IF_ERROR(MergeConf(job.conf, spark_template.staged_conf, "the staging store (staging.*)"));
  RETURN_IF_ERROR(MergeConf(job.conf, spark_template.configs,
                            absl::StrCat("job template ", job.template_name)));
  if (builtin) {
    RETURN_IF_ERROR(
        MergeBuiltinSparkConf(job.conf, spark_template, job.template_name, job.warnings));
  }
  RETURN_IF_ERROR(CheckDeployModeAndMaster(job.conf));
  RETURN_IF_ERROR(ResolveQueue(spark_template, options, job));
  RETURN_IF_ERROR(ResolveDeadlines(spark_template, options, job));
  ASSIGN_OR_RETURN(job.restart,
                   ParseRestartPolicy(spark_template.custom_fields, job.template_name));
  ASSIGN_OR_RETURN(job.monitoring, ResolveMonitoring(spark_template.custom_fields,
                                                     options.monitoring, job.template_name));

  job.namespace_ = options.namespace_;
  if (auto it = job.conf.find(std::string(kConfNamespace));
      it != job.conf.end() && !IsBlank(it->second.value)) {
    job.namespace_ = std::string(TrimmedText(it->second.value));
    if (!IsDns1123Label(job.namespace_)) {
      return absl::InvalidArgumentError(
          absl::StrCat(ToAbsl(kConfNamespace), " of job template ", job.template_name,
                       " isn't a valid namespace name: ", QuoteBounded(job.namespace_)));
    }
  }
  if (!IsDns1123Label(job.namespace_)) {
    return ServerConfigError(
        absl::StrCat("The executor's default namespace isn't a valid namespace name: ",
                     QuoteBounded(job.namespace_)));
  }
  job.name = ResourceName(options.name_prefix, job_id);
  absl::StatusOr<ExecutionId> id =
      ExecutionId::Of(options.cluster, kKindSparkApp, job.namespace_, job.name);
  if (!id.ok()) return ServerConfigError(id.status().message());
  job.execution_id = *std::move(id);
  if (!IsBlank(spark_template.class_name)) job.class_name = spark_template.class_name;
  job.arguments = spark_template.arguments;
  job.jars = spark_template.jars;
  job.files = spark_template.files;
  job.archives = spark_template.archives;
  if (!spark_template.environments.empty()) {
    job.env_secret.name = EnvironmentSecretName(job.name);
    for (const auto& [name, value] : spark_template.environments)
      job.env_secret.names.push_back(name);
  }
  ASSIGN_OR_RETURN(job.pod_templates, ResolvePodTemplates(spark_template.custom_fields,
                                                          job.env_secret.name, job.template_name));
  return job;
}

void AddEnvironmentSecret(const ResolvedJob& job, const SparkTemplate& spark_template,
                          const std::map<std::string, std::string>& labels,
                          BuiltApplication& built) {
  if (job.env_secret.name.empty()) return;
  built.env_secret_name = job.env_secret.name;
  built.env_secret_json = BuildEnvironmentSecret(job.env_secret.name, job.namespace_, labels,
                                                 spark_template.environments);
}

absl::Status CheckApplicationSize(size_t bytes, const ResolvedJob& job,
                                  const BuilderOptions& options) {
  if (bytes <= options.max_application_bytes) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("The SparkApplication of job template ", job.template_name, " would be ", bytes,
                   " bytes, more than the limit of ", options.max_application_bytes,
                   " bytes of an object in etcd: shorten its arguments or configuration"));
}

}  // namespace kje::spark
