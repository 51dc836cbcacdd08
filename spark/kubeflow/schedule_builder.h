#pragma once

// Builds kubeflow/spark-operator ScheduledSparkApplications (sparkoperator.k8s.io/v1beta2) and
// what the executor writes to them: the schedule from a built SparkApplication, the merge
// patches of an update and of status.nextRun, and a run started now by the executor that the
// operator's controller counts like its own.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "rapidjson/document.h"
#include "spark/app_projection.h"
#include "spark/kubeflow/names.h"
#include "spark/schedule.h"

namespace kje::spark::kubeflow {

inline constexpr std::string_view kScheduledKind = "ScheduledSparkApplication";
inline constexpr std::string_view kScheduledPlural = "scheduledsparkapplications";
// On every run of a schedule: the controller finds runs by this label alone, for its
// concurrency policy and its history.
inline constexpr std::string_view kLabelScheduledAppName =
    "sparkoperator.k8s.io/scheduled-app-name";

// The controller names a run `<schedule>-<timestamp>`, the timestamp in decimal digits: 19 at
// its default (and finest) precision, nanoseconds.
inline constexpr size_t kRunTimestampDigits = 19;
// So that every run name is a SparkApplication name (kMaxNameLength) at any precision.
inline constexpr size_t kMaxScheduleNameLength = kMaxNameLength - 1 - kRunTimestampDigits;

// spec.concurrencyPolicy (ConcurrencyPolicy): the operator starts no second run at all under any
// value but the first three, the empty one included, so the builders write only those.
// "Allow", "Forbid", "Replace"; "" for kUnset and kUnrecognized.
std::string_view ConcurrencyPolicyName(ConcurrencyPolicy policy);
// The policy of the exact (case-sensitive, as in the operator) spelling.
ConcurrencyPolicy ParseConcurrencyPolicy(std::string_view text);

// INVALID_ARGUMENT naming the field (schedule, time_zone, concurrency_policy,
// successful_run_history_limit, failed_run_history_limit) when the operator would park the
// schedule in FailedValidation, never run it again, or fail on it: a schedule ParseCron refuses,
// a zone CheckTimeZone refuses, a policy other than the three, a negative limit.
absl::Status CheckScheduleSpec(const ScheduleSpec& spec);

// A schedule name whose runs can all be named: a DNS-1035 label (a lower-case letter, then
// lower-case letters, digits and '-', not ending in '-') of at most kMaxScheduleNameLength
// characters. A run's name is also its pods' app-name label value and their name prefix, which
// the same bound keeps valid. INVALID_ARGUMENT naming `name` otherwise.
absl::Status CheckScheduleName(std::string_view name);

// The ScheduledSparkApplication whose template is the spec of `application_json`, a whole
// SparkApplication as kubeflow::BuildSparkApplication makes it (its metadata is not used: runs
// get their names and labels from the schedule). Every spec field is written, the policy and
// the limits too (the time zone only when set). INVALID_ARGUMENT from CheckScheduleName and
// CheckScheduleSpec, for a reserved label, when the application isn't a v1beta2
// SparkApplication with a spec object, or when meta.namespace_ differs from its namespace.
absl::StatusOr<BuiltObject> BuildScheduledApplication(const ScheduleMeta& meta,
                                                      const ScheduleSpec& spec,
                                                      std::string_view application_json);

// The JSON merge patch of the spec fields set in `update`; a time zone of "" removes the field.
// INVALID_ARGUMENT naming the field as CheckScheduleSpec does, or when no field is set.
absl::StatusOr<std::string> BuildScheduleUpdatePatch(const ScheduleUpdate& update);

// Whether the update changes when runs fall: the controller keeps a status.nextRun it has set
// until it fires, so the caller follows with BuildRescheduleStatusPatch.
bool MovesNextRun(const ScheduleUpdate& update);

// The status merge patch (for the status subresource) that makes the controller schedule anew on
// its next pass, which the write itself wakes: status.nextRun removed, so the controller
// computes it from the current cron and zone on its own clock and in its own local zone; with
// `revalidate`, scheduleState and reason removed too, so a FailedValidation schedule (a state
// the controller never leaves by itself) is validated again, keeping its uid and its runs.
std::string BuildRescheduleStatusPatch(bool revalidate);

// Whether `existing`, found under a manual run's name, is that run of the schedule `schedule_name`
// (so a retried RunScheduleNow adopts it): ALREADY_EXISTS when the name is held by anything else
// (a job submitted with a job id that spells the same name, a run of another schedule) or by a
// run being deleted (Replace), which would never run again.
absl::Status CheckManualRunAdoption(const AppProjection& existing, std::string_view schedule_name);

// The name of the run `run_id` of a schedule: `<schedule>-r<run_id>`. The controller's runs end
// in a dash and digits only, so no name here is ever one of its names, for any schedule; and
// the same (schedule, run id) always gives the same name, so a retried request finds its run.
// INVALID_ARGUMENT unless the schedule name is a DNS-1035 label and the run id is lower-case
// letters and digits, short enough for a name of at most kMaxNameLength characters (18 with a
// schedule name of kMaxScheduleNameLength).
absl::StatusOr<std::string> ManualRunName(std::string_view schedule_name, std::string_view run_id);

// The SparkApplication of a run started now, from a ScheduledSparkApplication as the API server
// returns it: named by ManualRunName, in the schedule's namespace, spec = spec.template, labels =
// the schedule's labels and kLabelScheduledAppName, and the ownerReference the controller gives
// its own runs (blockOwnerDeletion, not controller), so deleting the schedule deletes the run
// and the controller's policy and history count it. INVALID_ARGUMENT when the schedule lacks
// metadata.name, namespace or uid, has a label that isn't a string, or lacks a spec.template
// object; errors of ManualRunName.
absl::StatusOr<BuiltObject> BuildManualRun(const rapidjson::Value& schedule,
                                           std::string_view run_id);
absl::StatusOr<BuiltObject> BuildManualRunJson(std::string_view schedule_json,
                                               std::string_view run_id);

}  // namespace kje::spark::kubeflow
