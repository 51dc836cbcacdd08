#include "spark/kubeflow/app_builder.h"

#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/mask.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "spark/build_error.h"
#include "spark/json_writer.h"
#include "spark/kubeflow/names.h"
#include "spark/last_words.h"
#include "spark/names.h"
#include "spark/object_meta.h"
#include "spark/pod_memory.h"
#include "spark/resolved_job.h"
#include "spark/template_hash.h"

namespace kje::spark::kubeflow {
namespace {

constexpr std::string_view kConfDriverMaster = "spark.kubernetes.driver.master";
constexpr std::string_view kConfAuthenticatePrefix = "spark.kubernetes.authenticate.";
constexpr std::string_view kContainerImageSuffix = "container.image";

// The conf keys written as spec fields instead of sparkConf entries, so that one value reaches
// spark-submit: the operator passes both and which wins would be its argument order.
constexpr std::string_view kConfDriverCores = "spark.driver.cores";
constexpr std::string_view kConfDriverMemory = "spark.driver.memory";
constexpr std::string_view kConfExecutorCores = "spark.executor.cores";
constexpr std::string_view kConfExecutorMemory = "spark.executor.memory";
constexpr std::string_view kConfExecutorInstances = "spark.executor.instances";
constexpr std::string_view kConfDriverRequestCores = "spark.kubernetes.driver.request.cores";
constexpr std::string_view kConfExecutorRequestCores = "spark.kubernetes.executor.request.cores";
constexpr std::string_view kConfDriverMemoryOverhead = "spark.driver.memoryOverhead";
constexpr std::string_view kConfExecutorMemoryOverhead = "spark.executor.memoryOverhead";
// Spark's defaults where a queue needs every size stated.
constexpr int32_t kDefaultCores = 1;
constexpr int32_t kDefaultExecutorInstances = 2;

using Conf = MergedConf;
using json::Key;
using json::KeyInt;
using json::KeyStr;
using json::KeyStrings;
using json::Str;
using json::Writer;

absl::Status CheckDenylist(const Conf& conf) {
  for (const auto& [key, value] : conf) {
    if (!IsDeniedConfKey(key)) continue;
    std::string instead;
    if (absl::EndsWith(ToAbsl(key), ToAbsl(kContainerImageSuffix))) {
      instead = ": the image is the executor's setting spark.image";
    } else if (absl::StartsWith(ToAbsl(key), ToAbsl(kConfAuthenticatePrefix))) {
      instead = ": the service account is the executor's setting spark.serviceAccount";
    } else {
      instead = ": the operator decides the driver's master";
    }
    return absl::InvalidArgumentError(absl::StrCat(
        QuoteBounded(key), " of ", value.source,
        " isn't allowed with the Kubeflow Spark operator, whose webhook refuses it", instead));
  }
  return absl::OkStatus();
}

// Takes `key` out of the conf: its value, or nullopt when absent.
std::optional<ConfValue> Take(Conf& conf, std::string_view key) {
  auto it = conf.find(std::string(key));
  if (it == conf.end()) return std::nullopt;
  ConfValue value = std::move(it->second);
  conf.erase(it);
  return value;
}

// A whole number from 1 to int32's maximum, as the CRD holds cores and instances.
absl::StatusOr<std::optional<int32_t>> TakeCount(Conf& conf, std::string_view key) {
  std::optional<ConfValue> taken = Take(conf, key);
  if (!taken) return std::optional<int32_t>();
  std::string_view text = TrimmedText(taken->value);
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1 ||
      value > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(key), " of ", taken->source, " must be a whole number from 1 to ",
        std::numeric_limits<int32_t>::max(), ", not ", QuoteBounded(MaskValue(key, taken->value))));
  }
  return std::optional<int32_t>(static_cast<int32_t>(value));
}

std::optional<std::string> TakeText(Conf& conf, std::string_view key) {
  std::optional<ConfValue> taken = Take(conf, key);
  if (!taken) return std::nullopt;
  return std::string(TrimmedText(taken->value));
}

// The conf's own list (comma-separated, blanks dropped) followed by the template's.
std::vector<std::string> TakeList(Conf& conf, std::string_view key,
                                  const std::vector<std::string>& appended) {
  std::vector<std::string> list;
  if (std::optional<ConfValue> taken = Take(conf, key)) {
    for (absl::string_view item : absl::StrSplit(taken->value, ',')) {
      item = absl::StripAsciiWhitespace(item);
      if (!item.empty()) list.emplace_back(item);
    }
  }
  list.insert(list.end(), appended.begin(), appended.end());
  return list;
}

