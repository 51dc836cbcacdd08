#include "spark/kubeflow/app_projection.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "spark/driver_pod.h"
#include "spark/json_util.h"
#include "spark/names.h"

namespace kje::spark::kubeflow {
namespace {

// The operator writes webUIAddress once its UI service has a cluster IP; the service's DNS name
// reaches the same UI and is known as soon as the service is.
std::string WebUiAddress(const rapidjson::Value* driver_info, std::string_view namespace_) {
  std::string_view address = json::String(driver_info, "webUIAddress").value_or("");
  if (!address.empty()) return std::string(address);
  std::string_view service = json::String(driver_info, "webUIServiceName").value_or("");
  std::optional<int64_t> port = json::Int(driver_info, "webUIPort");
  if (service.empty() || !port || *port <= 0 || *port > 65535) return "";
  return absl::StrCat(ToAbsl(service), ".", ToAbsl(namespace_), ".svc:", *port);
}

enum PackedFlag : uint8_t { kRetriesFlag = 1, kQueueFlag = 2, kExecutorsPendingFlag = 4 };

}  // namespace

absl::StatusOr<AppProjection> ProjectApp(const rapidjson::Value& app) {
  absl::StatusOr<AppFields> projected = ProjectMetadata(app);
  if (!projected.ok()) return projected.status();
  AppFields& projection = *projected;
  const rapidjson::Value* spec = json::Member(app, "spec");
  if (const rapidjson::Value* suspend = json::Member(spec, "suspend")) {
    projection.suspend_requested = suspend->IsBool() && suspend->GetBool();
  }
  // Spark makes a pod template's first container the driver and keeps its name.
  projection.driver_container = DriverContainerName(
      json::Member(spec, "sparkConf"),
      json::Member(json::Member(json::Member(spec, "driver"), "template"), "spec"));

  const rapidjson::Value* status = json::Member(app, "status");
  const rapidjson::Value* application_state = json::Member(status, "applicationState");
  std::string_view state = json::String(application_state, "state").value_or("");
  KubeflowStatus out;
  out.state = ParseState(state);
  if (out.state == State::kUnrecognized) projection.unknown_current_state = std::string(state);
  projection.current_message =
      CapMessage(json::String(application_state, "errorMessage").value_or(""));
  out.submission_id = std::string(json::String(status, "submissionID").value_or(""));
  const rapidjson::Value* driver_info = json::Member(status, "driverInfo");
  out.driver_pod_name = std::string(json::String(driver_info, "podName").value_or(""));
  out.web_ui_address = WebUiAddress(driver_info, projection.namespace_);
  projection.spark_app_id = std::string(json::String(status, "sparkApplicationId").value_or(""));
  out.submission_time = json::Time(status, "lastSubmissionAttemptTime");
  out.termination_time = json::Time(status, "terminationTime");
  out.execution_attempts = json::Int(status, "executionAttempts").value_or(0);
  // Whether a failed submission is submitted again, as the operator decides it: always under
  // Always; under OnFailure while submissionAttempts <= onSubmissionFailureRetries (unset: never).
  const rapidjson::Value* restart_policy = json::Member(spec, "restartPolicy");
  const std::string_view restart = json::String(restart_policy, "type").value_or("");
  const std::optional<int64_t> submission_retries =
      json::Int(restart_policy, "onSubmissionFailureRetries");
  out.retries = restart == "Always" ||
                (restart == "OnFailure" && submission_retries &&
                 json::Int(status, "submissionAttempts").value_or(0) <= *submission_retries);
  out.queue =
      std::string(json::String(json::Member(spec, "batchSchedulerOptions"), "queue").value_or(""));
  if (const rapidjson::Value* executors = json::Member(status, "executorState");
      executors != nullptr && executors->IsObject()) {
    for (const auto& executor : executors->GetObject()) {
      ++out.executors;
      if (executor.value.IsString() && json::View(executor.value) == "PENDING") {
        ++out.executors_pending;
      }
    }
  }
  SetStatus(out, projection);
  return AppProjection(projection);
}

absl::StatusOr<AppProjection> ProjectAppJson(std::string_view json_text) {
  return ProjectJsonWith(json_text, ProjectApp);
}

// The operator's part: the three strings, then the two times and the attempts, each a zigzag
// varint, then a byte of flags (retries; a queue follows), then the queue's bytes only when the
// app names one.
void SetStatus(const KubeflowStatus& status, AppFields& fields) {
  fields.operator_state = static_cast<uint8_t>(status.state);
  std::string& out = fields.operator_status;
  out.clear();
  packing::PutBytes(out, status.submission_id);
  packing::PutBytes(out, status.driver_pod_name);
  packing::PutBytes(out, status.web_ui_address);
  packing::PutSigned(out, status.submission_time);
  packing::PutSigned(out, status.termination_time);
  packing::PutSigned(out, status.execution_attempts);
  const bool has_queue = !status.queue.empty();
  const bool pending = status.executors_pending > 0;
  out.push_back(static_cast<char>((status.retries ? kRetriesFlag : 0) |
                                  (has_queue ? kQueueFlag : 0) |
                                  (pending ? kExecutorsPendingFlag : 0)));
  if (has_queue) packing::PutBytes(out, status.queue);
  if (pending) {
    packing::PutSigned(out, status.executors);
    packing::PutSigned(out, status.executors_pending);
  }
}

KubeflowView ViewOf(const AppProjection& app) {
  KubeflowView view;
  view.state = static_cast<State>(app.operator_state());
  std::string_view packed = app.operator_status();
  if (packed.empty()) return view;  // a projection made without SetStatus
  const char* at = packed.data();
  view.submission_id = packing::GetBytes(at);
  view.driver_pod_name = packing::GetBytes(at);
  view.web_ui_address = packing::GetBytes(at);
  view.submission_time = packing::GetSigned(at);
  view.termination_time = packing::GetSigned(at);
  view.execution_attempts = packing::GetSigned(at);
  const auto flags = static_cast<uint8_t>(*at++);
  view.retries = (flags & kRetriesFlag) != 0;
  if (flags & kQueueFlag) view.queue = packing::GetBytes(at);
  if (flags & kExecutorsPendingFlag) {
    view.executors = packing::GetSigned(at);
    view.executors_pending = packing::GetSigned(at);
  }
  return view;
}

KubeflowStatus StatusOf(const AppProjection& app) {
  const KubeflowView view = ViewOf(app);
  KubeflowStatus status;
  status.state = view.state;
  status.submission_id = std::string(view.submission_id);
  status.driver_pod_name = std::string(view.driver_pod_name);
  status.submission_time = view.submission_time;
  status.termination_time = view.termination_time;
  status.execution_attempts = view.execution_attempts;
  status.web_ui_address = std::string(view.web_ui_address);
  status.retries = view.retries;
  status.queue = std::string(view.queue);
  status.executors = view.executors;
  status.executors_pending = view.executors_pending;
  return status;
}

std::string_view OperatorState(const AppProjection& app) {
  if (!app.has_status()) return "";
  const auto state = static_cast<State>(app.operator_state());
  if (state == State::kUnrecognized) return app.unknown_current_state();
  return StateName(state);
}

bool HasState(const AppProjection& app) { return app.has_status(); }

bool IsStopped(const AppProjection& app) {
  return app.has_status() && IsTerminated(static_cast<State>(app.operator_state()));
}

bool IsStarted(const AppProjection& app) {
  switch (static_cast<State>(app.operator_state())) {
    case State::kRunning:
    case State::kSucceeding:
    case State::kFailing:
    case State::kUnknown:
      return true;
    default:
      return false;
  }
}

RunDetailsRef RunDetailsOf(const AppProjection& app) {
  const KubeflowView view = ViewOf(app);
  RunDetailsRef ref(app.spark_app_id(), view.execution_attempts, view.web_ui_address,
                    view.driver_pod_name);
  const std::string_view kueue = KueueQueueOf(app);
  ref.SetQueue(kueue.empty() ? view.queue : kueue);
  return ref;
}

}  // namespace kje::spark::kubeflow
