// robfig/cron's ParseStandard as re-implemented for the Kubeflow schedule controller: what it
// accepts, its error texts, and the times Next picks, across time zones and DST transitions.

#include "kubesim/schedule/cron.h"

#include <absl/time/civil_time.h>

#include <catch2/catch.hpp>
#include <string>

namespace kubesim::schedule {
namespace {

absl::TimeZone Zone(const std::string& name) {
  absl::TimeZone tz;
  REQUIRE(absl::LoadTimeZone(name, &tz));
  return tz;
}

// Parses (UTC as Go's time.Local) and returns the parse error, "" when it parsed.
std::string ParseError(const std::string& spec) {
  CronParse p = ParseStandard(spec, absl::UTCTimeZone());
  CHECK(p.schedule.has_value() == p.error.empty());
  return p.error;
}

CronSchedule Parse(const std::string& spec) {
  CronParse p = ParseStandard(spec, absl::UTCTimeZone());
  INFO(spec << ": " << p.error);
  REQUIRE(p.schedule);
  return *p.schedule;
}

absl::Time At(const std::string& zone, int y, int mo, int d, int h, int mi, int s = 0) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), Zone(zone));
}

// Next, shown in `zone` as "YYYY-MM-DD HH:MM:SS ±hh:mm".
std::string Next(const std::string& spec, absl::Time from, const std::string& zone = "UTC") {
  absl::Time t = Parse(spec).Next(from);
  if (t == absl::InfinitePast()) return "zero";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S %Ez", t, Zone(zone));
}

TEST_CASE("field errors read as robfig's", "[schedule][cron]") {
  CHECK(ParseError("") == "empty spec string");
  CHECK(ParseError("* * * *") == "expected exactly 5 fields, found 4: [* * * *]");
  CHECK(ParseError("0 * * * * *") == "expected exactly 5 fields, found 6: [0 * * * * *]");
  CHECK(ParseError("60 * * * *") == "end of range (60) above maximum (59): 60");
  CHECK(ParseError("* 24 * * *") == "end of range (24) above maximum (23): 24");
  CHECK(ParseError("* * 0 * *") == "beginning of range (0) below minimum (1): 0");
  CHECK(ParseError("* * * 13 *") == "end of range (13) above maximum (12): 13");
  CHECK(ParseError("* * * * 7") == "end of range (7) above maximum (6): 7");
  CHECK(ParseError("5-1 * * * *") == "beginning of range (5) beyond end of range (1): 5-1");
  CHECK(ParseError("1-2-3 * * * *") == "too many hyphens: 1-2-3");
  CHECK(ParseError("*/2/3 * * * *") == "too many slashes: */2/3");
  CHECK(ParseError("*/0 * * * *") == "step of range should be a positive number: */0");
  CHECK(ParseError("x * * * *") ==
        "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax");
  CHECK(ParseError("1,,2 * * * *") ==
        "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax");
  CHECK(ParseError("*/-5 * * * *") == "negative number (-5) not allowed: -5");
  CHECK(ParseError("99999999999999999999 * * * *") ==
        "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
        "\"99999999999999999999\": value out of range");
  // The first bad field wins, in field order.
  CHECK(ParseError("* 99 * * 9") == "end of range (99) above maximum (23): 99");
}

TEST_CASE("descriptors and @every", "[schedule][cron]") {
  CHECK(ParseError("@yearly").empty());
  CHECK(ParseError("@annually").empty());
  CHECK(ParseError("@monthly").empty());
  CHECK(ParseError("@weekly").empty());
  CHECK(ParseError("@daily").empty());
  CHECK(ParseError("@midnight").empty());
  CHECK(ParseError("@hourly").empty());
  CHECK(ParseError("@Daily") == "unrecognized descriptor: @Daily");
  CHECK(ParseError("@every") == "unrecognized descriptor: @every");
  CHECK(ParseError("@every 1d") ==
        "failed to parse duration @every 1d: time: unknown unit \"d\" in duration \"1d\"");
  CHECK(ParseError("@every 5") ==
        "failed to parse duration @every 5: time: missing unit in duration \"5\"");
  CHECK(ParseError("@every x") ==
        "failed to parse duration @every x: time: invalid duration \"x\"");

  const absl::Time t = At("UTC", 2026, 5, 12, 10, 0, 7) + absl::Milliseconds(250);
  CHECK(Next("@yearly", t) == "2027-01-01 00:00:00 +00:00");
  CHECK(Next("@monthly", t) == "2026-06-01 00:00:00 +00:00");
  CHECK(Next("@weekly", t) == "2026-05-17 00:00:00 +00:00");  // a Sunday
  CHECK(Next("@daily", t) == "2026-05-13 00:00:00 +00:00");
  CHECK(Next("@hourly", t) == "2026-05-12 11:00:00 +00:00");
  // @every counts from the whole second, in whole seconds, at least one.
  CHECK(Next("@every 3m", t) == "2026-05-12 10:03:07 +00:00");
  CHECK(Next("@every 1.5s", t) == "2026-05-12 10:00:08 +00:00");
  CHECK(Next("@every 10ms", t) == "2026-05-12 10:00:08 +00:00");
  CHECK(Next("@every 1h30m", t) == "2026-05-12 11:30:07 +00:00");
  CHECK(Parse("@every 1m").constant_delay());
  CHECK(!Parse("@hourly").constant_delay());
}

