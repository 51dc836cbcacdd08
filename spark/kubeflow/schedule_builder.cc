#include "spark/kubeflow/schedule_builder.h"

#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "spark/build_error.h"
#include "spark/json_util.h"
#include "spark/json_writer.h"
#include "spark/kubeflow/cron_check.h"
#include "spark/template_hash.h"

namespace kje::spark::kubeflow {
namespace {

using json::Key;
using json::KeyInt;
using json::KeyStr;
using json::Writer;

// A letter before the run id keeps the last dash-separated part of the name from being all
// digits, which is all the controller's names end in.
constexpr std::string_view kManualRunMarker = "r";

absl::Status CheckPolicy(ConcurrencyPolicy policy) {
  if (!ConcurrencyPolicyName(policy).empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      "concurrency_policy must be Allow, Forbid or Replace: the operator starts no further run "
      "under any other value");
}

absl::Status CheckLimit(std::string_view field, int32_t limit) {
  if (limit >= 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(ToAbsl(field), " must be 0 or more, not ", limit));
}

absl::Status CheckCron(std::string_view cron) { return ParseCron(cron).status(); }

bool IsDns1035Label(std::string_view name) {
  if (name.empty() || !absl::ascii_islower(name.front()) || name.back() == '-') return false;
  for (char c : name) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '-') return false;
  }
  return true;
}

void WriteStringMap(Writer& w, std::string_view key,
                    const std::map<std::string, std::string>& values) {
  Key(w, key);
  w.StartObject();
  for (const auto& [k, v] : values) KeyStr(w, k, v);
  w.EndObject();
}

std::string Finish(const rapidjson::StringBuffer& buffer) {
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

std::string_view ConcurrencyPolicyName(ConcurrencyPolicy policy) {
  switch (policy) {
    case ConcurrencyPolicy::kAllow:
      return "Allow";
    case ConcurrencyPolicy::kForbid:
      return "Forbid";
    case ConcurrencyPolicy::kReplace:
      return "Replace";
    case ConcurrencyPolicy::kUnset:
    case ConcurrencyPolicy::kUnrecognized:
      break;
  }
  return "";
}

ConcurrencyPolicy ParseConcurrencyPolicy(std::string_view text) {
  if (text.empty()) return ConcurrencyPolicy::kUnset;
  for (ConcurrencyPolicy policy :
       {ConcurrencyPolicy::kAllow, ConcurrencyPolicy::kForbid, ConcurrencyPolicy::kReplace}) {
    if (text == ConcurrencyPolicyName(policy)) return policy;
  }
  return ConcurrencyPolicy::kUnrecognized;
}

absl::Status CheckScheduleSpec(const ScheduleSpec& spec) {
  RETURN_IF_ERROR(CheckCron(spec.cron));
  RETURN_IF_ERROR(CheckTimeZone(spec.time_zone));
  RETURN_IF_ERROR(CheckPolicy(spec.concurrency_policy));
  RETURN_IF_ERROR(CheckLimit("successful_run_history_limit", spec.successful_run_history_limit));
  return CheckLimit("failed_run_history_limit", spec.failed_run_history_limit);
}

absl::Status CheckScheduleName(std::string_view name) {
  if (!IsDns1035Label(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "name ", QuoteBounded(name),
        " must start with a lower-case letter, hold only lower-case letters, digits and '-', "
        "and not end with '-'"));
  }
  if (name.size() > kMaxScheduleNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("name ", QuoteBounded(name), " has ", name.size(),
                     " characters; a schedule's name has at most ", kMaxScheduleNameLength,
                     " so that its runs' names (", kRunTimestampDigits,
                     " digits are added) stay within ", kMaxNameLength));
  }
  return absl::OkStatus();
}

