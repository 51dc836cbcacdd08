#pragma once

// Names, labels and annotations shared with the Java k8s job executor of Apache Gravitino, so
// that both executors see the same jobs on a shared cluster. Each operator's folder names its
// own resources.

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace kje::spark {

// On every SparkApplication we create.
inline constexpr std::string_view kLabelManagedBy = "app.kubernetes.io/managed-by";
inline constexpr std::string_view kManagedByGravitino = "gravitino";
inline constexpr std::string_view kLabelJobId = "gravitino.apache.org/job-id";
inline constexpr std::string_view kAnnotationMetalake = "gravitino.apache.org/metalake";
// Set by Cancel; only the exact value "true" counts.
inline constexpr std::string_view kAnnotationCancelRequested =
    "gravitino.apache.org/cancel-requested";
inline constexpr std::string_view kCancelRequestedValue = "true";

// On the driver pod (set by the operator and by Spark).
inline constexpr std::string_view kLabelSparkAppName = "spark.operator/spark-app-name";
inline constexpr std::string_view kLabelSparkRole = "spark-role";
inline constexpr std::string_view kSparkRoleDriver = "driver";
inline constexpr std::string_view kSparkRoleExecutor = "executor";
// Spark's label on an executor pod: its executor id (1, 2, ...).
inline constexpr std::string_view kLabelSparkExecId = "spark-exec-id";
inline constexpr std::string_view kDriverContainerName = "spark-kubernetes-driver";
// Spark conf keys the builders read or write.
inline constexpr std::string_view kConfAppId = "spark.app.id";
inline constexpr std::string_view kConfMaster = "spark.master";
inline constexpr std::string_view kConfDeployMode = "spark.submit.deployMode";
inline constexpr std::string_view kConfKubernetesPrefix = "spark.kubernetes.";
inline constexpr std::string_view kConfNamespace = "spark.kubernetes.namespace";
inline constexpr std::string_view kConfImage = "spark.kubernetes.container.image";
inline constexpr std::string_view kConfJars = "spark.jars";
inline constexpr std::string_view kConfFiles = "spark.files";
inline constexpr std::string_view kConfArchives = "spark.archives";
// The pods' scheduler (Spark); a batch scheduler's queue sets it.
inline constexpr std::string_view kConfSchedulerName = "spark.kubernetes.scheduler.name";
// Spark 4's driver timeout, in minutes: the driver exits 124 once it has run that long.
inline constexpr std::string_view kConfDriverTimeout = "spark.driver.timeout";
// Dynamic allocation (Spark): a queue that reserves a fixed set of pods needs its bound.
inline constexpr std::string_view kConfDynamicAllocation = "spark.dynamicAllocation.enabled";
inline constexpr std::string_view kConfMaxExecutors = "spark.dynamicAllocation.maxExecutors";
// Names the pod template's container that becomes the driver container (Spark).
inline constexpr std::string_view kConfDriverPodTemplateContainerName =
    "spark.kubernetes.driver.podTemplateContainerName";

// Operator 1.1 holds an application with this label until Kueue admits it.
inline constexpr std::string_view kLabelKueueQueueName = "kueue.x-k8s.io/queue-name";

// The defaults of the Java executor's configuration.
inline constexpr std::string_view kDefaultCluster = "default";
inline constexpr std::string_view kDefaultNamePrefix = "gravitino-job";
inline constexpr size_t kMaxNamePrefixLength = 24;
// A resource name is also the value of the driver's spark-app-name label, so it is a
// DNS-1123 label: at most 63 characters.
inline constexpr size_t kMaxResourceNameLength = 63;

// A name prefix as the Java executor accepts it: [a-z]([-a-z0-9]*[a-z0-9])?, at most 24
// characters, so that `<prefix>-<19-digit job id>` stays within 44 characters and the operator
// does not hash-truncate the Spark app id. INVALID_ARGUMENT otherwise.
absl::Status ValidateNamePrefix(std::string_view name_prefix);

// A cluster name is part of every execution id, so it must be non-blank and free of '/'.
absl::Status ValidateClusterName(std::string_view cluster);

// The job id becomes the suffix of the resource name and the value of the job-id label.
// Gravitino's job ids are decimal numbers; we accept any DNS-1123 label text
// ([a-z0-9]([-a-z0-9]*[a-z0-9])?) such that `<name_prefix>-<job_id>` is at most 63 characters,
// which keeps both the name and the label value valid. INVALID_ARGUMENT otherwise.
absl::Status ValidateJobId(std::string_view name_prefix, std::string_view job_id);

// `<name_prefix>-<job_id>`; call ValidateJobId first.
std::string ResourceName(std::string_view name_prefix, std::string_view job_id);

// The label selector of every SparkApplication we manage.
std::string ManagedAppSelector();
// The label selector of the driver pods of the SparkApplication `app_name`.
std::string DriverPodSelector(std::string_view app_name);
// The requirements Spark's labels add to an operator's selector of an application's pods to
// pick executor `executor_id`'s: "spark-role=executor,spark-exec-id=<id>".
std::string ExecutorIdRequirements(int executor_id);

// The JSON merge-patch that marks a SparkApplication as cancelled by us; it keeps the other
// annotations.
std::string CancelRequestPatch();

}  // namespace kje::spark
