#pragma once

// The bounded tail of a driver log, cut as the Java executor's PodLogUtils.readLastLines does:
// Kubernetes can only limit a log's bytes from its head, so the service reads the last lines and
// keeps their tail within a byte cap. Memory stays bounded by the cap whatever the log's size.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace kje::spark {

// Where a job's output is read from: nothing yet (no driver), the driver pod's log, the tail
// kept when the job ended (the pod gone), or nothing because none was kept (the note says why).
enum class OutputSource { kNone, kLive, kKept, kNotKept };

struct LogTailResult {
  std::vector<std::string> lines;
  // Something of the log was left out: bytes before the window, or lines beyond max_lines.
  bool truncated = false;
  OutputSource source = OutputSource::kNone;
};

class LogTail {
 public:
  // INVALID_ARGUMENT unless both limits are > 0.
  static absl::StatusOr<LogTail> Create(int64_t max_lines, int64_t max_bytes);

  // Chunks of any size, in order. Keeps only the last max_bytes + 1 bytes: the extra byte tells
  // whether the window starts at the beginning of a line.
  void Feed(std::string_view chunk);

  // The last max_lines lines of the last max_bytes bytes, split on "\n" or "\r\n", one trailing
  // empty element dropped. When the window starts mid-line, its partial first line is dropped
  // unless it is the only line (then its leading UTF-8 continuation bytes are skipped); a window
  // holding only the newline of a line gives nothing. Lines are valid UTF-8: an ill-formed
  // sequence becomes U+FFFD, as when Java decodes the bytes.
  LogTailResult Finish() const;

  uint64_t bytes_seen() const { return bytes_seen_; }
  // The bytes held now: never more than max_bytes + 1.
  size_t retained_bytes() const { return ring_.size(); }

 private:
  LogTail(int64_t max_lines, int64_t max_bytes);
  // The retained bytes, oldest first.
  std::string Window() const;

  size_t max_lines_;
  size_t max_bytes_;
  size_t capacity_;   // max_bytes_ + 1
  std::string ring_;  // Grows to capacity_, then wraps at head_.
  size_t head_ = 0;   // Once full: the index of the oldest byte.
  uint64_t bytes_seen_ = 0;
};

// Splits a followed log into lines as it arrives in chunks of any size: whole lines without their
// "\n" or "\r\n", as valid UTF-8 (ill-formed sequences become U+FFFD), a line longer than
// max_line_bytes cut into pieces on character boundaries. Holds at most one partial line.
class LogLines {
 public:
  static constexpr size_t kDefaultMaxLineBytes = 64 << 10;

  explicit LogLines(size_t max_line_bytes = kDefaultMaxLineBytes);

  // The lines the chunk completed.
  std::vector<std::string> Feed(std::string_view chunk);
  // The unterminated last line, if any (the log ended without a line feed).
  std::vector<std::string> Flush();

 private:
  void Emit(std::string_view line, std::vector<std::string>& out) const;

  size_t max_line_bytes_;
  std::string partial_;
};

}  // namespace kje::spark
