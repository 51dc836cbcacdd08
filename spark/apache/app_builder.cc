#include "spark/apache/app_builder.h"

#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "rapidjson/document.h"
#include "spark/apache/names.h"
#include "spark/apache/queue.h"
#include "spark/json_writer.h"
#include "spark/last_words.h"
#include "spark/names.h"
#include "spark/object_meta.h"
#include "spark/resolved_job.h"
#include "spark/template_hash.h"

namespace kje::spark::apache {
namespace {

constexpr std::string_view kConfServiceAccount =
    "spark.kubernetes.authenticate.driver.serviceAccountName";

// `existing,appended...`: the template's lists come after what the conf already names.
void AppendList(std::map<std::string, std::string>& conf, std::string_view key,
                const std::vector<std::string>& values) {
  if (values.empty()) return;
  std::string joined = absl::StrJoin(values, ",");
  auto it = conf.find(std::string(key));
  if (it == conf.end() || IsBlank(it->second)) {
    conf[std::string(key)] = std::move(joined);
  } else {
    it->second = absl::StrCat(it->second, ",", joined);
  }
}

void SetIfBlank(std::map<std::string, std::string>& conf, std::string_view key,
                const std::string& value) {
  auto it = conf.find(std::string(key));
  if (it == conf.end() || IsBlank(it->second)) conf[std::string(key)] = value;
}

// Spark's own Prometheus endpoints on the driver's UI port: its metrics through the
// PrometheusServlet sink, the executors' through the UI's executor endpoint; the scrape
// annotations on the driver pod point Prometheus at them (the executors serve nothing).
constexpr std::string_view kDriverMetricsPath = "/metrics/prometheus";
constexpr std::string_view kExecutorMetricsPath = "/metrics/executors/prometheus";
constexpr std::string_view kDriverAnnotationPrefix = "spark.kubernetes.driver.annotation.";

void AddMonitoringConf(const Monitoring& monitoring, std::map<std::string, std::string>& conf) {
  if (!monitoring.enabled()) return;
  auto ui_port = conf.find("spark.ui.port");
  const std::string port =
      ui_port == conf.end() || IsBlank(ui_port->second) ? "4040" : ui_port->second;
  const auto annotate = [&](std::string_view name, std::string_view value) {
    SetIfBlank(conf, absl::StrCat(ToAbsl(kDriverAnnotationPrefix), ToAbsl(name)),
               std::string(value));
  };
  annotate("prometheus.io/scrape", "true");
  annotate("prometheus.io/port", port);
  if (monitoring.driver) {
    SetIfBlank(conf, "spark.metrics.conf.*.sink.prometheusServlet.class",
               "org.apache.spark.metrics.sink.PrometheusServlet");
    SetIfBlank(conf, "spark.metrics.conf.*.sink.prometheusServlet.path",
               std::string(kDriverMetricsPath));
    annotate("prometheus.io/path", kDriverMetricsPath);
  }
  if (monitoring.executor) {
    SetIfBlank(conf, "spark.ui.prometheus.enabled", "true");
    // A second path on the same pod: the README's scrape config reads this one too.
    annotate("prometheus.io/executors-path", kExecutorMetricsPath);
    if (!monitoring.driver) annotate("prometheus.io/path", kExecutorMetricsPath);
  }
}

// This operator restarts a failed attempt itself (OnFailure) with a fixed backoff, and has no
// submission step of its own to retry: the driver pod is created by the operator.
absl::Status CheckRestart(const ResolvedJob& job) {
  if (!job.restart.submission_retries_set) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "Job template ", job.template_name, " sets ", ToAbsl(kCustomFieldOnSubmissionFailureRetries),
      " or ", ToAbsl(kCustomFieldOnSubmissionFailureRetryIntervalSeconds),
      ", but the Apache Spark operator has no submission-failure retries: a failure to create "
      "the driver is a failed attempt, retried by ",
      ToAbsl(kCustomFieldOnFailureRetries)));
}

