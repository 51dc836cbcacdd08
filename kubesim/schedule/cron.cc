#include "kubesim/schedule/cron.h"

#include <absl/time/civil_time.h>

#include <cstdio>
#include <limits>
#include <vector>

namespace kubesim::schedule {
namespace {

constexpr uint64_t kStarBit = uint64_t{1} << 63;

struct Bounds {
  unsigned min;
  unsigned max;
  bool month_names = false;
  bool dow_names = false;
};

constexpr Bounds kSeconds{0, 59};
constexpr Bounds kMinutes{0, 59};
constexpr Bounds kHours{0, 23};
constexpr Bounds kDom{1, 31};
constexpr Bounds kMonths{1, 12, true, false};
constexpr Bounds kDow{0, 6, false, true};

bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> SplitOn(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    out.push_back(
        s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

std::vector<std::string_view> Fields(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    size_t start = i;
    while (i < s.size() && !IsSpace(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

// Go's quoting in time's and strconv's error messages, for the ASCII that schedules are made of.
std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c < 0x20 || c >= 0x80) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
      continue;
    }
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(static_cast<char>(c));
  }
  return out + "\"";
}

struct FieldError {
  std::string message;
};

// strconv.Atoi then robfig's sign check.
bool ParseUint(std::string_view expr, uint64_t* out, std::string* error) {
  std::string_view s = expr;
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  const std::string atoi = "strconv.Atoi: parsing " + GoQuote(expr) + ": ";
  bool range = false;
  uint64_t v = 0;
  if (s.empty()) {
    *error = "failed to parse int from " + std::string(expr) + ": " + atoi + "invalid syntax";
    return false;
  }
  for (char c : s) {
    if (c < '0' || c > '9') {
      *error = "failed to parse int from " + std::string(expr) + ": " + atoi + "invalid syntax";
      return false;
    }
    if (v > (uint64_t{1} << 63) / 10) range = true;
    v = v * 10 + static_cast<uint64_t>(c - '0');
    if (v > (uint64_t{1} << 63)) range = true;
  }
  if (range || (!neg && v > (uint64_t{1} << 63) - 1)) {
    *error = "failed to parse int from " + std::string(expr) + ": " + atoi + "value out of range";
    return false;
  }
  if (neg && v != 0) {
    *error = "negative number (-" + std::to_string(v) + ") not allowed: " + std::string(expr);
    return false;
  }
  *out = v;
  return true;
}

bool ParseIntOrName(std::string_view expr, const Bounds& b, uint64_t* out, std::string* error) {
  static constexpr const char* kMonthNames[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                                "jul", "aug", "sep", "oct", "nov", "dec"};
  static constexpr const char* kDayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
  if (b.month_names || b.dow_names) {
    std::string lower(expr);
    for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (b.month_names) {
      for (unsigned i = 0; i < 12; ++i) {
        if (lower == kMonthNames[i]) return *out = i + 1, true;
      }
    } else {
      for (unsigned i = 0; i < 7; ++i) {
        if (lower == kDayNames[i]) return *out = i, true;
      }
    }
  }
  return ParseUint(expr, out, error);
}

uint64_t Bits(uint64_t min, uint64_t max, uint64_t step) {
  if (step == 1) return (~(~uint64_t{0} << (max + 1))) & (~uint64_t{0} << min);
  uint64_t bits = 0;
  for (uint64_t i = min; i <= max; i += step) bits |= uint64_t{1} << i;
  return bits;
}

// One comma-separated term: `*`, `?`, N, N-M, each optionally /STEP.
bool ParseRange(std::string_view expr, const Bounds& b, uint64_t* out, std::string* error) {
  const std::vector<std::string_view> range_and_step = SplitOn(expr, '/');
  const std::vector<std::string_view> low_high = SplitOn(range_and_step[0], '-');
  const bool single = low_high.size() == 1;
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t step = 1;
  uint64_t extra = 0;
  const std::string e(expr);
  if (low_high[0] == "*" || low_high[0] == "?") {
    // Whatever follows a hyphen here is ignored, as robfig does.
    start = b.min;
    end = b.max;
    extra = kStarBit;
  } else {
    if (!ParseIntOrName(low_high[0], b, &start, error)) return false;
    if (low_high.size() == 1) {
      end = start;
    } else if (low_high.size() == 2) {
      if (!ParseIntOrName(low_high[1], b, &end, error)) return false;
    } else {
      *error = "too many hyphens: " + e;
      return false;
    }
  }
  if (range_and_step.size() == 2) {
    if (!ParseUint(range_and_step[1], &step, error)) return false;
    if (single) end = b.max;  // "N/step" is "N-max/step"
    if (step > 1) extra = 0;  // so `*/1` still counts as a star
  } else if (range_and_step.size() > 2) {
    *error = "too many slashes: " + e;
    return false;
  }
  if (start < b.min) {
    *error = "beginning of range (" + std::to_string(start) + ") below minimum (" +
             std::to_string(b.min) + "): " + e;
    return false;
  }
  if (end > b.max) {
    *error = "end of range (" + std::to_string(end) + ") above maximum (" + std::to_string(b.max) +
             "): " + e;
    return false;
  }
  if (start > end) {
    *error = "beginning of range (" + std::to_string(start) + ") beyond end of range (" +
             std::to_string(end) + "): " + e;
    return false;
  }
  if (step == 0) {
    *error = "step of range should be a positive number: " + e;
    return false;
  }
  *out = Bits(start, end, step) | extra;
  return true;
}

bool ParseField(std::string_view field, const Bounds& b, uint64_t* out, std::string* error) {
  uint64_t bits = 0;
  for (std::string_view expr : SplitOn(field, ',')) {
    uint64_t one = 0;
    if (!ParseRange(expr, b, &one, error)) return false;
    bits |= one;
  }
  *out = bits;
  return true;
}

uint64_t All(const Bounds& b) { return Bits(b.min, b.max, 1) | kStarBit; }

// Go's time.Date in a zone: a civil time that a transition skips or repeats resolves as Go
// resolves it, by looking up the offset twice.
absl::Time GoDate(const absl::CivilSecond& cs, const absl::TimeZone& zone) {
  const absl::Time as_utc = absl::FromCivil(cs, absl::UTCTimeZone());
  const int off1 = zone.At(as_utc).offset;
  const int off2 = zone.At(as_utc - absl::Seconds(off1)).offset;
  return as_utc - absl::Seconds(off2);
}

absl::Time FloorTo(absl::Time t, absl::Duration unit) {
  return absl::UnixEpoch() + absl::Floor(t - absl::UnixEpoch(), unit);
}

int GoWeekday(const absl::CivilSecond& cs) {
  // absl counts from Monday = 0; Go from Sunday = 0.
  return (static_cast<int>(absl::GetWeekday(absl::CivilDay(cs))) + 1) % 7;
}

}  // namespace

std::optional<absl::TimeZone> LoadLocation(std::string_view name, const absl::TimeZone& local,
                                           std::string* error) {
  if (name.empty() || name == "UTC") return absl::UTCTimeZone();
  if (name == "Local") return local;
  if (name.find("..") != std::string_view::npos || name[0] == '/' || name[0] == '\\') {
    *error = "time: invalid location name";
    return std::nullopt;
  }
  // absl's own pseudo-zones and prefixes (libc:, file:) are no files in the zoneinfo directory, so
  // Go knows none of them; a name with a NUL is no file Go can open (absl would read the name only
  // up to it).
  absl::TimeZone tz;
  if (name != "localtime" && !name.starts_with("Fixed/") && !name.starts_with("libc:") &&
      !name.starts_with("file:") && name.find('\0') == std::string_view::npos &&
      absl::LoadTimeZone(std::string(name), &tz)) {
    return tz;
  }
  *error = "unknown time zone " + std::string(name);
  return std::nullopt;
}

std::optional<int64_t> ParseGoDuration(std::string_view text, std::string* error) {
  const std::string invalid = "time: invalid duration " + GoQuote(text);
  std::string_view s = text;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0;
  if (s.empty()) return *error = invalid, std::nullopt;
  constexpr uint64_t kLimit = uint64_t{1} << 63;
  uint64_t total = 0;
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  while (!s.empty()) {
    if (!(s[0] == '.' || is_digit(s[0]))) return *error = invalid, std::nullopt;
    uint64_t v = 0;
    size_t i = 0;
    for (; i < s.size() && is_digit(s[i]); ++i) {
      if (v > kLimit / 10) return *error = invalid, std::nullopt;
      v = v * 10 + static_cast<uint64_t>(s[i] - '0');
      if (v > kLimit) return *error = invalid, std::nullopt;
    }
    const bool pre = i > 0;
    s.remove_prefix(i);
    uint64_t frac = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      size_t j = 0;
      bool overflow = false;
      for (; j < s.size() && is_digit(s[j]); ++j) {
        if (overflow) continue;
        if (frac > (kLimit - 1) / 10) {
          overflow = true;
          continue;
        }
        frac = frac * 10 + static_cast<uint64_t>(s[j] - '0');
        scale *= 10;
      }
      post = j > 0;
      s.remove_prefix(j);
    }
    if (!pre && !post) return *error = invalid, std::nullopt;
    size_t u = 0;
    while (u < s.size() && s[u] != '.' && !is_digit(s[u])) ++u;
    if (u == 0) return *error = "time: missing unit in duration " + GoQuote(text), std::nullopt;
    const std::string_view unit_name = s.substr(0, u);
    s.remove_prefix(u);
    uint64_t unit = 0;
    if (unit_name == "ns") {
      unit = 1;
    } else if (unit_name == "us" || unit_name == "\xc2\xb5s" || unit_name == "\xce\xbcs") {
      unit = 1000;
    } else if (unit_name == "ms") {
      unit = 1000000;
    } else if (unit_name == "s") {
      unit = 1000000000;
    } else if (unit_name == "m") {
      unit = 60 * uint64_t{1000000000};
    } else if (unit_name == "h") {
      unit = 3600 * uint64_t{1000000000};
    } else {
      *error = "time: unknown unit " + GoQuote(unit_name) + " in duration " + GoQuote(text);
      return std::nullopt;
    }
    if (v > kLimit / unit) return *error = invalid, std::nullopt;
    v *= unit;
    if (frac > 0) {
      v += static_cast<uint64_t>(static_cast<double>(frac) * (static_cast<double>(unit) / scale));
      if (v > kLimit) return *error = invalid, std::nullopt;
    }
    total += v;
    if (total > kLimit) return *error = invalid, std::nullopt;
  }
  if (neg) return total == kLimit ? std::numeric_limits<int64_t>::min() : -int64_t(total);
  if (total > kLimit - 1) return *error = invalid, std::nullopt;
  return static_cast<int64_t>(total);
}

struct CronParser {
  static bool Descriptor(std::string_view spec, const absl::TimeZone& zone, CronSchedule* s,
                         std::string* error) {
    s->zone_ = zone;
    s->second_ = 1;
    s->minute_ = 1;
    s->hour_ = 1;
    s->dom_ = All(kDom);
    s->month_ = All(kMonths);
    s->dow_ = All(kDow);
    if (spec == "@yearly" || spec == "@annually") {
      s->dom_ = uint64_t{1} << 1;
      s->month_ = uint64_t{1} << 1;
    } else if (spec == "@monthly") {
      s->dom_ = uint64_t{1} << 1;
    } else if (spec == "@weekly") {
      s->dow_ = 1;
    } else if (spec == "@daily" || spec == "@midnight") {
    } else if (spec == "@hourly") {
      s->hour_ = All(kHours);
    } else if (spec.starts_with("@every ")) {
      std::string duration_error;
      std::optional<int64_t> ns = ParseGoDuration(spec.substr(7), &duration_error);
      if (!ns) {
        *error = "failed to parse duration " + std::string(spec) + ": " + duration_error;
        return false;
      }
      // At least a second, and whole seconds only.
      constexpr int64_t kSecond = 1000000000;
      int64_t every = *ns < kSecond ? kSecond : *ns;
      s->every_ns_ = every - every % kSecond;
    } else {
      *error = "unrecognized descriptor: " + std::string(spec);
      return false;
    }
    return true;
  }

