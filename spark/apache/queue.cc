#include "spark/apache/queue.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/mask.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "spark/names.h"
#include "spark/queue.h"

namespace kje::spark::apache {
namespace {

// What each batch scheduler needs of Spark (its pods' scheduler, labels, annotations and feature
// steps) and of the operator (Kueue's label and annotation on the app).
constexpr std::string_view kQueueSource = "the job's queue";
constexpr std::string_view kAnnotationKueueReserveMaxExecutors =
    "spark.operator/kueue-reserve-max-executors";
constexpr std::string_view kConfPodTemplateFiles[] = {"spark.kubernetes.driver.podTemplateFile",
                                                      "spark.kubernetes.executor.podTemplateFile"};
constexpr std::string_view kConfYuniKornAppIds[] = {
    "spark.kubernetes.driver.annotation.yunikorn.apache.org/app-id",
    "spark.kubernetes.executor.annotation.yunikorn.apache.org/app-id"};
// Spark puts the application's id here.
constexpr std::string_view kAppIdPlaceholder = "{{APP_ID}}";
constexpr std::string_view kConfFeatureSteps[] = {"spark.kubernetes.driver.pod.featureSteps",
                                                  "spark.kubernetes.executor.pod.featureSteps"};
constexpr std::string_view kVolcanoFeatureStep =
    "org.apache.spark.deploy.k8s.features.VolcanoFeatureStep";

// Sets a conf the queue decides, which the merged conf may already hold only with that value.
absl::Status SetForQueue(MergedConf& conf, std::string_view key, std::string_view value) {
  auto [it, inserted] =
      conf.try_emplace(std::string(key), ConfValue{std::string(value), std::string(kQueueSource)});
  if (inserted || TrimmedText(it->second.value) == value) {
    it->second.value = std::string(value);
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat(ToAbsl(key), " of ", it->second.source, " is ",
                   QuoteBounded(MaskValue(key, it->second.value)),
                   ", but the job's queue sets it to ", QuoteBounded(MaskValue(key, value)),
                   ": leave it unset, and name the queue in the template's custom field ",
                   ToAbsl(kCustomFieldQueue), " or the executor's queue.name"));
}

// The list of feature steps with `step` added unless it is there.
void AddFeatureStep(MergedConf& conf, std::string_view key, std::string_view step) {
  auto [it, inserted] =
      conf.try_emplace(std::string(key), ConfValue{std::string(step), std::string(kQueueSource)});
  if (inserted) return;
  for (absl::string_view item : absl::StrSplit(it->second.value, ',')) {
    if (absl::StripAsciiWhitespace(item) == ToAbsl(step)) return;
  }
  it->second.value = absl::StrCat(it->second.value, ",", ToAbsl(step));
}

// The operator sizes Kueue's Workload from the conf: it fails an app with a pod template file,
// and reserves dynamic allocation at its bound, which the app must then state and ask for.
absl::Status CheckKueue(const ResolvedJob& job, ObjectMeta& meta) {
  if (!job.pod_templates.empty()) {
    // The operator hands a podTemplateSpec to Spark as a pod template file: the same refusal.
    return absl::InvalidArgumentError(absl::StrCat(
        "Job template ", job.template_name,
        " customises its pods (the custom fields podTemplate, podTemplate.driver, "
        "podTemplate.executor, sparkConfigMap or hadoopConfigMap, or environment variables), "
        "which can't be used with the Kueue queue ",
        QuoteBounded(job.queue),
        ": the Spark operator passes pod templates to Spark as pod template files, which it "
        "doesn't support under Kueue yet (it fails the app with SchedulingFailure). Use Spark's "
        "own confs instead (spark.kubernetes.node.selector.*, "
        "spark.kubernetes.{driver,executor}.volumes.*, spark.kubernetes.{driver,executor}.label.*, "
        "spark.kubernetes.{driver,executor}.secretKeyRef.*), or no queue"));
  }
  for (std::string_view key : kConfPodTemplateFiles) {
    if (auto it = job.conf.find(std::string(key)); it != job.conf.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          ToAbsl(key), " of ", it->second.source, " can't be used with the Kueue queue ",
          QuoteBounded(job.queue),
          ": the Spark operator doesn't support pod template files under Kueue yet and fails "
          "the app with SchedulingFailure"));
    }
  }
  auto dynamic = job.conf.find(std::string(kConfDynamicAllocation));
  if (dynamic == job.conf.end() ||
      absl::AsciiStrToLower(ToAbsl(TrimmedText(dynamic->second.value))) != "true") {
    return absl::OkStatus();
  }
  auto max = job.conf.find(std::string(kConfMaxExecutors));
  int64_t bound = 0;
  std::string_view text = max == job.conf.end() ? "" : TrimmedText(max->second.value);
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), bound);
  if (max == job.conf.end() || error != std::errc() || end != text.data() + text.size() ||
      bound < 1 || bound > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ToAbsl(kConfDynamicAllocation), "=true of ", dynamic->second.source,
        " with the Kueue queue ", QuoteBounded(job.queue), " needs ", ToAbsl(kConfMaxExecutors),
        " set to a whole number from 1 to ", std::numeric_limits<int32_t>::max(),
        ": Kueue reserves the most executors the job may have",
        max == job.conf.end()
            ? ""
            : absl::StrCat(", not ",
                           QuoteBounded(MaskValue(kConfMaxExecutors, max->second.value)))));
  }
  meta.annotations[std::string(kAnnotationKueueReserveMaxExecutors)] = "true";
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyQueue(ResolvedJob& job, ObjectMeta& meta) {
  switch (job.queue_scheduler) {
    case QueueScheduler::kNone:
      return absl::OkStatus();
    case QueueScheduler::kKueue:
      if (job.queue.empty()) return absl::OkStatus();
      RETURN_IF_ERROR(CheckKueue(job, meta));
      meta.labels[std::string(kLabelKueueQueueName)] = job.queue;
      return absl::OkStatus();
    case QueueScheduler::kYuniKorn:
      RETURN_IF_ERROR(SetForQueue(job.conf, kConfSchedulerName, "yunikorn"));
      for (std::string_view key : kConfYuniKornAppIds) {
        RETURN_IF_ERROR(SetForQueue(job.conf, key, kAppIdPlaceholder));
      }
      if (job.queue.empty()) return absl::OkStatus();
      RETURN_IF_ERROR(SetForQueue(job.conf, kConfDriverQueueLabel, job.queue));
      return SetForQueue(job.conf, kConfExecutorQueueLabel, job.queue);
    case QueueScheduler::kVolcano:
      RETURN_IF_ERROR(SetForQueue(job.conf, kConfSchedulerName, "volcano"));
      for (std::string_view key : kConfFeatureSteps) {
        AddFeatureStep(job.conf, key, kVolcanoFeatureStep);
      }
      if (job.queue.empty()) return absl::OkStatus();
      return SetForQueue(job.conf, kConfVolcanoQueue, job.queue);
  }
  return absl::OkStatus();
}

}  // namespace kje::spark::apache
