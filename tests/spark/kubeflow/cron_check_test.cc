#include "spark/kubeflow/cron_check.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "test_json.h"

namespace kje::spark::kubeflow {
namespace {

using testing::T;

absl::TimeZone Zone(const std::string& name) {
  absl::TimeZone zone;
  REQUIRE(absl::LoadTimeZone(name, &zone));
  return zone;
}

// The next activation after `after` in `zone`, as RFC 3339 in UTC.
std::string Next(const std::string& spec, const std::string& after,
                 const std::string& zone = "UTC") {
  absl::StatusOr<CronSchedule> schedule = ParseCron(spec);
  REQUIRE(schedule.ok());
  absl::Time next = schedule->Next(T(after), Zone(zone));
  if (next == absl::InfiniteFuture()) return "never";
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%SZ", next, absl::UTCTimeZone());
}

std::string Error(const std::string& spec) {
  absl::StatusOr<CronSchedule> schedule = ParseCron(spec);
  REQUIRE_FALSE(schedule.ok());
  CHECK(schedule.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StartsWith(schedule.status().message(), "schedule"));
  return std::string(schedule.status().message());
}

TEST_CASE("five-field schedules the operator parses are accepted", "[kubeflow][cron]") {
  for (const char* spec : {
           "0 5 * * *",
           "*/15 * * * *",
           "0 9-17/2 * * MON-FRI",
           "0 0 1,15 * ?",
           "? ? ? ? ?",
           "30 4 * JAN,jul sun",
           "0 0 * Feb-Apr Sat",
           "0 0 * * 0",
           "0 0 * * 6",
           "59 23 31 12 *",
           "5/10 * * * *",
           "05 +3 * * *",
           "0 0 29 2 *",
           "0 0 31 4 MON",
           "0-59/1 0-23 1-31 1-12 0-6",
           "  0 5 * * *  ",
           "0\t5 * *\t*",
           "*/100 * * * *",
       }) {
    INFO(spec);
    CHECK(ParseCron(spec).ok());
  }
}

TEST_CASE("descriptors and @every are accepted", "[kubeflow][cron]") {
  for (const char* spec : {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight",
                           "@hourly", " @daily ", "@every 3m"}) {
    INFO(spec);
    absl::StatusOr<CronSchedule> schedule = ParseCron(spec);
    REQUIRE(schedule.ok());
    CHECK(schedule->own_zone() == std::nullopt);
  }
  auto every = [](const std::string& spec) {
    absl::StatusOr<CronSchedule> schedule = ParseCron(spec);
    REQUIRE(schedule.ok());
    return schedule->every();
  };
  CHECK(every("@every 1h30m") == absl::Minutes(90));
  CHECK(every("@every 1.5h") == absl::Minutes(90));
  CHECK(every("@every 90s") == absl::Seconds(90));
  CHECK(every("@every +2m") == absl::Minutes(2));
  CHECK(every("@every 2m500ms") == absl::Seconds(120));  // cut to whole seconds
  CHECK(every("@every 500ms") == absl::Seconds(1));      // at least a second
  CHECK(every("@every 1500us") == absl::Seconds(1));
  CHECK(every("@every 3000000000ns") == absl::Seconds(3));
  CHECK(every("@every .5m") == absl::Seconds(30));
  CHECK(every("@every 1\xC2\xB5s") == absl::Seconds(1));
  CHECK(every("@every 2562047h") == absl::Hours(2562047));
  CHECK(every("@daily") == absl::ZeroDuration());
}

TEST_CASE("schedules the operator refuses or never runs are refused", "[kubeflow][cron]") {
  CHECK(ParseCron("").status().message() == "schedule is empty");
  CHECK(absl::StrContains(Error("   "), "exactly 5 fields"));
  CHECK(absl::StrContains(Error("0 5 * *"), "not 4"));
  CHECK(absl::StrContains(Error("0 0 5 * * *"), "not 6"));  // no seconds field
  CHECK(absl::StrContains(Error("60 * * * *"), "minute field \"60\" goes above the maximum 59"));
  CHECK(absl::StrContains(Error("* 24 * * *"), "hour field"));
  CHECK(absl::StrContains(Error("* * 0 * *"), "day-of-month field \"0\" starts below"));
  CHECK(absl::StrContains(Error("* * 32 * *"), "day-of-month"));
  CHECK(absl::StrContains(Error("* * * 13 *"), "month field"));
  CHECK(absl::StrContains(Error("* * * 0 *"), "month field"));
  CHECK(absl::StrContains(Error("* * * * 7"), "day-of-week field \"7\" goes above the maximum 6"));
  CHECK(absl::StrContains(Error("* * * * MON-7"), "day-of-week"));
  CHECK(absl::StrContains(Error("5-1 * * * *"), "ends before it starts"));
  CHECK(absl::StrContains(Error("*/0 * * * *"), "step of 0"));
  CHECK(absl::StrContains(Error("1/2/3 * * * *"), "more than one '/'"));
  CHECK(absl::StrContains(Error("1-2-3 * * * *"), "more than one '-'"));
  CHECK(absl::StrContains(Error("a * * * *"), "isn't a whole number"));
  CHECK(absl::StrContains(Error("* * * foo *"), "JAN-DEC"));
  CHECK(absl::StrContains(Error("* * * January *"), "JAN-DEC"));
  CHECK(absl::StrContains(Error("* * * * monday"), "SUN-SAT"));
  CHECK(absl::StrContains(Error("* * * * */x"), "step"));
  CHECK(absl::StrContains(Error("-1 * * * *"), "minute"));
  CHECK(absl::StrContains(Error("1,,2 * * * *"), "minute"));
  CHECK(absl::StrContains(Error("*-5 * * * *"), "after its '*'"));
  CHECK(absl::StrContains(Error("99999999999999999999 * * * *"), "minute"));
  CHECK(absl::StrContains(Error("0 0 30 2 *"), "never runs"));
  CHECK(absl::StrContains(Error("0 0 31 4,6,9,11 *"), "never runs"));
  CHECK(absl::StrContains(Error("@Daily"), "descriptor"));
  CHECK(absl::StrContains(Error("@reboot"), "descriptor"));
  CHECK(absl::StrContains(Error("@daily extra"), "descriptor"));
  CHECK(absl::StrContains(Error("@every"), "descriptor"));
  CHECK(absl::StrContains(Error("@every "), "descriptor"));  // the operator trims it first
  CHECK(absl::StrContains(Error("@every  3m"), "@every duration"));
  CHECK(absl::StrContains(Error("@every 5"), "@every duration"));
  CHECK(absl::StrContains(Error("@every 1d"), "@every duration"));
  CHECK(absl::StrContains(Error("@every 1h extra"), "@every duration"));
  CHECK(absl::StrContains(Error("@every ."), "@every duration"));
  CHECK(absl::StrContains(Error("@every 2562048h"), "@every duration"));  // past int64 nanos
  CHECK(absl::StrContains(Error("@every 0"), "must be positive"));
  CHECK(absl::StrContains(Error("@every 0s"), "must be positive"));
  CHECK(absl::StrContains(Error("@every -5m"), "must be positive"));
  // The errors quote outside input safely.
  CHECK(absl::StrContains(Error("\x01 * * * *"), "\\x01"));
}

TEST_CASE("a CRON_TZ= or TZ= prefix names the schedule's own zone", "[kubeflow][cron]") {
  absl::StatusOr<CronSchedule> berlin = ParseCron("CRON_TZ=Europe/Berlin 0 5 * * *");
  REQUIRE(berlin.ok());
  REQUIRE(berlin->own_zone().has_value());
  CHECK(berlin->own_zone()->name() == "Europe/Berlin");
  CHECK(ParseCron("TZ=UTC @daily").ok());
  CHECK(ParseCron("TZ=America/New_York   @every 1h").ok());
  CHECK(ParseCron("CRON_TZ=Local 0 5 * * *").ok());
  // An empty zone is UTC to the operator's parser.
  absl::StatusOr<CronSchedule> empty = ParseCron("CRON_TZ= 0 5 * * *");
  REQUIRE(empty.ok());
  CHECK(empty->own_zone()->name() == "UTC");

  CHECK(absl::StrContains(Error("CRON_TZ=Mars/Phobos 0 5 * * *"),
                          "its time zone \"Mars/Phobos\" is unknown"));
  CHECK(absl::StrContains(Error("CRON_TZ=UTC"), "followed by a space"));
  CHECK(absl::StrContains(Error("TZ=../../etc/passwd 0 5 * * *"), "is a path"));
  CHECK(absl::StrContains(Error("TZ=/etc/localtime 0 5 * * *"), "is a path"));
  CHECK(absl::StrContains(Error("CRON_TZ=UTC 0 5 * *"), "not 4"));
  // Only at the very start: the operator puts its own prefix first and then sees two.
  CHECK(absl::StrContains(Error(" CRON_TZ=UTC 0 5 * * *"), "not 6"));
  CHECK(absl::StrContains(Error("cron_tz=UTC 0 5 * * *"), "not 6"));
}

TEST_CASE("time zones are the ones the operator loads", "[kubeflow][cron]") {
  for (const char* zone :
       {"", "Local", "UTC", "America/New_York", "Europe/Berlin", "Asia/Tokyo", "Etc/GMT+5"}) {
    INFO(zone);
    CHECK(CheckTimeZone(zone).ok());
    CHECK(ResolveTimeZone(zone).ok());
  }
  CHECK(ResolveTimeZone("")->name() == "UTC");
  CHECK(ResolveTimeZone("Local")->name() == "UTC");
  CHECK(ResolveTimeZone("Asia/Tokyo")->name() == "Asia/Tokyo");
  for (const char* zone :
       {"Mars/Base", "america/new_york", "/etc/localtime", "../UTC", "Europe/../UTC", "\\UTC",
        "Fixed/UTC+05:00", "libc:UTC", "localtime", "UTC ", "Europe/Berlin\n", "+05:00"}) {
    INFO(zone);
    absl::Status status = CheckTimeZone(zone);
    CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    CHECK(absl::StartsWith(status.message(), "time_zone \""));
    CHECK(ResolveTimeZone(zone).status().code() == absl::StatusCode::kInvalidArgument);
  }
}

TEST_CASE("Next walks minutes, hours, days, months and years", "[kubeflow][cron]") {
  CHECK(Next("0 5 * * *", "2026-05-12T10:00:00Z") == "2026-05-13T05:00:00Z");
  CHECK(Next("0 5 * * *", "2026-05-12T04:59:59.9Z") == "2026-05-12T05:00:00Z");
  // Strictly after.
  CHECK(Next("0 5 * * *", "2026-05-13T05:00:00Z") == "2026-05-14T05:00:00Z");
  CHECK(Next("*/15 * * * *", "2026-05-12T10:07:30Z") == "2026-05-12T10:15:00Z");
  CHECK(Next("*/15 * * * *", "2026-05-12T23:59:00Z") == "2026-05-13T00:00:00Z");
  CHECK(Next("* * * * *", "2026-05-12T10:07:30Z") == "2026-05-12T10:08:00Z");
  CHECK(Next("5/20 * * * *", "2026-05-12T10:26:00Z") == "2026-05-12T10:45:00Z");
  // Months: the 1st after the last day, the 31st skipping short months, Dec 31 to the new year.
  CHECK(Next("0 0 1 * *", "2026-01-31T12:00:00Z") == "2026-02-01T00:00:00Z");
  CHECK(Next("0 0 31 * *", "2026-01-31T12:00:00Z") == "2026-03-31T00:00:00Z");
  CHECK(Next("0 0 31 * *", "2026-03-31T12:00:00Z") == "2026-05-31T00:00:00Z");
  CHECK(Next("59 23 31 12 *", "2026-12-31T23:59:00Z") == "2027-12-31T23:59:00Z");
  CHECK(Next("0 0 1 1 *", "2026-06-01T00:00:00Z") == "2027-01-01T00:00:00Z");
  CHECK(Next("0 0 29 2 *", "2026-03-01T00:00:00Z") == "2028-02-29T00:00:00Z");
  CHECK(Next("0 12 * JUN *", "2026-05-12T10:00:00Z") == "2026-06-01T12:00:00Z");
  // Weekdays: 2026-05-15 is a Friday.
  CHECK(Next("0 9 * * MON-FRI", "2026-05-15T10:00:00Z") == "2026-05-18T09:00:00Z");
  CHECK(Next("0 9 * * sun", "2026-05-15T10:00:00Z") == "2026-05-17T09:00:00Z");
  CHECK(Next("0 9 * * 0", "2026-05-17T09:00:00Z") == "2026-05-24T09:00:00Z");
  // Both day fields restricted: either matches (Friday the 15th, then the 20th).
  CHECK(Next("0 0 20 * FRI", "2026-05-14T12:00:00Z") == "2026-05-15T00:00:00Z");
  CHECK(Next("0 0 20 * FRI", "2026-05-15T12:00:00Z") == "2026-05-20T00:00:00Z");
  // One of them * (or ?): the other one alone decides.
  CHECK(Next("0 0 13 * ?", "2026-05-14T00:00:00Z") == "2026-06-13T00:00:00Z");
  CHECK(Next("0 0 13 * 5", "2026-03-14T00:00:00Z") == "2026-03-20T00:00:00Z");
  CHECK(Next("0 0 */31 * FRI", "2026-05-14T00:00:00Z") == "2026-05-15T00:00:00Z");
  // Descriptors.
  CHECK(Next("@yearly", "2026-05-12T10:00:00Z") == "2027-01-01T00:00:00Z");
  CHECK(Next("@monthly", "2026-05-12T10:00:00Z") == "2026-06-01T00:00:00Z");
  CHECK(Next("@weekly", "2026-05-12T10:00:00Z") == "2026-05-17T00:00:00Z");
  CHECK(Next("@daily", "2026-05-12T10:00:00Z") == "2026-05-13T00:00:00Z");
  CHECK(Next("@midnight", "2026-05-12T00:00:00Z") == "2026-05-13T00:00:00Z");
  CHECK(Next("@hourly", "2026-05-12T10:00:00Z") == "2026-05-12T11:00:00Z");
  CHECK(Next("@hourly", "2026-05-12T23:30:00Z") == "2026-05-13T00:00:00Z");
  // @every: from the second of `after`, in any zone.
  CHECK(Next("@every 90m", "2026-05-12T10:00:00.5Z") == "2026-05-12T11:30:00Z");
  CHECK(Next("@every 3m", "2026-05-12T10:00:07Z", "Asia/Tokyo") == "2026-05-12T10:03:07Z");
  CHECK(Next("@every 500ms", "2026-05-12T10:00:07.9Z") == "2026-05-12T10:00:08Z");
}

TEST_CASE("Next computes in the schedule's zone", "[kubeflow][cron]") {
  CHECK(Next("0 5 * * *", "2026-05-12T10:00:00Z", "Europe/Berlin") == "2026-05-13T03:00:00Z");
  CHECK(Next("0 5 * * *", "2026-01-12T10:00:00Z", "Europe/Berlin") == "2026-01-13T04:00:00Z");
  CHECK(Next("@daily", "2026-05-12T10:00:00Z", "Asia/Tokyo") == "2026-05-12T15:00:00Z");
  // The prefix wins over the zone given.
  CHECK(Next("CRON_TZ=America/New_York 0 5 * * *", "2026-05-12T10:00:00Z", "Asia/Tokyo") ==
        "2026-05-13T09:00:00Z");
  CHECK(Next("TZ=UTC 0 5 * * *", "2026-05-12T10:00:00Z", "Asia/Tokyo") == "2026-05-13T05:00:00Z");
  // Monday 09:00 in Tokyo is still Sunday in UTC.
  CHECK(Next("0 9 * * MON", "2026-05-15T00:00:00Z", "Asia/Tokyo") == "2026-05-18T00:00:00Z");
}

TEST_CASE("Next across New York's DST days", "[kubeflow][cron]") {
  const std::string ny = "America/New_York";
  // Spring forward on 2026-03-08: 02:00 EST becomes 03:00 EDT.
  CHECK(Next("0 5 * * *", "2026-03-07T12:00:00Z", ny) == "2026-03-08T09:00:00Z");
  CHECK(Next("0 5 * * *", "2026-03-06T12:00:00Z", ny) == "2026-03-07T10:00:00Z");
  // 02:30 doesn't exist that day: the next one is the day after.
  CHECK(Next("30 2 * * *", "2026-03-07T17:00:00Z", ny) == "2026-03-09T06:30:00Z");
  // Hourly skips the missing hour.
  CHECK(Next("0 * * * *", "2026-03-08T06:30:00Z", ny) == "2026-03-08T07:00:00Z");
  CHECK(Next("@daily", "2026-03-07T12:00:00Z", ny) == "2026-03-08T05:00:00Z");
  CHECK(Next("@daily", "2026-03-08T05:00:00Z", ny) == "2026-03-09T04:00:00Z");
  // Fall back on 2026-11-01: 01:30 happens twice, and the operator runs at both.
  CHECK(Next("30 1 * * *", "2026-10-31T16:00:00Z", ny) == "2026-11-01T05:30:00Z");
  CHECK(Next("30 1 * * *", "2026-11-01T05:30:00Z", ny) == "2026-11-01T06:30:00Z");
  CHECK(Next("30 1 * * *", "2026-11-01T06:30:00Z", ny) == "2026-11-02T06:30:00Z");
  CHECK(Next("0 5 * * *", "2026-10-31T12:00:00Z", ny) == "2026-11-01T10:00:00Z");
}

TEST_CASE("Next gives up where the operator's parser does", "[kubeflow][cron]") {
  // No February 29 from 2097 to 2103 (2100 is no leap year): more than five years.
  CHECK(Next("0 0 29 2 *", "2097-01-01T00:00:00Z") == "never");
  absl::StatusOr<CronSchedule> daily = ParseCron("@daily");
  REQUIRE(daily.ok());
  CHECK(daily->Next(absl::InfiniteFuture(), absl::UTCTimeZone()) == absl::InfiniteFuture());
}

TEST_CASE("NextRunAfter resolves the spec's time zone", "[kubeflow][cron]") {
  absl::StatusOr<absl::Time> next =
      NextRunAfter("0 5 * * *", "America/New_York", T("2026-05-12T10:00:00Z"));
  REQUIRE(next.ok());
  CHECK(*next == T("2026-05-13T09:00:00Z"));
  next = NextRunAfter("0 5 * * *", "", T("2026-05-12T10:00:00Z"));
  REQUIRE(next.ok());
  CHECK(*next == T("2026-05-13T05:00:00Z"));
  // The operator checks timeZone first, even when the schedule names its own.
  absl::Status bad_zone = NextRunAfter("TZ=UTC @daily", "Mars/Base", absl::Now()).status();
  CHECK(absl::StartsWith(bad_zone.message(), "time_zone"));
  absl::Status bad_cron = NextRunAfter("@sometimes", "UTC", absl::Now()).status();
  CHECK(absl::StartsWith(bad_cron.message(), "schedule"));
}

}  // namespace
}  // namespace kje::spark::kubeflow
