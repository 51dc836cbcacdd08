#include "spark/time_util.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

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

// What Abseil's RFC 3339 parser makes of `text`, floored to milliseconds: the reference the
// direct reading of the API server's spelling must agree with.
EpochMillis AbslMillis(const std::string& text) {
  if (text.size() < 20 || (text[10] != 'T' && text[10] != 't')) return kNoTime;
  absl::Time t;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, text, &t, &error)) return kNoTime;
  return absl::ToUnixMillis(t);
}

TEST_CASE("the API server's spelling reads as Abseil's parser reads it") {
  std::mt19937 rng(20261205);
  std::vector<std::string> cases = {"2024-02-29T00:00:00Z",
                                    "2023-02-29T00:00:00Z",
                                    "1900-02-29T12:00:00Z",
                                    "2000-02-29T12:00:00Z",
                                    "2026-04-31T10:00:00Z",
                                    "2026-04-30T23:59:59.999999999Z",
                                    "2026-12-31T23:59:60Z",
                                    "2026-05-12T24:00:00Z",
                                    "2026-05-12T10:60:00Z",
                                    "2026-00-12T10:00:00Z",
                                    "2026-05-00T10:00:00Z",
                                    "0000-01-01T00:00:00Z",
                                    "1969-12-31T23:59:59.9Z",
                                    "1600-03-01T00:00:00.001Z",
                                    "9999-12-31T23:59:59.9999999999Z",
                                    "2026-05-12T10:00:00.Z",
                                    "2026-05-12T10:00:00.1234567890123Z",
                                    "2026-05-12t10:00:00z",
                                    "2026-05-12T10:00:00+00:00",
                                    "2026-05-12T10:00:00-07:30",
                                    "2026-5-12T10:00:00Z",
                                    "2026-05-12T10:00:0xZ",
                                    "+026-05-12T10:00:00Z",
                                    "2026-05-12T10:00:00ZZ"};
  for (int i = 0; i < 20000; ++i) {
    char buf[64];
    int year = std::uniform_int_distribution<int>(1600, 2400)(rng);
    int month = std::uniform_int_distribution<int>(0, 13)(rng);
    int day = std::uniform_int_distribution<int>(0, 32)(rng);
    int hour = std::uniform_int_distribution<int>(0, 24)(rng);
    int minute = std::uniform_int_distribution<int>(0, 60)(rng);
    int second = std::uniform_int_distribution<int>(0, 60)(rng);
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute,
                  second);
    std::string text = buf;
    int digits = std::uniform_int_distribution<int>(-1, 11)(rng);
    if (digits >= 0) text += '.';
    for (int d = 0; d < digits; ++d) {
      text += static_cast<char>('0' + std::uniform_int_distribution<int>(0, 9)(rng));
    }
    text += 'Z';
    cases.push_back(text);
  }
  int valid = 0;
  for (const std::string& text : cases) {
    INFO(text);
    EpochMillis expected = AbslMillis(text);
    CHECK(ParseRfc3339Millis(text) == expected);
    if (expected != kNoTime) ++valid;
  }
  CHECK(valid > 5000);  // the draw covers real times, not only refusals
}

TEST_CASE("ToOptionalTime keeps absence") {
  CHECK_FALSE(ToOptionalTime(kNoTime).has_value());
  REQUIRE(ToOptionalTime(1500).has_value());
  CHECK(*ToOptionalTime(1500) == absl::FromUnixMillis(1500));
}

}  // namespace
}  // namespace kje::spark
