#include "spark/app_projection.h"

#include <algorithm>
#include <charconv>

#include "spark/driver_pod.h"
#include "spark/json_util.h"
#include "spark/names.h"

namespace kje::spark {
namespace {

// Java's Long.parseLong, which the reference uses on history keys: an optional sign and decimal
// digits, nothing else, within int64.
std::optional<int64_t> ParseHistoryId(std::string_view key) {
  std::string_view digits = key;
  bool negative = false;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  // Parse with the sign attached so that int64's minimum is accepted, as Java does.
  // Appended in place: at -O3, GCC 12 warns (-Wrestrict, wrongly) on "-" + std::string.
  std::string text;
  text.reserve(digits.size() + 1);
  if (negative) text.push_back('-');
  text.append(digits);
  int64_t id = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return id;
}

struct RawEntry {
  int64_t id;
  std::string_view summary;
  const rapidjson::Value* value;
};

StateEntry ToEntry(const RawEntry& raw, std::string_view driver_container) {
  StateEntry entry;
  entry.id = raw.id;
  entry.state = ParseAppState(raw.summary);
  entry.transition_time = json::Time(raw.value, "lastTransitionTime");
  if (const rapidjson::Value* driver = json::Member(raw.value, "lastObservedDriverStatus")) {
    ContainerTimes times = DriverContainerTimes(*driver, driver_container);
    entry.driver_started = times.started;
    entry.driver_finished = times.finished;
  }
  return entry;
}

}  // namespace

std::string CapMessage(std::string_view message) {
  if (message.size() <= kMaxMessageBytes) return std::string(message);
  size_t cut = kMaxMessageBytes;
  while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) --cut;
  return std::string(message.substr(0, cut)) + "...";
}

std::string_view AppProjection::OperatorState() const {
  if (kind() == OperatorKind::kKubeflow) {
    if (!has_status()) return "";
    if (kubeflow_state_ == kubeflow::State::kUnrecognized) return unknown_current_state();
    return kubeflow::StateName(kubeflow_state_);
  }
  if (history().empty()) return "";
  if (current_state_ == AppState::kUnknown) return unknown_current_state();
  return AppStateName(current_state_);
}

absl::StatusOr<AppFields> ProjectMetadata(const rapidjson::Value& app) {
  const rapidjson::Value* metadata = json::Member(app, "metadata");
  std::optional<std::string_view> name = json::String(metadata, "name");
  std::optional<std::string_view> namespace_ = json::String(metadata, "namespace");
  // An API server never serves a namespaced object with an empty name or namespace; one that
  // says so is not an object this cache can key or answer for.
  if (!name || !namespace_ || name->empty() || namespace_->empty()) {
    return absl::InvalidArgumentError(
        "A SparkApplication without a non-empty metadata.name and metadata.namespace");
  }
  AppFields projection;
  projection.name = std::string(*name);
  projection.namespace_ = std::string(*namespace_);
  projection.uid = std::string(json::String(metadata, "uid").value_or(""));
  projection.resource_version = std::string(json::String(metadata, "resourceVersion").value_or(""));
  projection.creation_time = json::Time(metadata, "creationTimestamp");
  projection.deleting = json::String(metadata, "deletionTimestamp").has_value();
  projection.deletion_time = json::Time(metadata, "deletionTimestamp");
  const rapidjson::Value* labels = json::Member(metadata, "labels");
  projection.managed_by_us = json::String(labels, kLabelManagedBy) == kManagedByGravitino;
  if (labels && labels->IsObject()) {
    projection.labels.reserve(labels->MemberCount());
    for (const auto& m : labels->GetObject()) {
      if (!m.value.IsString()) continue;
      projection.labels.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()),
                                     std::string(m.value.GetString(), m.value.GetStringLength()));
    }
  }
  const rapidjson::Value* annotations = json::Member(metadata, "annotations");
  projection.metalake = std::string(json::String(annotations, kAnnotationMetalake).value_or(""));
  projection.cancel_requested =
      json::String(annotations, kAnnotationCancelRequested) == kCancelRequestedValue;
  const rapidjson::Value* status = json::Member(app, "status");
  projection.has_status =
      status != nullptr && !status->IsNull() && !(status->IsObject() && status->MemberCount() == 0);
  return projection;
}

