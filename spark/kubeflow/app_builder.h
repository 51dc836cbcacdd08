#pragma once

// Builds the kubeflow/spark-operator SparkApplication (sparkoperator.k8s.io/v1beta2) of a job:
// the same template rules, conf merge, name, labels and annotations as the Apache builder
// (ResolveJob), written in v1beta2's shape.

#include <string_view>

#include "absl/status/statusor.h"
#include "spark/job_template.h"

namespace kje::spark::kubeflow {

// What BuildSparkApplication refuses, and also, so that the outcome never depends on whether the
// operator's webhook is installed, what its newest validating webhook refuses in sparkConf:
// spark.kubernetes.driver.master, a spark.kubernetes.[driver.|executor.]container.image key and
// any spark.kubernetes.authenticate.* key (the image and the service account are the executor's
// settings, written as spec.image and spec.{driver,executor}.serviceAccount). A conf of
// spark.{driver,executor}.cores or spark.executor.instances that isn't a whole number from 1 to
// 2^31-1 is INVALID_ARGUMENT (the CRD holds them as int32 >= 1).
// Written: type (Python for a .py executable, R for .R, else Java), mode cluster, sparkVersion,
// image, mainApplicationFile, mainClass, arguments, deps (the template's jars, files and
// archives after any the conf's spark.jars/spark.files/spark.archives name), the rest of the conf
// as sparkConf, restartPolicy Never (one run is one execution), driver and executor with the
// service account and the cores/memory/instances confs, and timeToLiveSeconds from
// ttl_after_stop_ms (rounded up to whole seconds). The operator copies the app's labels to its
// pods itself.
// Whether the operator's newest webhook refuses the Spark conf key (the denylist above).
bool IsDeniedConfKey(std::string_view key);

absl::StatusOr<BuiltApplication> BuildSparkApplication(std::string_view job_id,
                                                       std::string_view metalake,
                                                       const SparkTemplate& spark_template,
                                                       const BuilderOptions& options);

}  // namespace kje::spark::kubeflow
