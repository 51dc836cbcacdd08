#pragma once

// apache/spark-kubernetes-operator's run details: the Spark application id it gives an attempt,
// the attempts it counts.

#include <cstdint>
#include <string>
#include <string_view>

#include "spark/app_projection.h"
#include "spark/run_details.h"

namespace kje::spark::apache {

// The operator's id for an attempt of an application that doesn't set spark.app.id:
// `<name>-<attempt>` when that is at most 46 characters (so that Spark's resource names built on
// it stay within Kubernetes' limits), else its first 9 characters, a dash and the first 36
// base-36 digits of SHA-256("<namespace>/<name>/<attempt>").
std::string ApacheSparkAppId(std::string_view namespace_, std::string_view name, int64_t attempt);

// No details before the operator's first status; then the current attempt's: spark.app.id when
// the spec fixes it, else ApacheSparkAppId; the attempt id plus one; no UI address.
RunDetailsRef RunDetailsOf(const AppProjection& app);

}  // namespace kje::spark::apache