absl::StatusOr<AppProjection> ProjectApp(const rapidjson::Value& app) {
  absl::StatusOr<AppFields> projected = ProjectMetadata(app);
  if (!projected.ok()) return projected.status();
  AppFields& projection = *projected;
  const rapidjson::Value* labels = json::Member(json::Member(app, "metadata"), "labels");
  projection.kueue_queued = json::String(labels, kLabelKueueQueueName).has_value();
  const rapidjson::Value* spec = json::Member(app, "spec");
  if (const rapidjson::Value* suspend = json::Member(spec, "suspend")) {
    projection.suspend_requested = suspend->IsBool() && suspend->GetBool();
  }
  projection.driver_container = DriverContainerName(spec);
  projection.spark_app_id =
      std::string(json::String(json::Member(spec, "sparkConf"), kConfAppId).value_or(""));

  const rapidjson::Value* status = json::Member(app, "status");
  projection.attempt_id =
      json::Int(json::Member(json::Member(status, "currentAttemptSummary"), "attemptInfo"), "id")
          .value_or(0);
  std::vector<RawEntry> raw;
  const rapidjson::Value* history = json::Member(status, "stateTransitionHistory");
  if (history != nullptr && history->IsObject()) {
    raw.reserve(history->MemberCount());
    for (const auto& member : history->GetObject()) {
      std::optional<int64_t> id = ParseHistoryId(json::View(member.name));
      std::optional<std::string_view> summary = json::String(&member.value, "currentStateSummary");
      if (!id || !summary) continue;
      raw.push_back(RawEntry{*id, *summary, &member.value});
    }
  }
  std::stable_sort(raw.begin(), raw.end(),
                   [](const RawEntry& a, const RawEntry& b) { return a.id < b.id; });
  const rapidjson::Value* current = json::Member(status, "currentState");
  std::optional<std::string_view> current_summary = json::String(current, "currentStateSummary");
  // The history may have been trimmed on a restart; the current state is the truth.
  if (current_summary && (raw.empty() || raw.back().summary != *current_summary)) {
    raw.push_back(RawEntry{kCurrentStateId, *current_summary, current});
  }
  projection.history.reserve(raw.size());
  for (const RawEntry& entry : raw) {
    projection.history.push_back(ToEntry(entry, projection.driver_container));
  }
  if (!raw.empty()) {
    if (projection.history.back().state == AppState::kUnknown) {
      projection.unknown_current_state = std::string(raw.back().summary);
    }
    const rapidjson::Value* message_source = current != nullptr ? current : raw.back().value;
    projection.current_message = CapMessage(json::String(message_source, "message").value_or(""));
    if (IsSuspendedState(projection.history.back().state)) {
      std::optional<std::string_view> reason = json::String(current, "suspendReason");
      projection.suspend_reason =
          std::string(reason && !reason->empty() ? *reason : kSuspendReasonSpec);
    }
  }
  return AppProjection(projection);
}

absl::StatusOr<AppProjection> ProjectJsonWith(
    std::string_view json_text,
    absl::FunctionRef<absl::StatusOr<AppProjection>(const rapidjson::Value&)> project) {
  rapidjson::Document document;
  document.Parse(json_text.data(), json_text.size());
  if (document.HasParseError()) {
    return absl::InvalidArgumentError("A SparkApplication that isn't valid JSON");
  }
  return project(document);
}

absl::StatusOr<AppProjection> ProjectAppJson(std::string_view json_text) {
  return ProjectJsonWith(json_text, ProjectApp);
}

bool HasState(const AppProjection& app) {
  // A v1beta2 status always carries a state: "" is the operator's New.
  if (app.kind() == OperatorKind::kKubeflow) return app.has_status();
  return !app.history().empty();
}

bool IsHeldWithoutStatus(const AppProjection& app) {
  // kubeflow/spark-operator writes a status for a suspended app too (SUSPENDING, SUSPENDED).
  if (app.kind() == OperatorKind::kKubeflow) return false;
  return app.suspend_requested() || app.kueue_queued();
}

bool IsStopped(const AppProjection& app) {
  if (app.kind() == OperatorKind::kKubeflow) {
    return app.has_status() && kubeflow::IsTerminated(app.kubeflow().state);
  }
  if (app.history().empty()) return false;
  return IsOutcomeState(app.current_state()) || IsStoppedState(app.current_state());
}

}  // namespace kje::spark
