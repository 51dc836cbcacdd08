#pragma once

// The schedule of a ScheduledSparkApplication as kubeflow/spark-operator v2.5.2 reads it, checked
// by the executor before anything is written: neither the CRD nor the operator's webhook checks
// it, and a schedule the operator can't parse is parked in FailedValidation for good, even after
// a fix. Next() answers what the operator's controller would compute for status.nextRun, so the
// executor can move it when it changes the schedule (the controller keeps a nextRun it has set).

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
  // The first activation strictly after `after`, in whole seconds. `zone` is the schedule's
  // spec.timeZone resolved by ResolveTimeZone; a CRON_TZ=/TZ= prefix in the schedule wins over
  // it, as in the operator. "@every" ignores zones: it is `after` floored to the second plus the
  // delay. The wall-clock rules are the operator's, DST included: a time that a spring-forward
  // day skips doesn't fire that day, and one repeated by a fall-back day fires in both hours.
  // InfiniteFuture when no activation lies within five years (say 0 0 29 2 * in 2097), where the
  // operator's parser gives up too.
  absl::Time Next(absl::Time after, absl::TimeZone zone) const;

  // The zone of the schedule's CRON_TZ=/TZ= prefix, nullopt without one.
  const std::optional<absl::TimeZone>& own_zone() const { return own_zone_; }
  // The delay of "@every <duration>" (whole seconds, at least one); zero for any other schedule.
  absl::Duration every() const { return every_; }

 private:
  friend absl::StatusOr<CronSchedule> ParseCron(std::string_view spec);

  bool DayMatches(const absl::CivilSecond& civil) const;

  // Bit n is set when the value n is allowed (minute 0-59, hour 0-23, day 1-31, month 1-12,
  // weekday 0-6 from Sunday).
  uint64_t minutes_ = 0;
  uint64_t hours_ = 0;
  uint64_t days_ = 0;
  uint64_t months_ = 0;
  uint64_t weekdays_ = 0;
  // A day field written as * or ? (without a step above 1): the two day fields then must both
  // match; otherwise either one is enough, as in every cron since Vixie's.
  bool any_day_ = false;
  bool any_weekday_ = false;
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
// with a duration of zero or less (the operator runs it every second), "*-5" (it reads plain
// "*") and a day of month that no chosen month has, such as 30 2 (it never runs).
// INVALID_ARGUMENT naming `schedule`, the field and the problem otherwise.
absl::StatusOr<CronSchedule> ParseCron(std::string_view spec);

// A spec.timeZone the operator loads: "" and "Local" (the operator's own zone), "UTC", or an
// IANA name such as Europe/Berlin. Names Go refuses or reads differently are refused too: a
// path (leading '/' or '\', or ".."), and Abseil's own spellings ("Fixed/...", "libc:...",
// "localtime"). INVALID_ARGUMENT naming `time_zone` otherwise.
absl::Status CheckTimeZone(std::string_view zone);

// The zone Next() computes in for a spec.timeZone. "" and "Local" are the operator process's
// zone, which the executor can't see: the operator's image sets none, so that is UTC.
// INVALID_ARGUMENT as CheckTimeZone's.
absl::StatusOr<absl::TimeZone> ResolveTimeZone(std::string_view zone);

// The status.nextRun the operator computes for a new or just-run schedule: the first activation
// of `spec` in `time_zone` after `now`. Errors as ParseCron's and CheckTimeZone's.
absl::StatusOr<absl::Time> NextRunAfter(std::string_view spec, std::string_view time_zone,
                                        absl::Time now);

}  // namespace kje::spark::kubeflow
