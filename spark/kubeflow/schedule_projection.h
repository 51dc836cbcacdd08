#pragma once

// The projection of a kubeflow/spark-operator ScheduledSparkApplication: what the Schedule RPCs
// answer from, its spec as stored and the controller's status.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "rapidjson/document.h"
#include "spark/kubeflow/schedule_builder.h"
#include "spark/time_util.h"

namespace kje::spark::kubeflow {

// status.scheduleState.
enum class ScheduleState : uint8_t {
  kNew,               // "" or absent: the controller hasn't reconciled it yet
  kValidating,        // declared by the operator, never written by it
  kScheduled,         // runs on its schedule
  kFailedValidation,  // for good, even once the spec is fixed, unless the status is cleared
  kUnrecognized,      // any other text (unrecognized_state)
};

// The operator's spelling; "" for kNew and kUnrecognized.
std::string_view ScheduleStateName(ScheduleState state);

struct ScheduleProjection {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;
  EpochMillis creation_time = kNoTime;
  bool deleting = false;  // metadata.deletionTimestamp is set
  // metadata.labels in the object's order.
  std::vector<std::pair<std::string, std::string>> labels;

  // The spec as stored: an absent limit is the operator's default, kDefaultRunHistoryLimit; an
  // absent or empty policy is kUnset and any other unknown one kUnrecognized, its text in
  // unrecognized_policy. The template is not kept.
  ScheduleSpec spec;
  std::string unrecognized_policy;

  ScheduleState state = ScheduleState::kNew;
  std::string unrecognized_state;
  std::string reason;  // capped as the applications' messages are (kMaxMessageBytes)
  EpochMillis last_run = kNoTime;
  EpochMillis next_run = kNoTime;
  std::string last_run_name;
  std::vector<std::string> past_successful_run_names;
  std::vector<std::string> past_failed_run_names;
};

// INVALID_ARGUMENT naming the field when the value isn't an object with a non-empty
// metadata.name and metadata.namespace, or when a field read here has the wrong JSON type (a
// string where an object is, a limit that isn't an int32, a time that isn't RFC 3339). Absent
// fields and nulls are defaults.
absl::StatusOr<ScheduleProjection> ProjectSchedule(const rapidjson::Value& schedule);
// The same for JSON text; INVALID_ARGUMENT when it isn't JSON.
absl::StatusOr<ScheduleProjection> ProjectScheduleJson(std::string_view json);

}  // namespace kje::spark::kubeflow
