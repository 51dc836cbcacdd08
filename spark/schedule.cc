#include "spark/schedule.h"

#include "absl/strings/str_cat.h"
#include "base/strings.h"

namespace kje::spark {

ScheduleSpec Merged(ScheduleSpec spec, const ScheduleUpdate& u) {
  if (u.cron) spec.cron = *u.cron;
  if (u.time_zone) spec.time_zone = *u.time_zone;
  if (u.concurrency_policy) spec.concurrency_policy = *u.concurrency_policy;
  if (u.successful_run_history_limit) {
    spec.successful_run_history_limit = *u.successful_run_history_limit;
  }
  if (u.failed_run_history_limit) spec.failed_run_history_limit = *u.failed_run_history_limit;
  if (u.suspended) spec.suspended = *u.suspended;
  return spec;
}

bool SetsAnyField(const ScheduleUpdate& u) {
  return u.cron || u.time_zone || u.concurrency_policy || u.successful_run_history_limit ||
         u.failed_run_history_limit || u.suspended;
}

std::string_view Schedule::Label(std::string_view key) const {
  for (const auto& [k, v] : labels) {
    if (k == key) return v;
  }
  return {};
}

absl::StatusOr<Schedule> ScheduleBackend::ProjectJson(std::string_view json) const {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    return absl::InvalidArgumentError(absl::StrCat("the ", ToAbsl(KindName()), " isn't JSON"));
  }
  return Project(doc);
}

}  // namespace kje::spark
