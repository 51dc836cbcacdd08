#include "spark/kubeflow/cron_check.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"

namespace kje::spark::kubeflow {
namespace {

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
                           "@hourly", "CRON_TZ=UTC  @daily ", "@every 3m"}) {
    INFO(spec);
    absl::StatusOr<CronSchedule> schedule = ParseCron(spec);
    REQUIRE(schedule.ok());
    CHECK(schedule->own_zone().has_value() == absl::StartsWith(spec, "CRON_TZ="));
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
  // Not trimmed without a zone prefix: a duration of nothing.
  CHECK(absl::StrContains(Error("@every "), "@every duration"));
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
  }
  for (const char* zone :
       {"Mars/Base", "america/new_york", "/etc/localtime", "../UTC", "Europe/../UTC", "\\UTC",
        "Fixed/UTC+05:00", "libc:UTC", "localtime", "UTC ", "Europe/Berlin\n", "+05:00"}) {
    INFO(zone);
    absl::Status status = CheckTimeZone(zone);
    CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    CHECK(absl::StartsWith(status.message(), "time_zone \""));
  }
}

TEST_CASE("whitespace around a descriptor: trimmed only after a zone prefix, as the operator does",
          "[kubeflow][cron]") {
  // Without a prefix the operator reads a leading blank as the start of five fields, and a
  // trailing one as part of the descriptor's name: FailedValidation for good.
  for (const char* spec : {"\t@daily", " @hourly", "\t\t\v@monthly", "@daily ", "@every 1h "}) {
    INFO(spec);
    CHECK(absl::IsInvalidArgument(ParseCron(spec).status()));
  }
  CHECK(ParseCron("CRON_TZ=UTC   @daily  ").ok());
  CHECK(ParseCron(" 0 3 * * * ").ok());  // five fields split on blanks, wherever they are
}

}  // namespace
}  // namespace kje::spark::kubeflow
