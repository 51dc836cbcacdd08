#include "spark/kubeflow/cron_check.h"

#include <array>
#include <charconv>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/civil_time.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"

namespace kje::spark::kubeflow {
namespace {

constexpr std::string_view kCronTzPrefix = "CRON_TZ=";
constexpr std::string_view kTzPrefix = "TZ=";
constexpr std::string_view kEveryPrefix = "@every ";

struct FieldRule {
  std::string_view name;
  int min;
  int max;
  // Lower-case names of the values from `min` on, or empty.
  const std::array<std::string_view, 12>* names;
};

constexpr std::array<std::string_view, 12> kMonthNames = {"jan", "feb", "mar", "apr", "may", "jun",
                                                          "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 12> kWeekdayNames = {"sun", "mon", "tue", "wed",
                                                            "thu", "fri", "sat"};

constexpr FieldRule kMinute = {"minute", 0, 59, nullptr};
constexpr FieldRule kHour = {"hour", 0, 23, nullptr};
constexpr FieldRule kDay = {"day-of-month", 1, 31, nullptr};
constexpr FieldRule kMonth = {"month", 1, 12, &kMonthNames};
constexpr FieldRule kWeekday = {"day-of-week", 0, 6, &kWeekdayNames};

absl::Status ScheduleError(std::string_view spec, std::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("schedule ", QuoteBounded(spec), ": ", ToAbsl(problem)));
}

absl::Status FieldError(std::string_view spec, const FieldRule& rule, std::string_view field,
                        std::string_view problem) {
  return ScheduleError(spec, absl::StrCat("the ", ToAbsl(rule.name), " field ", QuoteBounded(field),
                                          " ", ToAbsl(problem)));
}

uint64_t Bits(int64_t from, int64_t to, int64_t step) {
  uint64_t bits = 0;
  for (int64_t n = from; n <= to; n += step) {
    bits |= uint64_t{1} << n;
    if (step > to - n) break;
  }
  return bits;
}

// A non-negative decimal as Go's strconv.Atoi reads it (an optional '+', any leading zeros).
std::optional<int64_t> Number(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

std::optional<int64_t> NumberOrName(std::string_view text, const FieldRule& rule) {
  if (rule.names != nullptr) {
    std::string lower = absl::AsciiStrToLower(ToAbsl(text));
    for (size_t i = 0; i < rule.names->size(); ++i) {
      if (!(*rule.names)[i].empty() && lower == (*rule.names)[i]) {
        return rule.min + static_cast<int>(i);
      }
    }
  }
  return Number(text);
}

struct FieldBits {
  uint64_t bits = 0;
  bool any = false;  // * or ? without a step above 1
};

absl::StatusOr<FieldBits> ParseField(std::string_view spec, std::string_view field,
                                     const FieldRule& rule) {
  FieldBits out;
  for (absl::string_view item_absl : absl::StrSplit(ToAbsl(field), ',')) {
    std::string_view item = ToStd(item_absl);
    std::vector<absl::string_view> range_step = absl::StrSplit(ToAbsl(item), '/');
    if (range_step.size() > 2) return FieldError(spec, rule, item, "has more than one '/'");
    std::string_view range = ToStd(range_step[0]);
    int64_t from = 0;
    int64_t to = 0;
    bool any = false;
    bool single = false;
    if (range == "*" || range == "?") {
      from = rule.min;
      to = rule.max;
      any = true;
    } else if (absl::StartsWith(ToAbsl(range), "*") || absl::StartsWith(ToAbsl(range), "?")) {
      return FieldError(spec, rule, item, "has text after its '*' or '?'");
    } else {
      std::vector<absl::string_view> ends = absl::StrSplit(ToAbsl(range), '-');
      if (ends.size() > 2) return FieldError(spec, rule, item, "has more than one '-'");
      std::optional<int64_t> low = NumberOrName(ToStd(ends[0]), rule);
      std::optional<int64_t> high = ends.size() == 2 ? NumberOrName(ToStd(ends[1]), rule) : low;
      if (!low || !high) {
        return FieldError(spec, rule, item,
                          rule.names == &kMonthNames     ? "isn't a number or a name JAN-DEC"
                          : rule.names == &kWeekdayNames ? "isn't a number or a name SUN-SAT"
                                                         : "isn't a whole number");
      }
      from = *low;
      to = *high;
      single = ends.size() == 1;
    }
    int64_t step = 1;
    if (range_step.size() == 2) {
      std::optional<int64_t> parsed = Number(ToStd(range_step[1]));
      if (!parsed) return FieldError(spec, rule, item, "has a step that isn't a whole number");
      step = *parsed;
      if (single) to = rule.max;
      if (step > 1) any = false;
    }
    if (from < rule.min) {
      return FieldError(spec, rule, item, absl::StrCat("starts below the minimum ", rule.min));
    }
    if (to > rule.max) {
      // Other crons take 7 for Sunday; the operator's parser doesn't.
      const bool seven = rule.names == &kWeekdayNames && to == 7;
      return FieldError(
          spec, rule, item,
          absl::StrCat("goes above the maximum ", rule.max, seven ? " (Sunday is 0 or SUN)" : ""));
    }
    if (from > to) return FieldError(spec, rule, item, "has a range that ends before it starts");
    if (step == 0) return FieldError(spec, rule, item, "has a step of 0");
    out.bits |= Bits(from, to, step);
    out.any = out.any || any;
  }
  return out;
}

// Go's time.ParseDuration: [-+]?([0-9]*(\.[0-9]*)?[a-z]+)+, or "0"; nullopt when it refuses.
std::optional<int64_t> GoDurationNanos(std::string_view text) {
  constexpr uint64_t kLimit = uint64_t{1} << 63;
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return 0;
  if (text.empty()) return std::nullopt;
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  uint64_t total = 0;
  while (!text.empty()) {
    if (text.front() != '.' && !is_digit(text.front())) return std::nullopt;
    uint64_t whole = 0;
    size_t whole_digits = 0;
    while (whole_digits < text.size() && is_digit(text[whole_digits])) {
      if (whole > (kLimit - 1) / 10) return std::nullopt;
      whole = whole * 10 + static_cast<uint64_t>(text[whole_digits] - '0');
      if (whole > kLimit) return std::nullopt;
      ++whole_digits;
    }
    text.remove_prefix(whole_digits);
    uint64_t fraction = 0;
    double scale = 1;
    size_t fraction_digits = 0;
    if (!text.empty() && text.front() == '.') {
      text.remove_prefix(1);
      bool overflowed = false;
      while (fraction_digits < text.size() && is_digit(text[fraction_digits])) {
        // Digits past int64's precision are read and dropped, as Go does.
        if (!overflowed && fraction <= (kLimit - 1) / 10) {
          fraction = fraction * 10 + static_cast<uint64_t>(text[fraction_digits] - '0');
          scale *= 10;
        } else {
          overflowed = true;
        }
        ++fraction_digits;
      }
      text.remove_prefix(fraction_digits);
    }
    if (whole_digits == 0 && fraction_digits == 0) return std::nullopt;
    size_t unit_length = 0;
    while (unit_length < text.size() && text[unit_length] != '.' && !is_digit(text[unit_length])) {
      ++unit_length;
    }
    std::string_view unit = text.substr(0, unit_length);
    text.remove_prefix(unit_length);
    uint64_t unit_nanos = 0;
    if (unit == "ns") {
      unit_nanos = 1;
    } else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") {
      unit_nanos = 1000;
    } else if (unit == "ms") {
      unit_nanos = 1000000;
    } else if (unit == "s") {
      unit_nanos = 1000000000;
    } else if (unit == "m") {
      unit_nanos = uint64_t{60} * 1000000000;
    } else if (unit == "h") {
      unit_nanos = uint64_t{3600} * 1000000000;
    } else {
      return std::nullopt;
    }
    if (whole > kLimit / unit_nanos) return std::nullopt;
    uint64_t value = whole * unit_nanos;
    if (fraction > 0) {
      value += static_cast<uint64_t>(static_cast<double>(fraction) *
                                     (static_cast<double>(unit_nanos) / scale));
      if (value > kLimit) return std::nullopt;
    }
    total += value;
    if (total > kLimit) return std::nullopt;
  }
  if (negative) return -static_cast<int64_t>(total - 1) - 1;
  if (total > kLimit - 1) return std::nullopt;
  return static_cast<int64_t>(total);
}

bool Has(uint64_t bits, int n) { return (bits >> n) & 1; }

// Any valid time zone name Go's time.LoadLocation reads from the zoneinfo files, which Abseil
// reads the same way once its own extensions are excluded.
absl::Status CheckZoneName(std::string_view zone, std::string_view field, std::string_view spec) {
  if (zone.empty() || zone == "Local" || zone == "UTC") return absl::OkStatus();
  auto refuse = [&](std::string_view why) {
    constexpr std::string_view kHint =
        "; use an IANA name such as Europe/Berlin or America/New_York, UTC or Local";
    if (!spec.empty()) {
      return ScheduleError(spec, absl::StrCat("its time zone ", QuoteBounded(zone), " ",
                                              ToAbsl(why), ToAbsl(kHint)));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(field), " ", QuoteBounded(zone), " ", ToAbsl(why), ToAbsl(kHint)));
  };
  if (zone.front() == '/' || zone.front() == '\\' || absl::StrContains(ToAbsl(zone), "..")) {
    return refuse("is a path, not a zone name");
  }
  if (absl::StrContains(ToAbsl(zone), ":") || absl::StartsWith(ToAbsl(zone), "Fixed/") ||
      zone == "localtime" || HasControlByte(zone) || absl::StrContains(ToAbsl(zone), " ")) {
    return refuse("isn't a zone name the operator can load");
  }
  absl::TimeZone loaded;
  if (!absl::LoadTimeZone(std::string(zone), &loaded)) return refuse("is unknown");
  return absl::OkStatus();
}