absl::StatusOr<BuiltObject> BuildScheduledApplication(const ScheduleMeta& meta,
                                                      const ScheduleSpec& spec,
                                                      std::string_view application_json) {
  RETURN_IF_ERROR(CheckScheduleName(meta.name));
  RETURN_IF_ERROR(CheckScheduleSpec(spec));
  if (meta.labels.count(std::string(kLabelScheduledAppName)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("label ", ToAbsl(kLabelScheduledAppName),
                     " is the operator's: on a schedule it would move the runs to another one"));
  }
  rapidjson::Document app;
  app.Parse(application_json.data(), application_json.size());
  const rapidjson::Value* spark_spec = app.HasParseError() ? nullptr : json::Member(app, "spec");
  if (spark_spec == nullptr || !spark_spec->IsObject() ||
      json::String(&app, "apiVersion") != kApiVersion || json::String(&app, "kind") != kKind) {
    return absl::InvalidArgumentError(
        "the schedule's template must be a sparkoperator.k8s.io/v1beta2 SparkApplication with a "
        "spec");
  }
  std::string namespace_ = meta.namespace_;
  std::string_view app_namespace =
      json::String(json::Member(app, "metadata"), "namespace").value_or("");
  if (namespace_.empty()) namespace_ = std::string(app_namespace);
  if (namespace_.empty() || (!app_namespace.empty() && app_namespace != namespace_)) {
    return absl::InvalidArgumentError(absl::StrCat("namespace ", QuoteBounded(namespace_),
                                                   " of the schedule must be its application's, ",
                                                   QuoteBounded(app_namespace)));
  }

  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  KeyStr(w, "apiVersion", kApiVersion);
  KeyStr(w, "kind", kScheduledKind);
  ObjectMeta written = meta;
  written.namespace_ = std::string(namespace_);
  WriteObjectMeta(w, written);
  Key(w, "spec");
  w.StartObject();
  KeyStr(w, "schedule", spec.cron);
  if (!spec.time_zone.empty()) KeyStr(w, "timeZone", spec.time_zone);
  KeyStr(w, "concurrencyPolicy", ConcurrencyPolicyName(spec.concurrency_policy));
  KeyInt(w, "successfulRunHistoryLimit", spec.successful_run_history_limit);
  KeyInt(w, "failedRunHistoryLimit", spec.failed_run_history_limit);
  Key(w, "suspend");
  w.Bool(spec.suspended);
  Key(w, "template");
  spark_spec->Accept(w);
  w.EndObject();  // spec
  w.EndObject();

  BuiltObject built;
  built.namespace_ = std::move(namespace_);
  built.name = meta.name;
  built.json = Finish(buffer);
  return built;
}

absl::StatusOr<std::string> BuildScheduleUpdatePatch(const ScheduleUpdate& update) {
  if (update.cron) RETURN_IF_ERROR(CheckCron(*update.cron));
  if (update.time_zone) RETURN_IF_ERROR(CheckTimeZone(*update.time_zone));
  if (update.concurrency_policy) RETURN_IF_ERROR(CheckPolicy(*update.concurrency_policy));
  if (update.successful_run_history_limit) {
    RETURN_IF_ERROR(
        CheckLimit("successful_run_history_limit", *update.successful_run_history_limit));
  }
  if (update.failed_run_history_limit) {
    RETURN_IF_ERROR(CheckLimit("failed_run_history_limit", *update.failed_run_history_limit));
  }
  if (!SetsAnyField(update)) return absl::InvalidArgumentError("the schedule update sets no field");

  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  Key(w, "spec");
  w.StartObject();
  if (update.cron) KeyStr(w, "schedule", *update.cron);
  if (update.time_zone) {
    Key(w, "timeZone");
    // The field is omitempty: null removes it, which the operator reads as its own zone.
    if (update.time_zone->empty()) {
      w.Null();
    } else {
      json::Str(w, *update.time_zone);
    }
  }
  if (update.concurrency_policy) {
    KeyStr(w, "concurrencyPolicy", ConcurrencyPolicyName(*update.concurrency_policy));
  }
  if (update.successful_run_history_limit) {
    KeyInt(w, "successfulRunHistoryLimit", *update.successful_run_history_limit);
  }
  if (update.failed_run_history_limit) {
    KeyInt(w, "failedRunHistoryLimit", *update.failed_run_history_limit);
  }
  if (update.suspended) {
    Key(w, "suspend");
    w.Bool(*update.suspended);
  }
  w.EndObject();
  w.EndObject();
  return Finish(buffer);
}

bool MovesNextRun(const ScheduleUpdate& update) {
  return update.cron.has_value() || update.time_zone.has_value();
}

std::string BuildRescheduleStatusPatch(bool revalidate) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  Key(w, "status");
  w.StartObject();
  Key(w, "nextRun");
  w.Null();
  if (revalidate) {
    Key(w, "scheduleState");
    w.Null();
    Key(w, "reason");
    w.Null();
  }
  w.EndObject();
  w.EndObject();
  return Finish(buffer);
}

