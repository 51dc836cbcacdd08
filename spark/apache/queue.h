#pragma once

// What a job's batch-scheduler queue becomes on an apache/spark-kubernetes-operator
// SparkApplication: Spark confs for the pods' scheduler (YuniKorn, Volcano), Kueue's label and the
// operator's Kueue annotation on the app, and the operator's Kueue rules.

#include <string_view>

#include "absl/status/status.h"
#include "spark/object_meta.h"
#include "spark/resolved_job.h"

namespace kje::spark::apache {

// YuniKorn reads a pod's queue from this label; the projection reads the app's queue back here.
inline constexpr std::string_view kConfDriverQueueLabel = "spark.kubernetes.driver.label.queue";
inline constexpr std::string_view kConfExecutorQueueLabel = "spark.kubernetes.executor.label.queue";
// The queue of the PodGroup Spark's Volcano feature step creates.
inline constexpr std::string_view kConfVolcanoQueue = "spark.kubernetes.job.queue";

// Writes job.queue as job.queue_scheduler expects it, into job.conf and `meta`:
// - Kueue (with a queue): the label kueue.x-k8s.io/queue-name on the app; with
//   spark.dynamicAllocation.enabled=true, the annotation
//   spark.operator/kueue-reserve-max-executors "true" (the operator then reserves
//   spark.dynamicAllocation.maxExecutors executors).
// - YuniKorn: spark.kubernetes.scheduler.name=yunikorn, the app-id annotations
//   (spark.kubernetes.{driver,executor}.annotation.yunikorn.apache.org/app-id={{APP_ID}}) and,
//   with a queue, spark.kubernetes.{driver,executor}.label.queue.
// - Volcano: spark.kubernetes.scheduler.name=volcano, Spark's VolcanoFeatureStep added to
//   spark.kubernetes.{driver,executor}.pod.featureSteps and, with a queue,
//   spark.kubernetes.job.queue (the queue of the PodGroup the step creates).
// INVALID_ARGUMENT, naming the key, its source and the rule: under Kueue, a
// spark.kubernetes.{driver,executor}.podTemplateFile (the operator fails the app), or dynamic
// allocation without a whole spark.dynamicAllocation.maxExecutors from 1 to 2^31-1; a conf the
// queue sets that the merged conf sets to another value.
absl::Status ApplyQueue(ResolvedJob& job, ObjectMeta& meta);

}  // namespace kje::spark::apache