using json::Key;
using json::KeyInt;
using json::KeyStr;
using json::KeyStrings;
using json::Str;
using json::Writer;

}  // namespace
absl::StatusOr<BuiltApplication> BuildSparkApplication(std::string_view job_id,
                                                       std::string_view metalake,
                                                       const SparkTemplate& spark_template,
                                                       const BuilderOptions& options) {
  ASSIGN_OR_RETURN(ResolvedJob job, ResolveJob(job_id, metalake, spark_template, options));
  ObjectMeta meta = JobObjectMeta(job.name, job.namespace_, job_id, metalake);
  const std::string template_hash = EncodeHashes(HashResolvedJob(job));
  meta.annotations[std::string(kAnnotationTemplateHash)] = template_hash;
  AddDeadlineLabels(job.deadlines, meta.labels);
  RETURN_IF_ERROR(ApplyQueue(job, meta));
  RETURN_IF_ERROR(CheckRestart(job));
  std::map<std::string, std::string> conf;
  for (auto& [key, value] : job.conf) conf[key] = std::move(value.value);
  AppendList(conf, kConfJars, job.jars);
  AppendList(conf, kConfFiles, job.files);
  AppendList(conf, kConfArchives, job.archives);
  SetIfBlank(conf, kConfImage, options.image);
  SetIfBlank(conf, kConfServiceAccount, options.service_account);
  if (job.deadlines.max_run_seconds > 0) {
    // This operator leaves a run's end to Spark: the driver ends itself (exit 124) after
    // spark.driver.timeout minutes, even while no replica of the service is there to stop it;
    // the service stops it at the exact second.
    SetIfBlank(conf, kConfDriverTimeout, absl::StrCat((job.deadlines.max_run_seconds + 59) / 60));
  }
  AddMonitoringConf(job.monitoring, conf);
  conf[std::string(kConfNamespace)] = job.namespace_;

  BuiltApplication built;
  built.namespace_ = job.namespace_;
  built.name = job.name;
  built.execution_id = job.execution_id;
  built.labels = meta.labels;
  built.template_hash = template_hash;
  const std::string& executable = job.executable;

  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  KeyStr(w, "apiVersion", kApiVersion);
  KeyStr(w, "kind", kKind);
  WriteObjectMeta(w, meta);

  Key(w, "spec");
  w.StartObject();
  if (!job.class_name.empty()) KeyStr(w, "mainClass", job.class_name);
  KeyStr(w, IsPythonResource(executable) ? "pyFiles" : "jars", executable);
  KeyStrings(w, "driverArgs", job.arguments);
  Key(w, "sparkConf");
  w.StartObject();
  for (const auto& [key, value] : conf) KeyStr(w, key, value);
  w.EndObject();
  Key(w, "runtimeVersions");
  w.StartObject();
  KeyStr(w, "sparkVersion", options.spark_version);
  w.EndObject();
  // The pods' customisation as the operator's own pod templates: it hands them to Spark, which
  // keeps what it doesn't set itself. The driver's asks for its last words, except under Kueue,
  // where the operator fails an app with any pod template.
  const std::string driver_template = QueuedByKueue(job)
                                          ? job.pod_templates.driver
                                          : WithTerminationFallback(job.pod_templates.driver);
  for (auto [key, pod_template] :
       {std::pair{"driverSpec", &driver_template},
        std::pair{"executorSpec", &std::as_const(job.pod_templates.executor)}}) {
    if (pod_template->empty()) continue;
    Key(w, key);
    w.StartObject();
    Key(w, "podTemplateSpec");
    w.RawValue(pod_template->data(), pod_template->size(), rapidjson::kObjectType);
    w.EndObject();
  }
  Key(w, "applicationTolerations");
  w.StartObject();
  Key(w, "restartConfig");
  w.StartObject();
  // Never unless the template asks: a restart makes a failed attempt non-final.
  if (job.restart.on_failure) {
    KeyStr(w, "restartPolicy", "OnFailure");
    KeyInt(w, "maxRestartAttempts", job.restart.on_failure_retries);
    KeyInt(w, "restartBackoffMillis", job.restart.on_failure_interval_seconds * 1000);
  } else {
    KeyStr(w, "restartPolicy", "Never");
  }
  w.EndObject();
  Key(w, "applicationTimeoutConfig");
  w.StartObject();
  KeyInt(w, "driverStartTimeoutMillis", options.driver_start_timeout_ms);
  KeyInt(w, "driverReadyTimeoutMillis", options.driver_ready_timeout_ms);
  w.EndObject();
  // Keeps the driver pod, and so its log, after the job ends.
  KeyStr(w, "resourceRetainPolicy", "Always");
  KeyInt(w, "resourceRetainDurationMillis", options.resource_retain_duration_ms);
  KeyInt(w, "ttlAfterStopMillis", options.ttl_after_stop_ms);
  w.EndObject();  // applicationTolerations
  w.EndObject();  // spec
  w.EndObject();
  RETURN_IF_ERROR(CheckApplicationSize(buffer.GetSize(), job, options));
  built.json.assign(buffer.GetString(), buffer.GetSize());
  built.warnings = std::move(job.warnings);
  built.api_version = kApiVersion;
  built.kind = kKind;
  AddEnvironmentSecret(job, spark_template, meta.labels, built);
  return built;
}

}  // namespace kje::spark::apache
