#pragma once

// apache/spark-kubernetes-operator, spark.apache.org/v1. Named by spark/operators.cc only.

#include <memory>

#include "spark/backend.h"

namespace kje::spark::apache {

std::unique_ptr<OperatorBackend> NewBackend();

}  // namespace kje::spark::apache
