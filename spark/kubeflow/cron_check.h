#pragma once

// The schedule of a ScheduledSparkApplication as kubeflow/spark-operator v2.5.2 reads it, checked
// by the executor before anything is written: neither the CRD nor the operator's webhook checks
// it, and a schedule the operator can't parse is parked in FailedValidation for good, even after
// a fix.

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kje::spark::kubeflow {

// A parsed schedule: five cron fields or a descriptor (@daily, @every 90m, ...).
class CronSchedule {
 public:
  // The zone of the schedule's CRON_TZ=/TZ= prefix, nullopt without one.
  const std::optional<absl::TimeZone>& own_zone() const { return own_zone_; }
  // The delay of "@every <duration>" (whole seconds, at least one); zero for any other schedule.
  absl::Duration every() const { return every_; }

 private:
  friend absl::StatusOr<CronSchedule> ParseCron(std::string_view spec);

  absl::Duration every_ = absl::ZeroDuration();
  std::optional<absl::TimeZone> own_zone_;
};

// Parses `spec` as the operator does (robfig/cron v3 ParseStandard):
// - an optional "CRON_TZ=<zone> " or "TZ=<zone> " prefix (the zone as CheckTimeZone accepts it,
//   then one space);
// - then five fields separated by whitespace, minute hour day-of-month month day-of-week, each a
//   comma-separated list of `*` or `?`, a number or a range a-b, optionally with a step /n (a
//   single a/n means a to the maximum); months 1-12 or JAN-DEC, weekdays 0-6 from Sunday or
//   SUN-SAT, names in any case; 7 is not a weekday;
// - or a descriptor: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, or
//   "@every <Go duration>" (such as 1h30m, 90s or 1.5h); below a second it runs every second,
//   and above it is cut to whole seconds.
// Stricter than the operator where it would accept a schedule that can't be meant: "@every"
// with a duration of zero or less (the operator runs it every second), "*-5" or "?-5" (it reads
// plain
// "*") and a day of month that no chosen month has, such as 30 2 (it never runs).
// INVALID_ARGUMENT naming `schedule`, the field and the problem otherwise.
absl::StatusOr<CronSchedule> ParseCron(std::string_view spec);

// A spec.timeZone the operator loads: "" and "Local" (the operator's own zone), "UTC", or an
// IANA name such as Europe/Berlin. Names Go refuses or reads differently are refused too: a
// path (leading '/' or '\', or ".."), and Abseil's own spellings ("Fixed/...", "libc:...",
// "localtime"). INVALID_ARGUMENT naming `time_zone` otherwise.
absl::Status CheckTimeZone(std::string_view zone);

}  // namespace kje::spark::kubeflow