TEST_CASE("Go's ParseDuration", "[schedule][cron]") {
  std::string error;
  CHECK(ParseGoDuration("0", &error) == 0);
  CHECK(ParseGoDuration("1h2m3.5s", &error) == int64_t{3723500000000});
  CHECK(ParseGoDuration("-2us", &error) == -2000);
  CHECK(ParseGoDuration(".5ms", &error) == 500000);
  CHECK(!ParseGoDuration("", &error));
  CHECK(error == "time: invalid duration \"\"");
  CHECK(!ParseGoDuration("9999999999h", &error));
  CHECK(error == "time: invalid duration \"9999999999h\"");
  CHECK(!ParseGoDuration(".s", &error));
  CHECK(error == "time: invalid duration \".s\"");
}

TEST_CASE("ranges, steps, lists and names", "[schedule][cron]") {
  const absl::Time t = At("UTC", 2026, 5, 12, 10, 7);  // a Tuesday
  CHECK(Next("*/15 * * * *", t) == "2026-05-12 10:15:00 +00:00");
  CHECK(Next("5/20 * * * *", t) == "2026-05-12 10:25:00 +00:00");  // N/step: N to the max
  CHECK(Next("10-20/5 * * * *", t) == "2026-05-12 10:10:00 +00:00");
  CHECK(Next("0,30 9-17 * * *", t) == "2026-05-12 10:30:00 +00:00");
  CHECK(Next("0 0 * JAN,jul *", t) == "2026-07-01 00:00:00 +00:00");
  CHECK(ParseError("0 0 * * SAT-sun") == "beginning of range (6) beyond end of range (0): SAT-sun");
  CHECK(Next("0 0 * * FRI", t) == "2026-05-15 00:00:00 +00:00");
  CHECK(Next("? ? ? ? ?", t) == "2026-05-12 10:08:00 +00:00");
  // What follows a star's hyphen is ignored.
  CHECK(Next("*-5 * * * *", t) == "2026-05-12 10:08:00 +00:00");
  // Never within five years: Go's zero time.
  CHECK(Next("0 0 30 2 *", t) == "zero");
  CHECK(Next("0 0 29 2 *", t) == "2028-02-29 00:00:00 +00:00");
}

TEST_CASE("day of month and day of week: AND when either is a star, else OR", "[schedule][cron]") {
  const absl::Time t = At("UTC", 2026, 5, 12, 10, 7);  // Tuesday 12th
  // 13th OR Friday: the 13th (Wednesday) comes first.
  CHECK(Next("0 0 13 * 5", t) == "2026-05-13 00:00:00 +00:00");
  CHECK(Next("0 0 20 * 5", t) == "2026-05-15 00:00:00 +00:00");
  // A star in either: only the other counts.
  CHECK(Next("0 0 * * 5", t) == "2026-05-15 00:00:00 +00:00");
  CHECK(Next("0 0 20 * *", t) == "2026-05-20 00:00:00 +00:00");
  // `*/1` keeps the star; `*/2` does not, so it ORs with the day of week.
  CHECK(Next("0 0 */1 * 5", t) == "2026-05-15 00:00:00 +00:00");
  CHECK(Next("0 0 */2 * 5", t) == "2026-05-13 00:00:00 +00:00");
  // `?` is a star too.
  CHECK(Next("0 0 ? * 5", t) == "2026-05-15 00:00:00 +00:00");
}