  static bool Spec(std::string_view spec, const absl::TimeZone& zone, CronSchedule* s,
                   std::string* error) {
    s->zone_ = zone;
    const std::vector<std::string_view> fields = Fields(spec);
    if (fields.size() != 5) {
      std::string listed = "[";
      for (size_t i = 0; i < fields.size(); ++i) {
        listed += (i > 0 ? " " : "") + std::string(fields[i]);
      }
      *error =
          "expected exactly 5 fields, found " + std::to_string(fields.size()) + ": " + listed + "]";
      return false;
    }
    return ParseField("0", kSeconds, &s->second_, error) &&
           ParseField(fields[0], kMinutes, &s->minute_, error) &&
           ParseField(fields[1], kHours, &s->hour_, error) &&
           ParseField(fields[2], kDom, &s->dom_, error) &&
           ParseField(fields[3], kMonths, &s->month_, error) &&
           ParseField(fields[4], kDow, &s->dow_, error);
  }
};

CronParse ParseStandard(std::string_view spec, const absl::TimeZone& local) {
  CronParse out;
  auto fail = [&out](CronError kind, std::string message) {
    out.error_kind = kind;
    out.error = std::move(message);
    return out;
  };
  if (spec.empty()) return fail(CronError::kInvalid, "empty spec string");
  absl::TimeZone zone = local;
  if (spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=")) {
    const size_t space = spec.find(' ');
    if (space == std::string_view::npos) {
      return fail(CronError::kPanic, "runtime error: slice bounds out of range [:-1]");
    }
    const size_t eq = spec.find('=');
    const std::string_view name = spec.substr(eq + 1, space - eq - 1);
    std::string error;
    std::optional<absl::TimeZone> loaded = LoadLocation(name, local, &error);
    if (!loaded) {
      return fail(CronError::kInvalid, "provided bad location " + std::string(name) + ": " + error);
    }
    zone = *loaded;
    spec = TrimSpace(spec.substr(space));
  }
  CronSchedule s;
  std::string error;
  const bool ok = spec.starts_with("@") ? CronParser::Descriptor(spec, zone, &s, &error)
                                        : CronParser::Spec(spec, zone, &s, &error);
  if (!ok) return fail(CronError::kInvalid, error);
  out.schedule = s;
  return out;
}

bool CronSchedule::DayMatches(const absl::CivilSecond& cs) const {
  const bool dom = Matches(dom_, cs.day());
  const bool dow = Matches(dow_, GoWeekday(cs));
  if ((dom_ & kStarBit) || (dow_ & kStarBit)) return dom && dow;
  return dom || dow;
}

absl::Time CronSchedule::Next(absl::Time t) const {
  if (every_ns_ > 0) return FloorTo(t, absl::Seconds(1)) + absl::Nanoseconds(every_ns_);
  const absl::TimeZone& loc = zone_;
  auto civil = [&loc](absl::Time at) { return loc.At(at).cs; };
  t = FloorTo(t, absl::Seconds(1)) + absl::Seconds(1);
  bool added = false;
  const int64_t year_limit = civil(t).year() + 5;
  // Each loop below restarts the search from the top when its field wraps, as robfig does.
wrap:
  absl::CivilSecond c = civil(t);
  if (c.year() > year_limit) return absl::InfinitePast();
  while (!Matches(month_, c.month())) {
    if (!added) {
      added = true;
      t = GoDate(absl::CivilSecond(c.year(), c.month(), 1, 0, 0, 0), loc);
      c = civil(t);
    }
    t = GoDate(
        absl::CivilSecond(c.year(), c.month() + 1, c.day(), c.hour(), c.minute(), c.second()), loc);
    c = civil(t);
    if (c.month() == 1) goto wrap;
  }
  while (!DayMatches(c)) {
    if (!added) {
      added = true;
      t = GoDate(absl::CivilSecond(c.year(), c.month(), c.day(), 0, 0, 0), loc);
      c = civil(t);
    }
    t = GoDate(
        absl::CivilSecond(c.year(), c.month(), c.day() + 1, c.hour(), c.minute(), c.second()), loc);
    c = civil(t);
    // A day that starts off midnight because of a transition is put back on midnight.
    if (c.hour() != 0) {
      t += c.hour() > 12 ? absl::Hours(24 - c.hour()) : absl::Hours(-c.hour());
      c = civil(t);
    }
    if (c.day() == 1) goto wrap;
  }
  while (!Matches(hour_, c.hour())) {
    if (!added) {
      added = true;
      t = GoDate(absl::CivilSecond(c.year(), c.month(), c.day(), c.hour(), 0, 0), loc);
      c = civil(t);
    }
    t += absl::Hours(1);
    c = civil(t);
    if (c.hour() == 0) goto wrap;
  }
  while (!Matches(minute_, c.minute())) {
    if (!added) {
      added = true;
      t = FloorTo(t, absl::Minutes(1));
      c = civil(t);
    }
    t += absl::Minutes(1);
    c = civil(t);
    if (c.minute() == 0) goto wrap;
  }
  while (!Matches(second_, c.second())) {
    if (!added) {
      added = true;
      t = FloorTo(t, absl::Seconds(1));
      c = civil(t);
    }
    t += absl::Seconds(1);
    c = civil(t);
    if (c.second() == 0) goto wrap;
  }
  return t;
}

}  // namespace kubesim::schedule
