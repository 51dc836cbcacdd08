#pragma once

// Recurring jobs, whatever the operator: what a caller asks of a schedule (its spec, an update),
// what a schedule reads back as, and the part of a backend that writes and reads its operator's
// schedule resources. The executor's schedule RPCs work on these alone.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "rapidjson/document.h"
#include "spark/app_projection.h"
#include "spark/object_meta.h"
#include "spark/time_util.h"

namespace kje::spark {

// The finished runs of each outcome a schedule keeps when no limit is given.
inline constexpr int32_t kDefaultRunHistoryLimit = 1;

// Whether a run may start while the newest one hasn't finished.
enum class ConcurrencyPolicy : uint8_t {
  kAllow,
  kForbid,        // no run while the newest one hasn't finished
  kReplace,       // the newest unfinished run is deleted first
  kUnset,         // absent or "" (read only)
  kUnrecognized,  // any other text (read only)
};

struct ScheduleSpec {
  std::string cron;       // the schedule line
  std::string time_zone;  // "" is the operator's own zone
  ConcurrencyPolicy concurrency_policy = ConcurrencyPolicy::kAllow;
  int32_t successful_run_history_limit = kDefaultRunHistoryLimit;
  int32_t failed_run_history_limit = kDefaultRunHistoryLimit;
  bool suspended = false;
};

// What UpdateSchedule changes: the fields that are set.
struct ScheduleUpdate {
  std::optional<std::string> cron;
  std::optional<std::string> time_zone;  // "" goes back to the operator's own zone
  std::optional<ConcurrencyPolicy> concurrency_policy;
  std::optional<int32_t> successful_run_history_limit;
  std::optional<int32_t> failed_run_history_limit;
  std::optional<bool> suspended;
};

// `spec` with the fields `update` sets.
ScheduleSpec Merged(ScheduleSpec spec, const ScheduleUpdate& update);
// Whether `update` sets any field at all.
bool SetsAnyField(const ScheduleUpdate& update);

// namespace_ "" takes the application's. Labels go on the schedule and, copied by the operator,
// on every run: the executor's identity labels belong there; annotations on the schedule only.
using ScheduleMeta = ObjectMeta;

// A built resource, ready to send.
struct BuiltObject {
  std::string namespace_;
  std::string name;
  std::string json;
  // A run's: the template hashes it was made from (spark/template_hash.h); "" for none.
  std::string template_hash;
};

// A schedule as the schedule RPCs answer it.
struct Schedule {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;
  EpochMillis creation_time = kNoTime;
  bool deleting = false;  // metadata.deletionTimestamp is set
  // metadata.labels in the object's order.
  std::vector<std::pair<std::string, std::string>> labels;

  // The spec as stored; an unknown policy is kUnrecognized, its text in unrecognized_policy.
  ScheduleSpec spec;
  std::string unrecognized_policy;

  // The operator's word for the schedule's state; "" before the operator's first pass.
  std::string state;
  // The operator refused the spec and won't look at the schedule again by itself: an update
  // must have it validated again.
  bool refused = false;
  std::string reason;  // capped as the applications' messages are (kMaxMessageBytes)
  EpochMillis last_run = kNoTime;
  EpochMillis next_run = kNoTime;
  std::string last_run_name;
  std::vector<std::string> past_successful_run_names;
  std::vector<std::string> past_failed_run_names;

  // Annotation template-hash: the hashes of the template it runs (spark/template_hash.h); ""
  // on a schedule made without them.
  std::string template_hash;

  // The value of the first label with this key; "" when there is none.
  std::string_view Label(std::string_view key) const;
};

// The schedules part of an operator's backend (OperatorBackend::Schedules). Pure, as the rest.
class ScheduleBackend {
 public:
  virtual ~ScheduleBackend() = default;

  // The resource's kind, as messages name it.
  virtual std::string_view KindName() const = 0;
  // INVALID_ARGUMENT naming the field when the operator would refuse the spec, stop running the
  // schedule, or fail on it.
  virtual absl::Status CheckSpec(const ScheduleSpec& spec) const = 0;
  // INVALID_ARGUMENT naming `name` when it can't be a schedule's name (every run's name must fit).
  virtual absl::Status CheckName(std::string_view name) const = 0;
  // The schedule whose runs are `application_json` (a whole application as the backend's Build
  // makes it); INVALID_ARGUMENT as CheckName and CheckSpec, and for what `meta` may not set.
  virtual absl::StatusOr<BuiltObject> Build(const ScheduleMeta& meta, const ScheduleSpec& spec,
                                            std::string_view application_json) const = 0;
  // A schedule object as the API server returned it; INVALID_ARGUMENT when it can't be read.
  virtual absl::StatusOr<Schedule> Project(const rapidjson::Value& schedule) const = 0;
  // The same from its JSON text.
  absl::StatusOr<Schedule> ProjectJson(std::string_view json) const;
  // The merge patch of the spec fields `update` sets; INVALID_ARGUMENT as CheckSpec.
  virtual absl::StatusOr<std::string> UpdatePatch(const ScheduleUpdate& update) const = 0;
  // The merge patch of the status subresource that makes the operator schedule anew after
  // `update` of `stored` (a moved next run, a refused spec validated again); nullopt when none
  // is needed.
  virtual std::optional<std::string> ReschedulePatch(const ScheduleUpdate& update,
                                                     const Schedule& stored) const = 0;
  // The label selector of the applications that are runs of the schedule `name`.
  virtual std::string RunsSelector(std::string_view name) const = 0;
  // The name of the run `run_id` started now: the same for the same (schedule, run id), never a
  // name the operator gives its own runs. INVALID_ARGUMENT naming run_id when it can't be one.
  virtual absl::StatusOr<std::string> RunName(std::string_view schedule_name,
                                              std::string_view run_id) const = 0;
  // The application of the run `run_id` started now, from the schedule as the API server
  // returned it; errors of RunName, INVALID_ARGUMENT (not naming run_id) for an unreadable one.
  virtual absl::StatusOr<BuiltObject> BuildRun(std::string_view schedule_json,
                                               std::string_view run_id) const = 0;
  // Whether `existing`, found under a run's name, is that run of `schedule_name` (a retried
  // RunScheduleNow adopts it): ALREADY_EXISTS otherwise.
  virtual absl::Status CheckRunAdoption(const AppProjection& existing,
                                        std::string_view schedule_name) const = 0;
};

}  // namespace kje::spark
