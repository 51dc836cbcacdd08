#pragma once

// Where a followed driver log stands, so that a follow cut anywhere (a replica's restart, a
// caller's reconnect) continues on any replica with no line lost or repeated. Kubernetes has no
// log offsets, but it stamps every line with the time it was written (`timestamps=true`) and
// reads from a time (`sinceTime`, inclusive): a position is the stamp of the last line delivered
// plus how many lines carrying that very stamp had been read, since several lines can share one.
// The kept tail (spark/kept_output.h) stores the stamps too, so a position holds across the
// switch from the live pod to the kept output. Pure: no I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kje::spark {

struct LogPosition {
  std::string pod_uid;     // the driver pod whose log this is
  int64_t unix_nanos = 0;  // the stamp of the last line delivered
  int64_t at_stamp = 0;    // lines with that stamp read up to and including it (>= 1)
};

// The opaque cursor of OutputChunk.cursor, and back. Decoding refuses anything this codec didn't
// make (INVALID_ARGUMENT, naming no part of the input).
std::string EncodeCursor(const LogPosition& position);
absl::StatusOr<LogPosition> DecodeCursor(std::string_view cursor);

// A line of a log read with timestamps: its stamp and the text after it. nullopt when the line
// doesn't start with an RFC 3339 stamp and a space (a piece of a long line cut by the reader).
struct StampedLine {
  int64_t unix_nanos = 0;
  std::string_view text;
};
std::optional<StampedLine> SplitStamp(std::string_view line);
// The stamp as Kubernetes writes it (RFC 3339, nanoseconds, trailing zeros dropped).
std::string FormatStamp(int64_t unix_nanos);

// The sinceTime a resumed read asks for: the position's second, rounded down, so that an API
// server that keeps only whole seconds of it still returns every line from the position on.
std::string ResumeSinceTime(const LogPosition& position);

// Follows the position as stamped lines go by, and says which ones a resumed follow delivers:
// those after `resume_after` (every one without it). Lines must come in log order, from at or
// before the resume point's stamp (ResumeSinceTime), so that the lines sharing that stamp are
// all counted.
class LogPositionTracker {
 public:
  LogPositionTracker(std::string pod_uid, std::optional<LogPosition> resume_after);

  // One stamped line read: whether it is to be delivered. Either way the position moves on.
  bool Accept(int64_t unix_nanos);
  // Whether anything has been read yet.
  bool started() const { return at_stamp_ > 0; }
  // The position after the last line read (the resume point itself before any).
  LogPosition position() const;

 private:
  std::string pod_uid_;
  std::optional<LogPosition> resume_;
  int64_t nanos_ = 0;
  int64_t at_stamp_ = 0;
};

}  // namespace kje::spark
