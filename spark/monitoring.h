#pragma once

// Driver and executor metrics for Prometheus, whatever the operator: which of the two a job
// exposes (the deployment's monitoring.expose, which a template's custom field `monitoring`
// overrides) and, for the operators that run a JMX exporter agent, its jar and port. Each
// operator's builder writes it in its own terms. Pure.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kje::spark {

inline constexpr std::string_view kCustomFieldMonitoring = "monitoring";
// The JMX exporter's port range as the Kubeflow CRD bounds it, and its default.
inline constexpr int32_t kMinMetricsPort = 1024;
inline constexpr int32_t kMaxMetricsPort = 49151;
inline constexpr int32_t kDefaultMetricsPort = 8090;

struct Monitoring {
  bool driver = false;
  bool executor = false;
  // The JMX exporter agent's jar in the image and the port it serves on.
  std::string jmx_exporter_jar;
  int32_t port = kDefaultMetricsPort;

  bool enabled() const { return driver || executor; }
};

// Sets `driver` and `executor` from a list as monitoring.expose and the custom field take it:
// "driver", "executor", "driver,executor" (any order, spaces allowed) or "none"/"".
// INVALID_ARGUMENT naming `what` for anything else.
absl::Status ParseMonitoringExpose(std::string_view text, std::string_view what,
                                   Monitoring& monitoring);

// The job's monitoring: the deployment's, with the template's custom field `monitoring` (when
// set) deciding what is exposed.
absl::StatusOr<Monitoring> ResolveMonitoring(
    const std::map<std::string, std::string>& custom_fields, const Monitoring& deployment,
    std::string_view template_name);

}  // namespace kje::spark