struct PodResources {
  std::optional<int32_t> cores;
  std::optional<std::string> core_request;
  std::optional<std::string> memory;
  std::optional<std::string> memory_overhead;
  std::optional<int32_t> instances;  // executors only
};

void WritePodSpec(Writer& w, std::string_view key, const std::string& service_account,
                  const PodResources& resources, const std::string& pod_template) {
  Key(w, key);
  w.StartObject();
  KeyStr(w, "serviceAccount", service_account);
  // The pod's customisation as the operator's pod template, which spark-submit applies: never
  // the fields only its webhook would apply.
  if (!pod_template.empty()) {
    Key(w, "template");
    w.RawValue(pod_template.data(), pod_template.size(), rapidjson::kObjectType);
  }
  if (resources.cores) {
    Key(w, "cores");
    w.Int(*resources.cores);
  }
  if (resources.core_request) KeyStr(w, "coreRequest", *resources.core_request);
  if (resources.memory) KeyStr(w, "memory", *resources.memory);
  if (resources.memory_overhead) KeyStr(w, "memoryOverhead", *resources.memory_overhead);
  if (resources.instances) {
    Key(w, "instances");
    w.Int(*resources.instances);
  }
  w.EndObject();
}

std::string_view ApplicationType(std::string_view executable) {
  if (IsPythonResource(executable)) return "Python";
  if (IsRResource(executable)) return "R";
  return "Java";
}

// Kueue admits the job by the pods the app states: a fixed set, every size written out (older
// Kueue releases reserve no CPU for `cores` alone and no memory overhead). Reads the memory
// confs, so it runs before they are taken into the spec.
absl::Status CheckKueueSizing(const ResolvedJob& job, const Conf& conf, PodMemory& driver,
                              PodMemory& executor) {
  if (auto it = conf.find(std::string(kConfDynamicAllocation));
      it != conf.end() && absl::AsciiStrToLower(ToAbsl(TrimmedText(it->second.value))) == "true") {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kConfDynamicAllocation), "=true of ", it->second.source,
        " can't be used with the Kueue queue ", QuoteBounded(job.queue),
        " on the Kubeflow Spark operator: Kueue reserves a fixed set of pods for the job, so its "
        "executors must be static (set spark.executor.instances instead)"));
  }
  const bool non_jvm = ApplicationType(job.executable) != "Java";
  ASSIGN_OR_RETURN(driver, PodMemoryOf(conf, SparkRole::kDriver, non_jvm));
  ASSIGN_OR_RETURN(executor, PodMemoryOf(conf, SparkRole::kExecutor, non_jvm));
  return absl::OkStatus();
}

// Every size of the pod stated: Spark's defaults where the conf sets none, the core request
// (spark.kubernetes.<role>.request.cores, else the cores) and the memory overhead.
void StateKueueSizes(Conf& conf, std::string_view request_cores_key, std::string_view overhead_key,
                     const PodMemory& memory, PodResources& pod) {
  if (!pod.cores) pod.cores = kDefaultCores;
  pod.core_request = TakeText(conf, request_cores_key);
  if (!pod.core_request || pod.core_request->empty()) pod.core_request = absl::StrCat(*pod.cores);
  if (!pod.memory) pod.memory = absl::StrCat(memory.memory_mib, "m");
  Take(conf, overhead_key);  // written as memoryOverhead, so that one value reaches Spark
  pod.memory_overhead = absl::StrCat(memory.overhead_mib, "m");
}

// The batch scheduler and its queue, for YuniKorn and Volcano (Kueue's is a label).
void WriteBatchScheduler(Writer& w, const ResolvedJob& job) {
  if (job.queue_scheduler != QueueScheduler::kYuniKorn &&
      job.queue_scheduler != QueueScheduler::kVolcano) {
    return;
  }
  KeyStr(w, "batchScheduler", QueueSchedulerName(job.queue_scheduler));
  if (job.queue.empty()) return;
  Key(w, "batchSchedulerOptions");
  w.StartObject();
  KeyStr(w, "queue", job.queue);
  w.EndObject();
}

