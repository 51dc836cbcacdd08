#pragma once

// The driver's and executors' pod customisation a template asks for, whatever the operator:
// custom fields holding a core/v1 PodTemplateSpec (a documented subset of it) per role, the
// ConfigMaps of Spark and Hadoop configuration, and the Secret that carries the template's
// environment variables. Checked once, against the rules Kubernetes applies to a pod, before
// anything is created; each operator's builder writes the result into its own pod-template field.
//
// Custom fields (each a JSON text, as a template's custom fields are strings):
//   podTemplate           a PodTemplateSpec for both roles
//   podTemplate.driver    the driver's, instead of podTemplate
//   podTemplate.executor  the executors', instead of podTemplate
//   sparkConfigMap        a ConfigMap mounted at /etc/spark/conf in both roles
//   hadoopConfigMap       a ConfigMap mounted at /etc/hadoop/conf, HADOOP_CONF_DIR pointing there

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace kje::spark {

inline constexpr std::string_view kCustomFieldPodTemplate = "podTemplate";
inline constexpr std::string_view kCustomFieldPodTemplateDriver = "podTemplate.driver";
inline constexpr std::string_view kCustomFieldPodTemplateExecutor = "podTemplate.executor";
inline constexpr std::string_view kCustomFieldSparkConfigMap = "sparkConfigMap";
inline constexpr std::string_view kCustomFieldHadoopConfigMap = "hadoopConfigMap";

// Where those ConfigMaps are mounted, and the volumes that mount them.
inline constexpr std::string_view kSparkConfigMapPath = "/etc/spark/conf";
inline constexpr std::string_view kHadoopConfigMapPath = "/etc/hadoop/conf";
inline constexpr std::string_view kSparkConfigMapVolume = "spark-configmap-volume";
inline constexpr std::string_view kHadoopConfigMapVolume = "hadoop-configmap-volume";

// Spark's executor container (the driver's is kDriverContainerName).
inline constexpr std::string_view kExecutorContainerName = "spark-kubernetes-executor";

// The largest custom field value holding a pod template (the application itself is bounded by
// BuilderOptions::max_application_bytes).
inline constexpr size_t kMaxPodTemplateBytes = 256 * 1024;

struct PodTemplates {
  // Each role's PodTemplateSpec as compact JSON, its first container Spark's (named as Spark
  // names it); "" when the template customises nothing for that role.
  std::string driver;
  std::string executor;
  bool empty() const { return driver.empty() && executor.empty(); }
};

// The Secret a template's environment variables go into: created before the application, owned
// by it once it exists, read by both roles' Spark containers through envFrom.
struct EnvironmentSecret {
  std::string name;                // "" when the template sets no environment variables
  std::vector<std::string> names;  // the variables, sorted (never their values)
};

// The Secret's name for the application `app_name`.
std::string EnvironmentSecretName(std::string_view app_name);

// Whether `name` is a valid environment variable name for Kubernetes: [-._a-zA-Z][-._a-zA-Z0-9]*.
bool IsEnvVarName(std::string_view name);

// Whether `key` is a custom field this file reads, or looks meant to be one (an unknown
// podTemplate.* key): those are refused rather than ignored.
bool IsPodCustomField(std::string_view key);

// The pod templates of a job: its custom fields checked, the ConfigMaps mounted, and envFrom the
// Secret `env_secret` ("" for none) added to both Spark containers. INVALID_ARGUMENT naming the
// custom field and the path inside it for an unknown key or a malformed value. `template_name`
// is already quoted.
absl::StatusOr<PodTemplates> ResolvePodTemplates(
    const std::map<std::string, std::string>& custom_fields, std::string_view env_secret,
    const std::string& template_name);

// The environment variables' Secret (core/v1, type Opaque, stringData) with the given labels, as
// JSON: its values are in it, so it goes to the API server and nowhere else.
std::string BuildEnvironmentSecret(std::string_view name, std::string_view namespace_,
                                   const std::map<std::string, std::string>& labels,
                                   const std::map<std::string, std::string>& environments);

}  // namespace kje::spark
