#pragma once

// What a job's run looks like from outside the status: the Spark application id, the attempts
// and where the driver's UI answers, as sparkctl showed them. Derived from the projection alone.

#include <cstdint>
#include <string>
#include <string_view>

#include "spark/app_projection.h"

namespace kje::spark {

struct RunDetails {
  std::string spark_app_id;       // "" until the operator has one
  int64_t attempts = 0;           // 0 before the first
  std::string driver_ui_address;  // "" when the operator reports none

  bool operator==(const RunDetails&) const = default;
};

RunDetails RunDetailsOf(const AppProjection& app);

// apache/spark-kubernetes-operator's id for an attempt of an application that doesn't set
// spark.app.id: `<name>-<attempt>` when that is at most 46 characters (so that Spark's resource
// names built on it stay within Kubernetes' limits), else its first 9 characters, a dash and the
// first 36 base-36 digits of SHA-256("<namespace>/<name>/<attempt>").
std::string ApacheSparkAppId(std::string_view namespace_, std::string_view name, int64_t attempt);

}  // namespace kje::spark