// The operator's validating webhook refuses a pod template below Spark 3.0.0.
bool SparkTakesTemplates(const BuilderOptions& options) {
  std::string_view version = TrimmedText(options.spark_version);
  if (!version.empty() && (version.front() == 'v' || version.front() == 'V'))
    version.remove_prefix(1);
  int major = 0;
  auto [end, error] = std::from_chars(version.data(), version.data() + version.size(), major);
  return error == std::errc() && major >= 3;
}

absl::Status CheckTemplateSparkVersion(const ResolvedJob& job, const BuilderOptions& options) {
  if (job.pod_templates.empty() || SparkTakesTemplates(options)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "Job template ", job.template_name,
      " customises its pods, which the Kubeflow Spark operator takes only for Spark 3.0.0 or "
      "later; this executor's spark.sparkVersion is ",
      QuoteBounded(options.spark_version)));
}

// spec.restartPolicy: Never unless the template asks. The operator's waits grow linearly
// (interval × attempts so far).
void WriteRestartPolicy(Writer& w, const RestartPolicy& restart) {
  Key(w, "restartPolicy");
  w.StartObject();
  if (!restart.on_failure) {
    KeyStr(w, "type", "Never");
    w.EndObject();
    return;
  }
  KeyStr(w, "type", "OnFailure");
  KeyInt(w, "onFailureRetries", restart.on_failure_retries);
  KeyInt(w, "onFailureRetryInterval", restart.on_failure_interval_seconds);
  KeyInt(w, "onSubmissionFailureRetries", restart.on_submission_failure_retries);
  KeyInt(w, "onSubmissionFailureRetryInterval", restart.on_submission_failure_interval_seconds);
  w.EndObject();
}

// spec.monitoring: the operator adds the JMX exporter agent and the prometheus.io annotations.
// Its CRD requires the agent's jar whenever `prometheus` is given.
void WriteMonitoring(Writer& w, const Monitoring& monitoring) {
  Key(w, "monitoring");
  w.StartObject();
  Key(w, "exposeDriverMetrics");
  w.Bool(monitoring.driver);
  Key(w, "exposeExecutorMetrics");
  w.Bool(monitoring.executor);
  Key(w, "prometheus");
  w.StartObject();
  KeyStr(w, "jmxExporterJar", monitoring.jmx_exporter_jar);
  KeyInt(w, "port", monitoring.port);
  w.EndObject();
  w.EndObject();
}

}  // namespace

bool IsDeniedConfKey(std::string_view key) {
  if (key == kConfDriverMaster) return true;
  if (absl::StartsWith(ToAbsl(key), ToAbsl(kConfAuthenticatePrefix))) return true;
  return absl::StartsWith(ToAbsl(key), ToAbsl(kConfKubernetesPrefix)) &&
         absl::EndsWith(ToAbsl(key), ToAbsl(kContainerImageSuffix));
}

