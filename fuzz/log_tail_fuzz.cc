// A driver log is whatever the job prints: any bytes, in chunks cut anywhere by the network.
// Input: four bytes of limits (max lines, max bytes, max line bytes, chunk size), then the log.

#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "spark/log_tail.h"

using kje::spark::LogLines;
using kje::spark::LogTail;
using kje::spark::LogTailResult;

namespace {

void CheckLine(const std::string& line) {
  FUZZ_CHECK(line.find('\n') == std::string::npos);
  FUZZ_CHECK(kje::fuzz::IsValidUtf8(line));
}

LogTailResult Tail(std::string_view log, size_t step, int64_t max_lines, int64_t max_bytes) {
  absl::StatusOr<LogTail> tail = LogTail::Create(max_lines, max_bytes);
  FUZZ_CHECK(tail.ok());
  for (size_t i = 0; i < log.size(); i += step) {
    tail->Feed(log.substr(i, step));
    FUZZ_CHECK(tail->retained_bytes() <= static_cast<size_t>(max_bytes) + 1);
  }
  FUZZ_CHECK(tail->bytes_seen() == log.size());
  return tail->Finish();
}

std::vector<std::string> Lines(std::string_view log, size_t step, size_t max_line_bytes) {
  LogLines splitter(max_line_bytes);
  std::vector<std::string> lines;
  for (size_t i = 0; i < log.size(); i += step) {
    for (std::string& line : splitter.Feed(log.substr(i, step))) lines.push_back(std::move(line));
  }
  for (std::string& line : splitter.Flush()) lines.push_back(std::move(line));
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  int64_t max_lines = 1 + data[0] % 16;
  int64_t max_bytes = 1 + data[1];
  size_t max_line_bytes = 1 + data[2] % 64;
  size_t step = 1 + data[3];
  std::string_view log = kje::fuzz::AsText(data + 4, size - 4);

  LogTailResult chunked = Tail(log, step, max_lines, max_bytes);
  FUZZ_CHECK(chunked.lines.size() <= static_cast<size_t>(max_lines));
  for (const std::string& line : chunked.lines) CheckLine(line);
  if (log.size() > static_cast<size_t>(max_bytes)) FUZZ_CHECK(chunked.truncated);
  // How the log was cut into chunks doesn't change its tail.
  LogTailResult whole = Tail(log, log.size() + 1, max_lines, max_bytes);
  FUZZ_CHECK(whole.lines == chunked.lines);
  FUZZ_CHECK(whole.truncated == chunked.truncated);

  std::vector<std::string> lines = Lines(log, step, max_line_bytes);
  for (const std::string& line : lines) CheckLine(line);
  // Nor the lines of a followed log.
  FUZZ_CHECK(Lines(log, log.size() + 1, max_line_bytes) == lines);
  FUZZ_CHECK(!LogTail::Create(0, 1).ok() && !LogTail::Create(1, 0).ok());
  return 0;
}
