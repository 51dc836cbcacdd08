#include "spark/time_util.h"

#include <string>

#include "base/strings.h"

namespace kje::spark {

EpochMillis ParseRfc3339Millis(std::string_view text) {
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
