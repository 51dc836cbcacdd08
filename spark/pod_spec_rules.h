#pragma once

// The core/v1 rules a pod template must meet, over the subset of a PodTemplateSpec a job
// template may set (spark/pod_template.h): the fields known, each value of its type and shape
// (names that are DNS labels, absolute mount paths, mounts of volumes that exist, quantities,
// label keys and values, toleration and affinity operators). What the API server would refuse
// only once the operator creates the pod is refused here, before anything exists.

#include <string_view>

#include "absl/status/status.h"
#include "rapidjson/document.h"

namespace kje::spark {

enum class PodRole { kDriver, kExecutor };

// OK, or INVALID_ARGUMENT whose message is "<path>: <problem>" (the path inside the template,
// such as spec.containers[0].volumeMounts[1].mountPath). Never quotes more than a bounded
// excerpt of a value.
absl::Status CheckPodTemplateSpec(const rapidjson::Value& spec_template, PodRole role);

// The name Spark gives the role's container.
std::string_view SparkContainerName(PodRole role);

// Whether `text` is a Kubernetes resource quantity ("1", "500m", "2Gi", "1e3").
bool IsQuantity(std::string_view text);
// Whether `key` is a qualified name as label and annotation keys are ([prefix/]name).
bool IsQualifiedName(std::string_view key);
// Whether `value` is a valid label value (may be empty).
bool IsLabelValue(std::string_view value);

}  // namespace kje::spark