absl::StatusOr<BuiltApplication> BuildSparkApplication(std::string_view job_id,
                                                       std::string_view metalake,
                                                       const SparkTemplate& spark_template,
                                                       const BuilderOptions& options) {
  ASSIGN_OR_RETURN(ResolvedJob job, ResolveJob(job_id, metalake, spark_template, options));
  const std::string template_hash = EncodeHashes(HashResolvedJob(job));
  RETURN_IF_ERROR(CheckDenylist(job.conf));
  if (job.name.size() > kMaxNameLength || !absl::ascii_islower(job.name.front())) {
    // ResolveJob's rules keep names within this; a looser prefix rule must not slip past.
    return absl::InvalidArgumentError(absl::StrCat(
        "SparkApplication name ", QuoteBounded(job.name),
        " isn't a DNS-1035 label of at most 63 characters, as the Kubeflow Spark operator needs"));
  }
  RETURN_IF_ERROR(CheckTemplateSparkVersion(job, options));
  if (job.monitoring.enabled() && IsBlank(job.monitoring.jmx_exporter_jar)) {
    return TagBuildError(
        BuildInput::kServerConfig,
        absl::FailedPreconditionError(absl::StrCat(
            "Job template ", job.template_name,
            " exposes driver or executor metrics, which the Kubeflow Spark operator serves "
            "through the Prometheus JMX exporter agent, but the executor's "
            "monitoring.jmxExporterJar (the agent's jar in the Spark image) is not set")));
  }
  Conf conf = std::move(job.conf);
  // The operator passes the app's own namespace; ResolveJob took the namespace from here.
  Take(conf, kConfNamespace);
  const bool kueue = QueuedByKueue(job);
  PodMemory driver_memory;
  PodMemory executor_memory;
  if (kueue) RETURN_IF_ERROR(CheckKueueSizing(job, conf, driver_memory, executor_memory));
  PodResources driver;
  PodResources executor;
  ASSIGN_OR_RETURN(driver.cores, TakeCount(conf, kConfDriverCores));
  ASSIGN_OR_RETURN(executor.cores, TakeCount(conf, kConfExecutorCores));
  ASSIGN_OR_RETURN(executor.instances, TakeCount(conf, kConfExecutorInstances));
  driver.memory = TakeText(conf, kConfDriverMemory);
  executor.memory = TakeText(conf, kConfExecutorMemory);
  std::vector<std::string> jars = TakeList(conf, kConfJars, job.jars);
  std::vector<std::string> files = TakeList(conf, kConfFiles, job.files);
  std::vector<std::string> archives = TakeList(conf, kConfArchives, job.archives);
  if (kueue) {
    StateKueueSizes(conf, kConfDriverRequestCores, kConfDriverMemoryOverhead, driver_memory,
                    driver);
    StateKueueSizes(conf, kConfExecutorRequestCores, kConfExecutorMemoryOverhead, executor_memory,
                    executor);
    if (!executor.instances) executor.instances = kDefaultExecutorInstances;
  }

  ObjectMeta meta = JobObjectMeta(job.name, job.namespace_, job_id, metalake);
  meta.annotations[std::string(kAnnotationTemplateHash)] = template_hash;
  AddDeadlineLabels(job.deadlines, meta.labels);
  // The operator copies the app's labels to its pods, all but Kueue's: the queue stays the app's.
  if (kueue) meta.labels[std::string(kLabelKueueQueueName)] = job.queue;
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  KeyStr(w, "apiVersion", kApiVersion);
  KeyStr(w, "kind", kKind);
  WriteObjectMeta(w, meta);

  Key(w, "spec");
  w.StartObject();
  KeyStr(w, "type", ApplicationType(job.executable));
  KeyStr(w, "mode", "cluster");
  KeyStr(w, "sparkVersion", options.spark_version);
  KeyStr(w, "image", options.image);
  KeyStr(w, "mainApplicationFile", job.executable);
  if (!job.class_name.empty()) KeyStr(w, "mainClass", job.class_name);
  KeyStrings(w, "arguments", job.arguments);
  if (!jars.empty() || !files.empty() || !archives.empty()) {
    Key(w, "deps");
    w.StartObject();
    if (!jars.empty()) KeyStrings(w, "jars", jars);
    if (!files.empty()) KeyStrings(w, "files", files);
    if (!archives.empty()) KeyStrings(w, "archives", archives);
    w.EndObject();
  }
  Key(w, "sparkConf");
  w.StartObject();
  for (const auto& [key, value] : conf) KeyStr(w, key, value.value);
  w.EndObject();
  WriteRestartPolicy(w, job.restart);
  if (job.monitoring.enabled()) WriteMonitoring(w, job.monitoring);
  // The driver's template asks for its last words where the operator takes a template at all.
  const std::string driver_template = SparkTakesTemplates(options)
                                          ? WithTerminationFallback(job.pod_templates.driver)
                                          : job.pod_templates.driver;
  WritePodSpec(w, "driver", options.service_account, driver, driver_template);
  WritePodSpec(w, "executor", options.service_account, executor, job.pod_templates.executor);
  KeyInt(w, "timeToLiveSeconds", (options.ttl_after_stop_ms + 999) / 1000);
  WriteBatchScheduler(w, job);
  w.EndObject();  // spec
  w.EndObject();
  RETURN_IF_ERROR(CheckApplicationSize(buffer.GetSize(), job, options));

  BuiltApplication built;
  built.namespace_ = job.namespace_;
  built.name = job.name;
  built.execution_id = std::move(job.execution_id);
  built.labels = meta.labels;
  built.template_hash = template_hash;
  built.json.assign(buffer.GetString(), buffer.GetSize());
  built.warnings = std::move(job.warnings);
  built.api_version = kApiVersion;
  built.kind = kKind;
  AddEnvironmentSecret(job, spark_template, meta.labels, built);
  return built;
}

}  // namespace kje::spark::kubeflow
