#pragma once

// The coordinates, labels and names of kubeflow/spark-operator's SparkApplication
// (sparkoperator.k8s.io/v1beta2) that the executor reads or writes.

#include <string>
#include <string_view>

namespace kje::spark::kubeflow {

inline constexpr std::string_view kGroup = "sparkoperator.k8s.io";
inline constexpr std::string_view kVersion = "v1beta2";
inline constexpr std::string_view kApiVersion = "sparkoperator.k8s.io/v1beta2";
inline constexpr std::string_view kKind = "SparkApplication";
inline constexpr std::string_view kPlural = "sparkapplications";

// On the driver and executor pods, set by the operator through spark-submit.
inline constexpr std::string_view kLabelAppName = "sparkoperator.k8s.io/app-name";
// One value per submission attempt, equal to status.submissionID: it tells the current
// attempt's driver from a previous attempt's that is still terminating.
inline constexpr std::string_view kLabelSubmissionId = "sparkoperator.k8s.io/submission-id";

// The name of a SparkApplication is a DNS-1035 label (the operator's validating webhook since
// v2.4.0): a lower-case letter first, at most 63 characters.
inline constexpr size_t kMaxNameLength = 63;

// The operator's name of an application's driver pod when neither spec.driver.podName nor the
// conf spark.kubernetes.driver.pod.name names it: `<app>-driver`.
std::string DriverPodName(std::string_view app_name);
// The label selector of the driver pods of the SparkApplication `app_name`.
std::string DriverPodSelector(std::string_view app_name);
// The label selector of an application's executor pods.
std::string ExecutorPodSelector(std::string_view app_name);

}  // namespace kje::spark::kubeflow
