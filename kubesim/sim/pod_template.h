#pragma once

// A pod template applied to a pod Spark builds, as spark-submit applies
// spark.kubernetes.{driver,executor}.podTemplateFile, whichever operator hands it the template:
// the template is the base, and what Spark sets wins.
//
//   metadata.labels, annotations   the template's entries, Spark's (already on the pod) winning
//   spec fields Spark doesn't set  the template's (tolerations, affinity, priorityClassName,
//                                  securityContext, initContainers, ...); nodeSelector merged,
//                                  Spark's entries winning
//   spec.volumes                   the template's, then Spark's
//   the Spark container            the template's first container (or the one named by
//                                  spark.kubernetes.driver.podTemplateContainerName): its env and
//                                  envFrom, mounts and resources first, Spark's after (a
//                                  variable or resource Spark sets replaces the template's);
//                                  the rest of its fields where Spark sets none
//   the template's other containers  sidecars, after Spark's container

#include <boost/json.hpp>
#include <string_view>

#include "kubesim/sim/spark_pod_conf.h"

namespace kubesim::sim {

// The PodTemplateSpec at `tmpl` (nullptr: none) applied to `pod` (metadata and spec built by
// Spark, its first container Spark's). `container_name` picks the template's Spark container
// ("" for the first).
void ApplyPodTemplate(const boost::json::object* tmpl, std::string_view container_name,
                      boost::json::object* pod);

// The template's nodeSelector entries added to the role's conf where Spark's confs set none, so
// that the scheduler places the pod by both.
void AddTemplateNodeSelector(const boost::json::object* tmpl, SparkPodConf* conf);

}  // namespace kubesim::sim
