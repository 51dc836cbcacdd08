#include "spark/time_util.h"

#include <optional>
#include <string>

#include "absl/time/civil_time.h"
#include "base/strings.h"

namespace kje::spark {
namespace {

bool Digits(std::string_view text, size_t pos, size_t n, int64_t* out) {
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    v = v * 10 + (text[i] - '0');
  }
  *out = v;
  return true;
}

// The spelling the API server and the operators write, "2026-05-12T10:00:09.53344Z" with 0 to 9
// fraction digits, read directly: a cache of 100k applications reads several per application,
// and the general parser costs about a hundred times more. Anything else (an offset, a leap
// second, more digits) is left to it: nullopt.
std::optional<EpochMillis> ParseUtcMillis(std::string_view text) {
  if (text.size() < 20 || text.back() != 'Z' || text[4] != '-' || text[7] != '-' ||
      text[10] != 'T' || text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  int64_t year, month, day, hour, minute, second;
  if (!Digits(text, 0, 4, &year) || !Digits(text, 5, 2, &month) || !Digits(text, 8, 2, &day) ||
      !Digits(text, 11, 2, &hour) || !Digits(text, 14, 2, &minute) ||
      !Digits(text, 17, 2, &second)) {
    return std::nullopt;
  }
  // Abseil's civil time normalizes a field out of its range (30 April + 1 day, hour 24): a
  // date-time it changed isn't one that exists.
  const absl::CivilSecond civil(year, month, day, hour, minute, second);
  if (civil.month() != month || civil.day() != day || civil.hour() != hour ||
      civil.minute() != minute || civil.second() != second) {
    return std::nullopt;
  }
  int64_t millis = 0;
  const size_t fraction = text.size() - 20;  // the digits after a dot, if any
  if (fraction > 0) {
    int64_t digits;
    if (text[19] != '.' || fraction < 2 || fraction > 10 ||
        !Digits(text, 20, fraction - 1, &digits)) {
      return std::nullopt;
    }
    // The first three digits are the milliseconds; a positive fraction floors to them.
    for (size_t n = fraction - 1; n > 3; --n) digits /= 10;
    for (size_t n = fraction - 1; n < 3; ++n) digits *= 10;
    millis = digits;
  } else if (text[19] != 'Z') {
    return std::nullopt;
  }
  const int64_t seconds = civil - absl::CivilSecond(1970, 1, 1, 0, 0, 0);
  return seconds * 1000 + millis;
}

}  // namespace

EpochMillis ParseRfc3339Millis(std::string_view text) {
  if (std::optional<EpochMillis> utc = ParseUtcMillis(text)) return *utc;
  // RFC3339_full alone also accepts a few non-RFC spellings; requiring the date-time separator
  // and a zone keeps "2026-05-12" or "yesterday" out.
  if (text.size() < 20 || (text[10] != 'T' && text[10] != 't')) return kNoTime;
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, ToAbsl(text), &time, &error)) return kNoTime;
  if (time == absl::InfinitePast() || time == absl::InfiniteFuture()) return kNoTime;
  return absl::ToUnixMillis(time);
}

}  // namespace kje::spark