absl::Status CheckManualRunAdoption(const AppProjection& existing, std::string_view schedule_name) {
  const std::string where =
      absl::StrCat(QuoteBounded(existing.namespace_()), "/", QuoteBounded(existing.name()));
  if (existing.labels().Find(kLabelScheduledAppName) != schedule_name) {
    return absl::AlreadyExistsError(
        absl::StrCat("SparkApplication ", where, " already exists and isn't a run of schedule ",
                     QuoteBounded(schedule_name), "; choose another run_id"));
  }
  if (existing.deleting()) {
    return absl::AlreadyExistsError(
        absl::StrCat("the run ", where, " is being deleted; choose another run_id"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ManualRunName(std::string_view schedule_name, std::string_view run_id) {
  if (!IsDns1035Label(schedule_name) || schedule_name.size() > kMaxNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule name ", QuoteBounded(schedule_name),
                     " isn't a DNS-1035 label, so its runs can't be named after it"));
  }
  const size_t room =
      kMaxNameLength - std::min(kMaxNameLength, schedule_name.size() + 1 + kManualRunMarker.size());
  if (room == 0) {
    return absl::InvalidArgumentError(absl::StrCat("schedule name ", QuoteBounded(schedule_name),
                                                   " leaves no room for a run id within ",
                                                   kMaxNameLength, " characters"));
  }
  bool plain = !run_id.empty();
  for (char c : run_id) plain = plain && (absl::ascii_islower(c) || absl::ascii_isdigit(c));
  if (!plain || run_id.size() > room) {
    return TagBuildError(BuildInput::kRunId,
                         absl::InvalidArgumentError(absl::StrCat(
                             "run_id ", QuoteBounded(run_id), " must be 1 to ", room,
                             " lower-case letters and digits, so that the run's name stays within ",
                             kMaxNameLength, " characters")));
  }
  return absl::StrCat(ToAbsl(schedule_name), "-", ToAbsl(kManualRunMarker), ToAbsl(run_id));
}

absl::StatusOr<BuiltObject> BuildManualRun(const rapidjson::Value& schedule,
                                           std::string_view run_id) {
  const rapidjson::Value* metadata = json::Member(schedule, "metadata");
  std::string_view name = json::String(metadata, "name").value_or("");
  std::string_view namespace_ = json::String(metadata, "namespace").value_or("");
  std::string_view uid = json::String(metadata, "uid").value_or("");
  if (name.empty() || namespace_.empty() || uid.empty()) {
    return absl::InvalidArgumentError(
        "the schedule has no metadata.name, metadata.namespace or metadata.uid");
  }
  const rapidjson::Value* template_spec = json::Member(json::Member(schedule, "spec"), "template");
  if (template_spec == nullptr || !template_spec->IsObject()) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule ", QuoteBounded(name), " has no spec.template object"));
  }
  const rapidjson::Value* labels = json::Member(metadata, "labels");
  if (labels != nullptr && !labels->IsNull() && !labels->IsObject()) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule ", QuoteBounded(name), " has metadata.labels that isn't an object"));
  }
  std::map<std::string, std::string> run_labels;
  if (labels != nullptr && labels->IsObject()) {
    for (const auto& label : labels->GetObject()) {
      if (!label.value.IsString()) {
        return absl::InvalidArgumentError(absl::StrCat("schedule ", QuoteBounded(name), " label ",
                                                       QuoteBounded(json::View(label.name)),
                                                       " isn't a string"));
      }
      run_labels[std::string(json::View(label.name))] = std::string(json::View(label.value));
    }
  }
  // The controller counts runs by this label, so it must name this schedule whatever the
  // schedule's own labels say.
  run_labels[std::string(kLabelScheduledAppName)] = std::string(name);
  ASSIGN_OR_RETURN(std::string run_name, ManualRunName(name, run_id));
  // The template's hashes go with each run, so that a run id used again adopts only a run of the
  // same template (a schedule deleted and made again keeps its name).
  const std::string template_hash(
      json::String(json::Member(metadata, "annotations"), kAnnotationTemplateHash).value_or(""));

  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  KeyStr(w, "apiVersion", kApiVersion);
  KeyStr(w, "kind", kKind);
  Key(w, "metadata");
  w.StartObject();
  KeyStr(w, "name", run_name);
  KeyStr(w, "namespace", namespace_);
  WriteStringMap(w, "labels", run_labels);
  if (!template_hash.empty() && template_hash.size() <= kMaxTemplateHashBytes) {
    Key(w, "annotations");
    w.StartObject();
    KeyStr(w, kAnnotationTemplateHash, template_hash);
    w.EndObject();
  }
  Key(w, "ownerReferences");
  w.StartArray();
  w.StartObject();
  KeyStr(w, "apiVersion", kApiVersion);
  KeyStr(w, "kind", kScheduledKind);
  KeyStr(w, "name", name);
  KeyStr(w, "uid", uid);
  Key(w, "blockOwnerDeletion");
  w.Bool(true);
  w.EndObject();
  w.EndArray();
  w.EndObject();  // metadata
  Key(w, "spec");
  template_spec->Accept(w);
  w.EndObject();

  BuiltObject built;
  built.namespace_ = std::string(namespace_);
  built.name = std::move(run_name);
  built.json = Finish(buffer);
  built.template_hash = template_hash;
  return built;
}

absl::StatusOr<BuiltObject> BuildManualRunJson(std::string_view schedule_json,
                                               std::string_view run_id) {
  rapidjson::Document schedule;
  schedule.Parse(schedule_json.data(), schedule_json.size());
  if (schedule.HasParseError()) {
    return absl::InvalidArgumentError("the ScheduledSparkApplication isn't JSON");
  }
  return BuildManualRun(schedule, run_id);
}

}  // namespace kje::spark::kubeflow
