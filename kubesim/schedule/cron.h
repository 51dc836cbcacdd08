#pragma once

// Cron schedules as the Kubeflow operator reads them: robfig/cron v3's ParseStandard (five
// fields, or a descriptor, optionally after CRON_TZ=/TZ=), re-implemented so that what it accepts,
// the errors it gives and the times it picks match the operator's, including its quirks (`*-5`
// reads as `*`, `*/1` counts as a star for the day-of-month/day-of-week rule, a schedule that
// never matches within five years has no next time).

#include <absl/time/time.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kubesim::schedule {

// Go's time.LoadLocation: "" and "UTC" are UTC, "Local" is `local` (Go's time.Local), anything
// else an IANA name. On failure `error` gets Go's message ("unknown time zone X").
std::optional<absl::TimeZone> LoadLocation(std::string_view name, const absl::TimeZone& local,
                                           std::string* error);

// Go's time.ParseDuration, in nanoseconds; `error` gets Go's message on failure.
std::optional<int64_t> ParseGoDuration(std::string_view text, std::string* error);

class CronSchedule {
 public:
  // The first activation strictly after `t`; absl::InfinitePast() (Go's zero time) when there is
  // none within five years.
  absl::Time Next(absl::Time t) const;

  // Whether the schedule is `@every <duration>` (which ignores the time zone).
  bool constant_delay() const { return every_ns_ > 0; }

 private:
  friend struct CronParser;
  bool Matches(uint64_t bits, int value) const { return (bits >> value) & 1; }
  bool DayMatches(const absl::CivilSecond& cs) const;

  // One bit per allowed value; kStarBit marks a field written as `*` or `?`.
  uint64_t second_ = 0, minute_ = 0, hour_ = 0, dom_ = 0, month_ = 0, dow_ = 0;
  absl::TimeZone zone_;
  int64_t every_ns_ = 0;  // > 0: `@every`, whole seconds
};

// How parsing failed. kPanic: the input would make the Go parser panic (`CRON_TZ=` with no space
// after it), which the operator's controller recovers as a failed reconcile, not as a verdict.
enum class CronError { kNone, kInvalid, kPanic };

struct CronParse {
  std::optional<CronSchedule> schedule;
  CronError error_kind = CronError::kNone;
  std::string error;  // Go's message
};

// `local` stands in for Go's time.Local: the zone a schedule without CRON_TZ uses.
CronParse ParseStandard(std::string_view spec, const absl::TimeZone& local);

}  // namespace kubesim::schedule
