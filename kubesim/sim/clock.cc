#include "kubesim/sim/clock.h"

#include <cmath>
#include <cstdio>

namespace kubesim::sim {
namespace {

// Days since 1970-01-01 of a civil date, and back (the proleptic Gregorian calendar).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, int64_t* m, int64_t* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yoe + era * 400 + (*m <= 2 ? 1 : 0);
}

}  // namespace

std::string FormatTime(int64_t ms, bool millis) {
  int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  int64_t frac = ms - secs * 1000;
  int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
  int64_t rem = secs - days * 86400;
  int64_t y = 0;
  int64_t m = 0;
  int64_t d = 0;
  CivilFromDays(days, &y, &m, &d);
  char buf[160];
  if (millis && frac != 0) {
    std::snprintf(buf, sizeof(buf), "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ",
                  static_cast<long long>(y), static_cast<long long>(m), static_cast<long long>(d),
                  static_cast<long long>(rem / 3600), static_cast<long long>(rem / 60 % 60),
                  static_cast<long long>(rem % 60), static_cast<long long>(frac));
  } else {
    std::snprintf(buf, sizeof(buf), "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ",
                  static_cast<long long>(y), static_cast<long long>(m), static_cast<long long>(d),
                  static_cast<long long>(rem / 3600), static_cast<long long>(rem / 60 % 60),
                  static_cast<long long>(rem % 60));
  }
  return buf;
}

int64_t ScaledMs(int64_t ms, double time_scale) {
  if (ms <= 0) return 0;
  double scale = time_scale > 0 ? time_scale : 1.0;
  return static_cast<int64_t>(std::ceil(static_cast<double>(ms) / scale));
}

std::optional<int64_t> ParseTime(std::string_view t) {
  // YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)
  if (t.size() < 20) return std::nullopt;
  auto num = [&](size_t pos, size_t len, int64_t* out) {
    int64_t v = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (i >= t.size() || t[i] < '0' || t[i] > '9') return false;
      v = v * 10 + (t[i] - '0');
    }
    *out = v;
    return true;
  };
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!num(0, 4, &y) || t[4] != '-' || !num(5, 2, &mo) || t[7] != '-' || !num(8, 2, &d) ||
      (t[10] != 'T' && t[10] != 't') || !num(11, 2, &h) || t[13] != ':' || !num(14, 2, &mi) ||
      t[16] != ':' || !num(17, 2, &s)) {
    return std::nullopt;
  }
  size_t pos = 19;
  int64_t ms = 0;
  if (pos < t.size() && t[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < t.size() && t[pos] >= '0' && t[pos] <= '9') {
      if (digits < 3) ms = ms * 10 + (t[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (int i = digits; i < 3; ++i) ms *= 10;
  }
  int64_t offset_min = 0;
  if (pos < t.size() && (t[pos] == 'Z' || t[pos] == 'z')) {
    ++pos;
  } else if (pos < t.size() && (t[pos] == '+' || t[pos] == '-')) {
    int64_t oh = 0, om = 0;
    if (!num(pos + 1, 2, &oh) || pos + 3 >= t.size() || t[pos + 3] != ':' ||
        !num(pos + 4, 2, &om)) {
      return std::nullopt;
    }
    offset_min = (t[pos] == '+' ? 1 : -1) * (oh * 60 + om);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != t.size()) return std::nullopt;
  int64_t secs = DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset_min * 60;
  return secs * 1000 + ms;
}

}  // namespace kubesim::sim
