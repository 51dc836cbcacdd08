#include "spark/kubeflow/schedule_projection.h"

#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "spark/app_projection.h"
#include "spark/json_util.h"
#include "spark/template_hash.h"

namespace kje::spark::kubeflow {
namespace {

// Readers of one member that tell "absent" (or null, which the API server writes for an unset
// time) from "present with the wrong type": the latter is an error naming `path`.
absl::Status WrongType(std::string_view path, std::string_view expected) {
  return absl::InvalidArgumentError(
      absl::StrCat("ScheduledSparkApplication field ", ToAbsl(path), " isn't ", ToAbsl(expected)));
}

const rapidjson::Value* Present(const rapidjson::Value* object, std::string_view key) {
  const rapidjson::Value* value = json::Member(object, key);
  return value == nullptr || value->IsNull() ? nullptr : value;
}

absl::StatusOr<const rapidjson::Value*> ObjectAt(const rapidjson::Value* object,
                                                 std::string_view key, std::string_view path) {
  const rapidjson::Value* value = Present(object, key);
  if (value != nullptr && !value->IsObject()) return WrongType(path, "an object");
  return value;
}

absl::StatusOr<std::string> StringAt(const rapidjson::Value* object, std::string_view key,
                                     std::string_view path) {
  const rapidjson::Value* value = Present(object, key);
  if (value == nullptr) return std::string();
  if (!value->IsString()) return WrongType(path, "a string");
  return std::string(json::View(*value));
}

absl::StatusOr<std::optional<bool>> BoolAt(const rapidjson::Value* object, std::string_view key,
                                           std::string_view path) {
  const rapidjson::Value* value = Present(object, key);
  if (value == nullptr) return std::optional<bool>();
  if (!value->IsBool()) return WrongType(path, "a boolean");
  return std::optional<bool>(value->GetBool());
}

absl::StatusOr<int32_t> LimitAt(const rapidjson::Value* object, std::string_view key,
                                std::string_view path) {
  const rapidjson::Value* value = Present(object, key);
  if (value == nullptr) return kDefaultRunHistoryLimit;
  if (!value->IsInt()) return WrongType(path, "a 32-bit integer");
  return static_cast<int32_t>(value->GetInt());
}

absl::StatusOr<EpochMillis> TimeAt(const rapidjson::Value* object, std::string_view key,
                                   std::string_view path) {
  const rapidjson::Value* value = Present(object, key);
  if (value == nullptr) return kNoTime;
  if (!value->IsString()) return WrongType(path, "an RFC 3339 time");
  if (value->GetStringLength() == 0) return kNoTime;
  EpochMillis time = ParseRfc3339Millis(json::View(*value));
  if (time == kNoTime) return WrongType(path, "an RFC 3339 time");
  return time;
}

absl::StatusOr<std::vector<std::string>> StringsAt(const rapidjson::Value* object,
                                                   std::string_view key, std::string_view path) {
  std::vector<std::string> out;
  const rapidjson::Value* value = Present(object, key);
  if (value == nullptr) return out;
  if (!value->IsArray()) return WrongType(path, "an array of strings");
  for (const rapidjson::Value& item : value->GetArray()) {
    if (!item.IsString()) return WrongType(path, "an array of strings");
    out.emplace_back(json::View(item));
  }
  return out;
}

ScheduleState ParseScheduleState(std::string_view text) {
  if (text.empty()) return ScheduleState::kNew;
  for (ScheduleState state :
       {ScheduleState::kValidating, ScheduleState::kScheduled, ScheduleState::kFailedValidation}) {
    if (text == ScheduleStateName(state)) return state;
  }
  return ScheduleState::kUnrecognized;
}

}  // namespace

std::string_view ScheduleStateName(ScheduleState state) {
  switch (state) {
    case ScheduleState::kValidating:
      return "Validating";
    case ScheduleState::kScheduled:
      return "Scheduled";
    case ScheduleState::kFailedValidation:
      return "FailedValidation";
    case ScheduleState::kNew:
    case ScheduleState::kUnrecognized:
      break;
  }
  return "";
}

absl::StatusOr<Schedule> ProjectSchedule(const rapidjson::Value& schedule) {
  if (!schedule.IsObject()) {
    return absl::InvalidArgumentError("a ScheduledSparkApplication must be a JSON object");
  }
  Schedule out;
  ASSIGN_OR_RETURN(const rapidjson::Value* metadata, ObjectAt(&schedule, "metadata", "metadata"));
  ASSIGN_OR_RETURN(out.name, StringAt(metadata, "name", "metadata.name"));
  ASSIGN_OR_RETURN(out.namespace_, StringAt(metadata, "namespace", "metadata.namespace"));
  if (out.name.empty() || out.namespace_.empty()) {
    return absl::InvalidArgumentError(
        "a ScheduledSparkApplication needs a metadata.name and a metadata.namespace");
  }
  ASSIGN_OR_RETURN(out.uid, StringAt(metadata, "uid", "metadata.uid"));
  ASSIGN_OR_RETURN(out.resource_version,
                   StringAt(metadata, "resourceVersion", "metadata.resourceVersion"));
  ASSIGN_OR_RETURN(out.creation_time,
                   TimeAt(metadata, "creationTimestamp", "metadata.creationTimestamp"));
  out.deleting = json::String(metadata, "deletionTimestamp").has_value();
  ASSIGN_OR_RETURN(const rapidjson::Value* labels, ObjectAt(metadata, "labels", "metadata.labels"));
  if (labels != nullptr) {
    for (const auto& label : labels->GetObject()) {
      if (!label.value.IsString()) {
        return WrongType(absl::StrCat("metadata.labels.", QuoteBounded(json::View(label.name))),
                         "a string");
      }
      out.labels.emplace_back(json::View(label.name), json::View(label.value));
    }
  }
  out.template_hash =
      std::string(json::String(json::Member(metadata, "annotations"), kAnnotationTemplateHash)
                      .value_or("")
                      .substr(0, kMaxTemplateHashBytes));

  ASSIGN_OR_RETURN(const rapidjson::Value* spec, ObjectAt(&schedule, "spec", "spec"));
  ASSIGN_OR_RETURN(out.spec.cron, StringAt(spec, "schedule", "spec.schedule"));
  ASSIGN_OR_RETURN(out.spec.time_zone, StringAt(spec, "timeZone", "spec.timeZone"));
  ASSIGN_OR_RETURN(std::string policy,
                   StringAt(spec, "concurrencyPolicy", "spec.concurrencyPolicy"));
  out.spec.concurrency_policy = ParseConcurrencyPolicy(policy);
  if (out.spec.concurrency_policy == ConcurrencyPolicy::kUnrecognized) {
    out.unrecognized_policy = CapMessage(policy);
  }
  ASSIGN_OR_RETURN(out.spec.successful_run_history_limit,
                   LimitAt(spec, "successfulRunHistoryLimit", "spec.successfulRunHistoryLimit"));
  ASSIGN_OR_RETURN(out.spec.failed_run_history_limit,
                   LimitAt(spec, "failedRunHistoryLimit", "spec.failedRunHistoryLimit"));
  ASSIGN_OR_RETURN(std::optional<bool> suspend, BoolAt(spec, "suspend", "spec.suspend"));
  out.spec.suspended = suspend.value_or(false);
  ASSIGN_OR_RETURN(const rapidjson::Value* template_spec,
                   ObjectAt(spec, "template", "spec.template"));
  (void)template_spec;

  ASSIGN_OR_RETURN(const rapidjson::Value* status, ObjectAt(&schedule, "status", "status"));
  ASSIGN_OR_RETURN(std::string state, StringAt(status, "scheduleState", "status.scheduleState"));
  const ScheduleState known = ParseScheduleState(state);
  out.state = known == ScheduleState::kUnrecognized ? CapMessage(state)
                                                    : std::string(ScheduleStateName(known));
  out.refused = known == ScheduleState::kFailedValidation;
  ASSIGN_OR_RETURN(std::string reason, StringAt(status, "reason", "status.reason"));
  out.reason = CapMessage(reason);
  ASSIGN_OR_RETURN(out.last_run, TimeAt(status, "lastRun", "status.lastRun"));
  ASSIGN_OR_RETURN(out.next_run, TimeAt(status, "nextRun", "status.nextRun"));
  ASSIGN_OR_RETURN(out.last_run_name, StringAt(status, "lastRunName", "status.lastRunName"));
  ASSIGN_OR_RETURN(out.past_successful_run_names,
                   StringsAt(status, "pastSuccessfulRunNames", "status.pastSuccessfulRunNames"));
  ASSIGN_OR_RETURN(out.past_failed_run_names,
                   StringsAt(status, "pastFailedRunNames", "status.pastFailedRunNames"));
  return out;
}

absl::StatusOr<Schedule> ProjectScheduleJson(std::string_view json_text) {
  rapidjson::Document document;
  document.Parse(json_text.data(), json_text.size());
  if (document.HasParseError()) {
    return absl::InvalidArgumentError("the ScheduledSparkApplication isn't JSON");
  }
  return ProjectSchedule(document);
}

}  // namespace kje::spark::kubeflow
