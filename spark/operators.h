#pragma once

// The one place that knows every operator this build supports: a backend by the name the
// configuration's `operator` key gives. Adding an operator is a folder under spark/ and a line
// in operators.cc.

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "spark/backend.h"

namespace kje::spark {

// What a backend may be configured with; an operator reads what applies to it.
struct OperatorOptions {
  // A driver not started this long after its submission fails the job, on an operator without
  // a start timeout of its own (spark.driverStartTimeoutMs).
  absl::Duration driver_start_timeout = absl::InfiniteDuration();
};

// The names `operator` takes, in the order the configuration's error lists them.
std::vector<std::string_view> OperatorNames();
// Each name with the project it stands for, for the configuration's error: "apache
// (apache/spark-kubernetes-operator) or kubeflow (kubeflow/spark-operator)".
std::string DescribeOperators();

// FAILED_PRECONDITION for a schedule RPC on `backend`, which has none: which operators have them.
absl::Status NoSchedulesError(const OperatorBackend& backend);

// The backend named `name`; INVALID_ARGUMENT naming the choices for any other name.
absl::StatusOr<std::unique_ptr<OperatorBackend>> NewOperatorBackend(
    std::string_view name, const OperatorOptions& options = {});

}  // namespace kje::spark
