#pragma once

// Builds the apache/spark-kubernetes-operator SparkApplication (spark.apache.org/v1) of a job
// exactly as the Java k8s executor does (as merged upstream), so that both executors create the
// same resource from the same template.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "spark/execution_id.h"
#include "spark/job_template.h"

namespace kje::spark::apache {

// INVALID_ARGUMENT for a template the executor can't run, with the reason: a SHELL template, a
// blank name or executable, an invalid job id, environments (listed by name, never by value),
// a resource that isn't a valid URI or has no cluster-reachable scheme, or an invalid (non-blank)
// spark.kubernetes.namespace (a blank one means the default namespace); a
// spark.submit.deployMode other than cluster, or a spark.master that isn't a k8s:// master (from
// the template or the server's defaults; the key and its source are named); a config key or the
// metalake with a control character; for a built-in template, a --spark-conf argument that
// isn't a JSON object of scalars; an application JSON over options.max_application_bytes (the
// size and the limit are named).
// Spark conf, later sources winning: the server's defaults < the template's configs < (built-in
// templates only) the --spark-conf argument, whose spark.master, spark.submit.deployMode and
// spark.kubernetes.* keys are ignored with a warning. A blank value is unset: it overrides
// nothing. A k8s:// master and deployMode cluster are dropped: the operator sets both.
// FAILED_PRECONDITION when `options` lack the image or the Spark version, or when a built-in
// template needs options.builtin_jobs_jar and it isn't reachable from the cluster.
absl::StatusOr<BuiltApplication> BuildSparkApplication(std::string_view job_id,
                                                       std::string_view metalake,
                                                       const SparkTemplate& spark_template,
                                                       const BuilderOptions& options);

}  // namespace kje::spark::apache