TEST_CASE("time zones: CRON_TZ= and TZ= prefixes", "[schedule][cron]") {
  const absl::Time t = At("UTC", 2026, 5, 12, 10, 7);
  CHECK(Next("CRON_TZ=America/New_York 0 9 * * *", t, "America/New_York") ==
        "2026-05-12 09:00:00 -04:00");
  CHECK(Next("TZ=Asia/Kolkata 30 16 * * *", t) == "2026-05-12 11:00:00 +00:00");
  CHECK(Next("CRON_TZ=UTC   @hourly", t) == "2026-05-12 11:00:00 +00:00");
  CHECK(ParseError("CRON_TZ=Mars/Olympus 0 9 * * *") ==
        "provided bad location Mars/Olympus: unknown time zone Mars/Olympus");
  CHECK(ParseError("TZ=../etc 0 9 * * *") ==
        "provided bad location ../etc: time: invalid location name");
  // robfig slices up to the first space: with none, Go panics.
  CronParse p = ParseStandard("CRON_TZ=UTC", absl::UTCTimeZone());
  CHECK(p.error_kind == CronError::kPanic);
  // Without a prefix the given Local applies.
  CronParse local = ParseStandard("0 9 * * *", Zone("Europe/Berlin"));
  REQUIRE(local.schedule);
  CHECK(absl::FormatTime("%H:%M %Ez", local.schedule->Next(t), absl::UTCTimeZone()) ==
        "07:00 +00:00");
}

TEST_CASE("LoadLocation reads names as Go does", "[schedule][cron]") {
  std::string error;
  CHECK(LoadLocation("", absl::UTCTimeZone(), &error).has_value());
  CHECK(LoadLocation("UTC", absl::UTCTimeZone(), &error).has_value());
  CHECK(LoadLocation("Local", Zone("Asia/Tokyo"), &error)->name() == "Asia/Tokyo");
  CHECK(LoadLocation("Europe/Paris", absl::UTCTimeZone(), &error).has_value());
  CHECK(!LoadLocation("localtime", absl::UTCTimeZone(), &error));
  CHECK(error == "unknown time zone localtime");
  CHECK(!LoadLocation("Fixed/UTC+01:00", absl::UTCTimeZone(), &error));
  CHECK(!LoadLocation("/etc/localtime", absl::UTCTimeZone(), &error));
  CHECK(error == "time: invalid location name");
  // No file Go can open: absl's libc zones, and a name with a NUL (absl reads it only up to
  // the NUL, "UTC" here; Go's open fails).
  CHECK(!LoadLocation("libc:UTC", absl::UTCTimeZone(), &error));
  CHECK(!LoadLocation("file:UTC", absl::UTCTimeZone(), &error));
  CHECK(!LoadLocation(std::string_view("UTC\0n", 5), absl::UTCTimeZone(), &error));
}

TEST_CASE("DST: skipped and repeated hours in New York", "[schedule][cron]") {
  const std::string ny = "CRON_TZ=America/New_York ";
  // 2026-03-08: 02:00 EST jumps to 03:00 EDT. A 02:30 job does not run that day: robfig's hour
  // loop steps over the missing hour.
  CHECK(Next(ny + "30 2 * * *", At("America/New_York", 2026, 3, 7, 12, 0), "America/New_York") ==
        "2026-03-09 02:30:00 -04:00");
  CHECK(Next(ny + "30 3 * * *", At("America/New_York", 2026, 3, 8, 0, 0), "America/New_York") ==
        "2026-03-08 03:30:00 -04:00");
  // Every hour skips the missing one.
  CHECK(Next(ny + "0 * * * *", At("America/New_York", 2026, 3, 8, 1, 30), "America/New_York") ==
        "2026-03-08 03:00:00 -04:00");
  // 2026-11-01: 02:00 EDT falls back to 01:00 EST. A 01:30 job runs in both 01:30s, as robfig's
  // absolute-time hour steps do.
  const absl::Time before = At("America/New_York", 2026, 11, 1, 0, 0);
  const absl::Time first = Parse(ny + "30 1 * * *").Next(before);
  CHECK(absl::FormatTime("%H:%M %Ez", first, Zone("America/New_York")) == "01:30 -04:00");
  const absl::Time second = Parse(ny + "30 1 * * *").Next(first);
  CHECK(absl::FormatTime("%H:%M %Ez", second, Zone("America/New_York")) == "01:30 -05:00");
  // A day whose midnight a transition skips starts at 01:00 (Havana springs forward at 0:00).
  CHECK(Next("CRON_TZ=America/Havana 0 12 8 3 *", At("America/Havana", 2026, 3, 7, 13, 0),
             "America/Havana") == "2026-03-08 12:00:00 -04:00");
}

}  // namespace
}  // namespace kubesim::schedule
