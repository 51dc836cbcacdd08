#include "spark/log_cursor.h"

#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/strings.h"

namespace kje::spark {

namespace {

// A version tag first: a later codec can read (or refuse) the cursors of this one.
constexpr std::string_view kVersion = "1";
constexpr size_t kMaxCursorBytes = 512;

absl::Status NotACursor() {
  return absl::InvalidArgumentError(
      "resume is not a cursor this service gave: pass an OutputChunk.cursor unchanged");
}

}  // namespace

std::string EncodeCursor(const LogPosition& position) {
  std::string raw = absl::StrCat(ToAbsl(kVersion), "|", ToAbsl(position.pod_uid), "|",
                                 position.unix_nanos, "|", position.at_stamp);
  return absl::WebSafeBase64Escape(raw);
}

absl::StatusOr<LogPosition> DecodeCursor(std::string_view cursor) {
  if (cursor.empty() || cursor.size() > kMaxCursorBytes) return NotACursor();
  std::string raw;
  if (!absl::WebSafeBase64Unescape(ToAbsl(cursor), &raw)) return NotACursor();
  std::vector<absl::string_view> parts = absl::StrSplit(raw, '|');
  if (parts.size() != 4 || parts[0] != ToAbsl(kVersion) || parts[1].empty()) return NotACursor();
  LogPosition out;
  out.pod_uid = std::string(parts[1].data(), parts[1].size());
  if (!absl::SimpleAtoi(parts[2], &out.unix_nanos) || !absl::SimpleAtoi(parts[3], &out.at_stamp) ||
      out.at_stamp < 1 || out.unix_nanos < 0) {
    return NotACursor();
  }
  return out;
}

std::optional<StampedLine> SplitStamp(std::string_view line) {
  const size_t space = line.find(' ');
  // The shortest stamp is 20 bytes (no fraction), the longest 35 (with a zone offset).
  if (space == std::string_view::npos || space < 20 || space > 35) return std::nullopt;
  absl::Time when;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, ToAbsl(line.substr(0, space)), &when, &error)) {
    return std::nullopt;
  }
  return StampedLine{absl::ToUnixNanos(when), line.substr(space + 1)};
}

std::string FormatStamp(int64_t unix_nanos) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E*SZ", absl::FromUnixNanos(unix_nanos),
                          absl::UTCTimeZone());
}

std::string ResumeSinceTime(const LogPosition& position) {
  const int64_t second = position.unix_nanos / 1000000000;
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixSeconds(second), absl::UTCTimeZone());
}

LogPositionTracker::LogPositionTracker(std::string pod_uid, std::optional<LogPosition> resume_after)
    : pod_uid_(std::move(pod_uid)), resume_(std::move(resume_after)) {
  // A cursor of another pod (an earlier attempt's driver) says nothing of this log: all of it
  // is new.
  if (resume_ && resume_->pod_uid != pod_uid_) resume_.reset();
}

bool LogPositionTracker::Accept(int64_t unix_nanos) {
  if (at_stamp_ > 0 && unix_nanos == nanos_) {
    ++at_stamp_;
  } else {
    nanos_ = unix_nanos;
    at_stamp_ = 1;
  }
  if (!resume_) return true;
  if (nanos_ != resume_->unix_nanos) return nanos_ > resume_->unix_nanos;
  return at_stamp_ > resume_->at_stamp;
}

LogPosition LogPositionTracker::position() const {
  if (at_stamp_ == 0 && resume_) return *resume_;
  return LogPosition{pod_uid_, nanos_, at_stamp_};
}

}  // namespace kje::spark
