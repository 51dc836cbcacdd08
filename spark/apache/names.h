#pragma once

// The SparkApplication CRD of apache/spark-kubernetes-operator.

#include <string_view>

namespace kje::spark::apache {

inline constexpr std::string_view kGroup = "spark.apache.org";
inline constexpr std::string_view kVersion = "v1";
inline constexpr std::string_view kApiVersion = "spark.apache.org/v1";
inline constexpr std::string_view kKind = "SparkApplication";
inline constexpr std::string_view kPlural = "sparkapplications";
// The label Spark puts on an attempt's pods: that attempt's Spark app id (`<name>-<attempt>`).
inline constexpr std::string_view kLabelSparkAppSelector = "spark-app-selector";

}  // namespace kje::spark::apache
