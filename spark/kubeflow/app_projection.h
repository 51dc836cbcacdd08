#pragma once

// The projection of a kubeflow/spark-operator SparkApplication (sparkoperator.k8s.io/v1beta2)
// into the AppProjection every consumer reads (kind kKubeflow).

#include <string_view>

#include "absl/status/statusor.h"
#include "rapidjson/document.h"
#include "spark/app_projection.h"

namespace kje::spark::kubeflow {

// ProjectMetadata's fields and errors, plus status.applicationState (its errorMessage as
// current_message), submissionID, driverInfo.podName, lastSubmissionAttemptTime,
// terminationTime and executionAttempts; spec.suspend; and the driver container:
// spark.kubernetes.driver.podTemplateContainerName, else the first container of
// spec.driver.template, else spark-kubernetes-driver.
absl::StatusOr<AppProjection> ProjectApp(const rapidjson::Value& app);
absl::StatusOr<AppProjection> ProjectAppJson(std::string_view json);

}  // namespace kje::spark::kubeflow
