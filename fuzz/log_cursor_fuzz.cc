// FollowOutput's resume cursor comes back from callers, and the stamps it holds come from the
// kubelet's timestamped log lines. Input: a cursor, a `%%` line, a log line, a `%%` line, then a
// run of stamps (each byte a step forward in time: 0 repeats the stamp, else that many ms).
// Invariants: a cursor decodes to a position that encodes back to itself; a refusal names no
// part of the input; a stamp splits back to what it was formatted from; and a follow resumed
// from the position after any line, fed the log from the second the cursor resumes at (as the
// API server's sinceTime answers it), delivers exactly the lines after that one: none lost, none
// repeated.

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "spark/log_cursor.h"

namespace {

using kje::spark::LogPosition;
using kje::spark::LogPositionTracker;

bool SamePosition(const LogPosition& a, const LogPosition& b) {
  return a.pod_uid == b.pod_uid && a.unix_nanos == b.unix_nanos && a.at_stamp == b.at_stamp;
}

void CheckCursor(std::string_view cursor) {
  auto decoded = kje::spark::DecodeCursor(cursor);
  if (!decoded.ok()) {
    FUZZ_CHECK(decoded.status().code() == absl::StatusCode::kInvalidArgument);
    // One message for every refusal: nothing of the caller's bytes is echoed.
    static const std::string kRefusal(kje::spark::DecodeCursor("?").status().message());
    FUZZ_CHECK(decoded.status().message() == kRefusal);
    return;
  }
  FUZZ_CHECK(decoded->at_stamp >= 1 && decoded->unix_nanos >= 0 && !decoded->pod_uid.empty());
  auto again = kje::spark::DecodeCursor(kje::spark::EncodeCursor(*decoded));
  FUZZ_CHECK(again.ok() && SamePosition(*again, *decoded));
}

void CheckStamp(std::string_view line) {
  auto split = kje::spark::SplitStamp(line);
  if (!split) return;
  FUZZ_CHECK(split->text.data() + split->text.size() == line.data() + line.size());
  // absl saturates nanoseconds past 2262; the kubelet writes no such stamp.
  constexpr int64_t kNanosPerSecond = 1000000000;
  if (split->unix_nanos <= 0 || split->unix_nanos >= INT64_MAX - kNanosPerSecond) return;
  std::string formatted = kje::spark::FormatStamp(split->unix_nanos) + " x";
  auto back = kje::spark::SplitStamp(formatted);
  FUZZ_CHECK(back && back->unix_nanos == split->unix_nanos && back->text == "x");
}

// The lines of a log as stamps, oldest first, starting in 2026 on the fuzzer's offset.
std::vector<int64_t> Stamps(std::string_view steps) {
  std::vector<int64_t> stamps;
  int64_t now = int64_t{1796000000} * 1000000000;
  for (size_t i = 0; i < steps.size() && i < 512; ++i) {
    now += int64_t{static_cast<unsigned char>(steps[i])} * 1000000;
    stamps.push_back(now);
  }
  return stamps;
}

void CheckResume(const std::vector<int64_t>& stamps) {
  LogPositionTracker first("pod-a", std::nullopt);
  std::vector<LogPosition> after;  // the position after each line
  for (int64_t stamp : stamps) {
    FUZZ_CHECK(first.Accept(stamp));
    after.push_back(first.position());
  }
  for (size_t k = 0; k < after.size(); ++k) {
    // The cursor crosses the wire and comes back.
    auto resume = kje::spark::DecodeCursor(kje::spark::EncodeCursor(after[k]));
    FUZZ_CHECK(resume.ok());
    const int64_t since = resume->unix_nanos / 1000000000 * 1000000000;
    LogPositionTracker resumed("pod-a", *resume);
    std::vector<size_t> delivered;
    for (size_t i = 0; i < stamps.size(); ++i) {
      if (stamps[i] < since) continue;  // before sinceTime: the API server leaves it out
      if (resumed.Accept(stamps[i])) delivered.push_back(i);
    }
    FUZZ_CHECK(delivered.size() == stamps.size() - k - 1);
    for (size_t j = 0; j < delivered.size(); ++j) FUZZ_CHECK(delivered[j] == k + 1 + j);
    // Another pod's cursor says nothing of this log: all of it is delivered.
    LogPositionTracker other("pod-b", *resume);
    for (int64_t stamp : stamps) FUZZ_CHECK(other.Accept(stamp));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string_view> parts = kje::fuzz::SplitParts(kje::fuzz::AsText(data, size));
  CheckCursor(parts[0]);
  if (parts.size() > 1) CheckStamp(parts[1]);
  if (parts.size() > 2) CheckResume(Stamps(parts[2]));
  return 0;
}
