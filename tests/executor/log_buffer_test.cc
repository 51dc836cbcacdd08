#include "executor/log_buffer.h"

#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"

namespace kje::executor {
namespace {

using Lines = std::vector<std::string>;

TEST_CASE("log buffer: lines cut across chunks come out whole and in order", "[executor]") {
  LogBuffer buffer(1024);
  buffer.Chunk("one\ntw");
  buffer.Chunk("o\r\nthree\nfo");
  LogBuffer::Taken taken = buffer.Take();
  CHECK(taken.batch.lines == Lines{"one", "two", "three"});
  CHECK(taken.batch.dropped_lines == 0);
  CHECK(taken.received);
  CHECK_FALSE(taken.ended);
  buffer.End(absl::OkStatus());  // a clean end delivers the unterminated last line
  taken = buffer.Take();
  CHECK(taken.batch.lines == Lines{"fo"});
  CHECK(taken.ended);
  CHECK(taken.end.ok());
}

TEST_CASE("log buffer: an end with an error keeps its status and drops the partial line",
          "[executor]") {
  LogBuffer buffer(1024);
  buffer.Chunk("whole\npartial");
  buffer.End(absl::UnavailableError("connection reset"));
  LogBuffer::Taken taken = buffer.Take();
  CHECK(taken.batch.lines == Lines{"whole"});
  CHECK(taken.ended);
  CHECK(taken.end.code() == absl::StatusCode::kUnavailable);
}

TEST_CASE("log buffer: an end before any byte says nothing was received", "[executor]") {
  LogBuffer buffer(1024);
  buffer.End(absl::FailedPreconditionError("container not started"));
  LogBuffer::Taken taken = buffer.Take();
  CHECK(taken.ended);
  CHECK_FALSE(taken.received);
  CHECK(taken.end.code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("log buffer: lines beyond the byte bound are counted, not kept", "[executor]") {
  LogBuffer buffer(10);
  buffer.Chunk("aaaa\nbbbb\nccc\ndd\n");  // 4 + 4 fit, 3 does not, 2 does (10 bytes)
  LogBuffer::Taken taken = buffer.Take();
  CHECK(taken.batch.lines == Lines{"aaaa", "bbbb", "dd"});
  CHECK(taken.batch.dropped_lines == 1);
  // Taken lines free their bytes; the count was reported once.
  buffer.Chunk("eeeeeeeeee\nf\n");
  taken = buffer.Take();
  CHECK(taken.batch.lines == Lines{"eeeeeeeeee"});
  CHECK(taken.batch.dropped_lines == 1);
  taken = buffer.Take();
  CHECK(taken.batch.lines.empty());
  CHECK(taken.batch.dropped_lines == 0);
}

TEST_CASE("log buffer: batches are bounded, and the end comes after the last line", "[executor]") {
  LogBuffer buffer(1 << 20);
  std::string log;
  for (size_t i = 0; i < LogBuffer::kMaxBatchLines + 5; ++i) log += std::to_string(i) + "\n";
  buffer.Chunk(log);
  buffer.End(absl::OkStatus());
  LogBuffer::Taken first = buffer.Take();
  CHECK(first.batch.lines.size() == LogBuffer::kMaxBatchLines);
  CHECK(first.batch.lines.front() == "0");
  CHECK_FALSE(first.ended);
  LogBuffer::Taken second = buffer.Take();
  CHECK(second.batch.lines.size() == 5);
  CHECK(second.batch.lines.back() == std::to_string(LogBuffer::kMaxBatchLines + 4));
  CHECK(second.ended);
}

TEST_CASE("log buffer: the reader is woken by a line, by a dropped line and by the end",
          "[executor]") {
  LogBuffer buffer(4);
  int woken = 0;
  buffer.OnReady([&woken] { ++woken; });
  buffer.Chunk("par");  // no whole line yet: nothing to take
  CHECK(woken == 0);
  buffer.Chunk("tial\n");  // "partial" is longer than the bound: dropped, and that is news
  CHECK(woken == 1);
  CHECK(buffer.Take().batch.dropped_lines == 1);
  buffer.OnReady([&woken] { ++woken; });
  buffer.Chunk("ab\n");
  CHECK(woken == 2);
  buffer.Take();
  absl::Notification ended;
  buffer.OnReady([&ended] { ended.Notify(); });
  std::thread reader_end([&buffer] { buffer.End(absl::OkStatus()); });
  CHECK(ended.WaitForNotificationWithTimeout(absl::Seconds(20)));
  reader_end.join();
  CHECK(buffer.Take().ended);
}

}  // namespace
}  // namespace kje::executor
