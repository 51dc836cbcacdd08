#pragma once

// kubeflow/spark-operator, sparkoperator.k8s.io/v1beta2. Named by spark/operators.cc only.

#include <memory>

#include "absl/time/time.h"
#include "spark/backend.h"

namespace kje::spark::kubeflow {

// That operator has no driver start timeout: a driver still not started `driver_start_timeout`
// after its submission fails the job (JobStatusInfo::start_timed_out).
std::unique_ptr<OperatorBackend> NewBackend(
    absl::Duration driver_start_timeout = absl::InfiniteDuration());

}  // namespace kje::spark::kubeflow
