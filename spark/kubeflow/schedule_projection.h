#pragma once

// The projection of a kubeflow/spark-operator ScheduledSparkApplication into the neutral
// spark::Schedule the Schedule RPCs answer from: its spec as stored and the controller's status
// (state: the operator's spelling, capped when unknown; refused: FailedValidation).

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "rapidjson/document.h"
#include "spark/kubeflow/schedule_builder.h"
#include "spark/schedule.h"
#include "spark/time_util.h"

namespace kje::spark::kubeflow {

// status.scheduleState.
enum class ScheduleState : uint8_t {
  kNew,               // "" or absent: the controller hasn't reconciled it yet
  kValidating,        // declared by the operator, never written by it
  kScheduled,         // runs on its schedule
  kFailedValidation,  // for good, even once the spec is fixed, unless the status is cleared
  kUnrecognized,      // any other text
};

// The operator's spelling; "" for kNew and kUnrecognized.
std::string_view ScheduleStateName(ScheduleState state);

// INVALID_ARGUMENT naming the field when the value isn't an object with a non-empty
// metadata.name and metadata.namespace, or when a field read here has the wrong JSON type (a
// string where an object is, a limit that isn't an int32, a time that isn't RFC 3339). Absent
// fields and nulls are defaults.
absl::StatusOr<Schedule> ProjectSchedule(const rapidjson::Value& schedule);
// The same for JSON text; INVALID_ARGUMENT when it isn't JSON.
absl::StatusOr<Schedule> ProjectScheduleJson(std::string_view json);

}  // namespace kje::spark::kubeflow
