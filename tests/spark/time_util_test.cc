#include "spark/time_util.h"

#include <catch2/catch.hpp>

namespace kje::spark {
namespace {

TEST_CASE("RFC 3339 times parse to milliseconds - fractions floored") {
  CHECK(ParseRfc3339Millis("1970-01-01T00:00:00Z") == 0);
  CHECK(ParseRfc3339Millis("2026-05-12T10:00:00Z") == 1778580000000);
  CHECK(ParseRfc3339Millis("2026-05-12T10:00:09.53344Z") == 1778580009533);
  CHECK(ParseRfc3339Millis("2026-05-12T10:00:09.5339999Z") == 1778580009533);
  CHECK(ParseRfc3339Millis("2026-05-12T10:00:31.66Z") == 1778580031660);
  CHECK(ParseRfc3339Millis("2026-05-12T12:00:00+02:00") == 1778580000000);
  CHECK(ParseRfc3339Millis("1969-12-31T23:59:59.9995Z") == -1);
}

TEST_CASE("Unparsable times are absent") {
  for (const char* bad : {"", "garbage", "2026-05-12", "2026-05-12 10:00:00Z",
                          "2026-05-12T10:00:00", "2026-13-12T10:00:00Z", "10:00:00Z"}) {
    INFO(bad);
    CHECK(ParseRfc3339Millis(bad) == kNoTime);
  }
}

TEST_CASE("ToOptionalTime keeps absence") {
  CHECK_FALSE(ToOptionalTime(kNoTime).has_value());
  REQUIRE(ToOptionalTime(1500).has_value());
  CHECK(*ToOptionalTime(1500) == absl::FromUnixMillis(1500));
}

}  // namespace
}  // namespace kje::spark