absl::TimeZone LoadCheckedZone(std::string_view zone) {
  absl::TimeZone loaded = absl::UTCTimeZone();
  if (!zone.empty() && zone != "Local") absl::LoadTimeZone(std::string(zone), &loaded);
  return loaded;
}

// Whether some month the schedule allows has some day of month it allows (February counting
// 29), which only matters when the weekday field doesn't let other days in.
bool SomeDayExists(uint64_t days, uint64_t months) {
  constexpr std::array<int, 13> kLongest = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (int month = 1; month <= 12; ++month) {
    if (!Has(months, month)) continue;
    for (int day = 1; day <= kLongest[month]; ++day) {
      if (Has(days, day)) return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<CronSchedule> ParseCron(std::string_view spec) {
  if (spec.empty()) return absl::InvalidArgumentError("schedule is empty");
  CronSchedule schedule;
  std::string_view rest = spec;
  if (absl::StartsWith(ToAbsl(rest), ToAbsl(kCronTzPrefix)) ||
      absl::StartsWith(ToAbsl(rest), ToAbsl(kTzPrefix))) {
    const size_t equals = rest.find('=');
    const size_t space = rest.find(' ');
    if (space == std::string_view::npos) {
      return ScheduleError(spec, "its time zone prefix must be followed by a space and the rest");
    }
    std::string_view zone = rest.substr(equals + 1, space - equals - 1);
    RETURN_IF_ERROR(CheckZoneName(zone, "schedule", spec));
    schedule.own_zone_ = LoadCheckedZone(zone);
    rest.remove_prefix(space);
    // The operator trims what follows the prefix, and nothing otherwise: a descriptor must then
    // be the whole schedule ("\t@daily" and "@daily " are five-field schedules of one field).
    rest = ToStd(absl::StripAsciiWhitespace(ToAbsl(rest)));
  }

  if (absl::StartsWith(ToAbsl(rest), "@")) {
    if (rest == "@yearly" || rest == "@annually" || rest == "@monthly" || rest == "@weekly" ||
        rest == "@daily" || rest == "@midnight" || rest == "@hourly") {
      // Fixed times: nothing more to check.
    } else if (absl::StartsWith(ToAbsl(rest), ToAbsl(kEveryPrefix))) {
      std::string_view duration = rest.substr(kEveryPrefix.size());
      std::optional<int64_t> nanos = GoDurationNanos(duration);
      if (!nanos) {
        return ScheduleError(spec, absl::StrCat("the @every duration ", QuoteBounded(duration),
                                                " isn't a duration such as 90s, 15m or 1h30m"));
      }
      if (*nanos <= 0) {
        return ScheduleError(spec, "the @every duration must be positive");
      }
      // Below a second runs every second; above, the fraction of a second is dropped.
      schedule.every_ = std::max(absl::Seconds(1), absl::Seconds(*nanos / 1000000000));
    } else {
      return ScheduleError(
          spec,
          "isn't a known descriptor (@yearly, @annually, @monthly, @weekly, @daily, "
          "@midnight, @hourly or \"@every <duration>\")");
    }
    return schedule;
  }

  std::vector<absl::string_view> fields =
      absl::StrSplit(ToAbsl(rest), absl::ByAnyChar(" \t\n\v\f\r"), absl::SkipEmpty());
  if (fields.size() != 5) {
    return ScheduleError(spec, absl::StrCat("needs exactly 5 fields (minute hour day-of-month "
                                            "month day-of-week) or a descriptor, not ",
                                            fields.size()));
  }
  RETURN_IF_ERROR(ParseField(spec, ToStd(fields[0]), kMinute).status());
  RETURN_IF_ERROR(ParseField(spec, ToStd(fields[1]), kHour).status());
  ASSIGN_OR_RETURN(FieldBits days, ParseField(spec, ToStd(fields[2]), kDay));
  ASSIGN_OR_RETURN(FieldBits months, ParseField(spec, ToStd(fields[3]), kMonth));
  ASSIGN_OR_RETURN(FieldBits weekdays, ParseField(spec, ToStd(fields[4]), kWeekday));
  if (!days.any && weekdays.any && !SomeDayExists(days.bits, months.bits)) {
    return ScheduleError(spec, "never runs: none of its months has that day of the month");
  }
  return schedule;
}

absl::Status CheckTimeZone(std::string_view zone) { return CheckZoneName(zone, "time_zone", ""); }

}  // namespace kje::spark::kubeflow
