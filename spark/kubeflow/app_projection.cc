#include "spark/kubeflow/app_projection.h"

#include "absl/strings/ascii.h"
#include "base/strings.h"
#include "spark/json_util.h"
#include "spark/names.h"

namespace kje::spark::kubeflow {
namespace {

std::string DriverContainer(const rapidjson::Value* spec) {
  std::optional<std::string_view> configured =
      json::String(json::Member(spec, "sparkConf"), kConfDriverPodTemplateContainerName);
  if (configured) {
    absl::string_view name = absl::StripAsciiWhitespace(ToAbsl(*configured));
    if (!name.empty()) return std::string(name);
  }
  // Spark makes a pod template's first container the driver and keeps its name.
  const rapidjson::Value* containers = json::Member(
      json::Member(json::Member(json::Member(spec, "driver"), "template"), "spec"), "containers");
  if (containers != nullptr && containers->IsArray() && !containers->Empty()) {
    std::optional<std::string_view> name = json::String(&(*containers)[0], "name");
    if (name && !name->empty()) return std::string(*name);
  }
  return std::string(kDriverContainerName);
}

}  // namespace

absl::StatusOr<AppProjection> ProjectApp(const rapidjson::Value& app) {
  absl::StatusOr<AppProjection> projected = ProjectMetadata(app);
  if (!projected.ok()) return projected.status();
  AppProjection& projection = *projected;
  projection.kind = OperatorKind::kKubeflow;
  const rapidjson::Value* spec = json::Member(app, "spec");
  if (const rapidjson::Value* suspend = json::Member(spec, "suspend")) {
    projection.suspend_requested = suspend->IsBool() && suspend->GetBool();
  }
  projection.driver_container = DriverContainer(spec);

  const rapidjson::Value* status = json::Member(app, "status");
  const rapidjson::Value* application_state = json::Member(status, "applicationState");
  std::string_view state = json::String(application_state, "state").value_or("");
  KubeflowStatus& out = projection.kubeflow;
  out.state = ParseState(state);
  if (out.state == State::kUnrecognized) out.unrecognized_state = std::string(state);
  projection.current_message =
      CapMessage(json::String(application_state, "errorMessage").value_or(""));
  out.submission_id = std::string(json::String(status, "submissionID").value_or(""));
  out.driver_pod_name =
      std::string(json::String(json::Member(status, "driverInfo"), "podName").value_or(""));
  out.submission_time = json::Time(status, "lastSubmissionAttemptTime");
  out.termination_time = json::Time(status, "terminationTime");
  out.execution_attempts = json::Int(status, "executionAttempts").value_or(0);
  return projected;
}

absl::StatusOr<AppProjection> ProjectAppJson(std::string_view json_text) {
  rapidjson::Document document;
  document.Parse(json_text.data(), json_text.size());
  if (document.HasParseError()) {
    return absl::InvalidArgumentError("A SparkApplication that isn't valid JSON");
  }
  return ProjectApp(document);
}

}  // namespace kje::spark::kubeflow
