#include "spark/log_tail.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

namespace kje::spark {
namespace {

using Lines = std::vector<std::string>;

LogTailResult Tail(std::string_view log, int64_t max_lines, int64_t max_bytes,
                   size_t chunk_size = 0) {
  absl::StatusOr<LogTail> tail = LogTail::Create(max_lines, max_bytes);
  REQUIRE(tail.ok());
  if (chunk_size == 0) {
    tail->Feed(log);
  } else {
    for (size_t i = 0; i < log.size(); i += chunk_size) tail->Feed(log.substr(i, chunk_size));
  }
  CHECK(tail->retained_bytes() <= static_cast<size_t>(max_bytes) + 1);
  CHECK(tail->bytes_seen() == log.size());
  return tail->Finish();
}

TEST_CASE("Limits must be positive") {
  CHECK(LogTail::Create(0, 10).status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(LogTail::Create(10, 0).status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(LogTail::Create(-1, 10).status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(LogTail::Create(10, -5).status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(LogTail::Create(1, 1).ok());
}

TEST_CASE("A small log comes back whole") {
  LogTailResult r = Tail("one\ntwo\nthree\n", 10, 1000);
  CHECK(r.lines == Lines{"one", "two", "three"});
  CHECK_FALSE(r.truncated);
  CHECK(Tail("one\ntwo", 10, 1000).lines == Lines{"one", "two"});
}

TEST_CASE("An empty log has no lines") {
  LogTailResult r = Tail("", 10, 1000);
  CHECK(r.lines.empty());
  CHECK_FALSE(r.truncated);
}

TEST_CASE("Only one trailing empty element is dropped") {
  CHECK(Tail("a\n\n", 10, 100).lines == Lines{"a", ""});
  CHECK(Tail("\n", 10, 100).lines == Lines{""});
  CHECK(Tail("\n\n", 10, 100).lines == Lines{"", ""});
  CHECK(Tail("a\n\nb", 10, 100).lines == Lines{"a", "", "b"});
}

TEST_CASE("CRLF and LF both end lines: a lone CR is content") {
  CHECK(Tail("a\r\nb\r\n", 10, 100).lines == Lines{"a", "b"});
  CHECK(Tail("a\r\nb\nc", 10, 100).lines == Lines{"a", "b", "c"});
  CHECK(Tail("a\rb\n", 10, 100).lines == Lines{"a\rb"});
  CHECK(Tail("a\r", 10, 100).lines == Lines{"a\r"});
  CHECK(Tail("a\r\r\n", 10, 100).lines == Lines{"a\r"});
}

TEST_CASE("The last max_lines lines are kept") {
  LogTailResult r = Tail("1\n2\n3\n4\n5\n", 2, 1000);
  CHECK(r.lines == Lines{"4", "5"});
  CHECK(r.truncated);
  r = Tail("1\n2\n3\n", 3, 1000);
  CHECK(r.lines == Lines{"1", "2", "3"});
  CHECK_FALSE(r.truncated);
}

TEST_CASE("A window starting mid-line drops the partial first line") {
  // The last 9 bytes are "e2\nline3\n": 'e' only tells that "2" is a partial line.
  LogTailResult r = Tail("line1\nline2\nline3\n", 10, 8);
  CHECK(r.lines == Lines{"line3"});
  CHECK(r.truncated);
}

TEST_CASE("A window starting at a line keeps that line") {
  // The byte before the last 6 is the newline ending "line1".
  LogTailResult r = Tail("line1\nline2\n", 10, 6);
  CHECK(r.lines == Lines{"line2"});
  CHECK(r.truncated);
}

TEST_CASE("The only line - cut at the front - keeps its tail") {
  CHECK(Tail("abcdefghij", 10, 4).lines == Lines{"ghij"});
  CHECK(Tail("abcdefghij\n", 10, 4).lines == Lines{"hij"});
  CHECK(Tail("abcdefghij\r\n", 10, 5).lines == Lines{"hij"});
}

TEST_CASE("A window holding only the newline of a line is empty") {
  LogTailResult r = Tail("abc\n", 10, 1);
  CHECK(r.lines.empty());
  CHECK(r.truncated);
  CHECK(Tail("abc\r\n", 10, 2).lines.empty());
}

TEST_CASE("A CRLF split by the window start") {
  // Window "\r\nyy\r\n": the lookbehind '\r' is a partial line's end, "\n" ends it.
  CHECK(Tail("xx\r\nyy\r\n", 10, 5).lines == Lines{"yy"});
}

TEST_CASE("The cut never starts inside a UTF-8 character") {
  std::string e_acute = "\xC3\xA9";
  // The last 3 bytes are A9 C3 A9: the lone continuation byte is skipped.
  CHECK(Tail(e_acute + e_acute + e_acute, 10, 3).lines == Lines{e_acute});
  std::string euro = "\xE2\x82\xAC";  // three bytes
  CHECK(Tail(euro + euro, 10, 4).lines == Lines{euro});
  CHECK(Tail(euro + euro, 10, 5).lines == Lines{euro});
  CHECK(Tail("x" + euro, 10, 2).lines == Lines{});
}

TEST_CASE("Continuation bytes are skipped before the partial line is judged") {
  // The window "\xA9\n" is only the end of "é" and its newline.
  CHECK(Tail("ab\xC3\xA9\n", 10, 2).lines.empty());
  // The Java executor's own example: the window starts at the second byte of "é".
  CHECK(Tail("\xC3\xA9xy", 10, 3).lines == Lines{"xy"});
}

TEST_CASE("Ill-formed UTF-8 becomes U+FFFD, one per maximal subpart") {
  const std::string r = "\xEF\xBF\xBD";
  CHECK(Tail("a\xFF"
             "b\n\xC3(\n",
             10, 100)
            .lines == Lines{"a" + r + "b", r + "("});
  CHECK(Tail("ok\xE2\x82", 10, 100).lines == Lines{"ok" + r});             // truncated sequence
  CHECK(Tail("\xED\xA0\x80", 10, 100).lines == Lines{r + r + r});          // a surrogate
  CHECK(Tail("\xC0\x80", 10, 100).lines == Lines{r + r});                  // overlong
  CHECK(Tail("\xF4\x90\x80\x80", 10, 100).lines == Lines{r + r + r + r});  // beyond U+10FFFF
  CHECK(Tail("\xF0\x9F\x98\x80 \xE2\x82\xAC", 10, 100).lines ==
        Lines{"\xF0\x9F\x98\x80 \xE2\x82\xAC"});  // well-formed stays as is
}

TEST_CASE("Exact caps: a log of exactly max_bytes is whole") {
  LogTailResult r = Tail("ab\ncd\n", 10, 6);
  CHECK(r.lines == Lines{"ab", "cd"});
  CHECK_FALSE(r.truncated);
  // One byte more than the cap: the first byte becomes the lookbehind.
  r = Tail("ab\ncd\n", 10, 5);
  CHECK(r.lines == Lines{"cd"});
  CHECK(r.truncated);
  // Exactly max_lines lines.
  r = Tail("ab\ncd\n", 2, 6);
  CHECK(r.lines == Lines{"ab", "cd"});
  CHECK_FALSE(r.truncated);
  r = Tail("ab\ncd\n", 1, 6);
  CHECK(r.lines == Lines{"cd"});
  CHECK(r.truncated);
}

TEST_CASE("The result never exceeds the byte cap") {
  std::string log;
  for (int i = 0; i < 200; ++i) log += "line " + std::to_string(i) + "\n";
  for (int64_t max_bytes : {1, 2, 7, 50, 333, 5000}) {
    LogTailResult r = Tail(log, 1000, max_bytes);
    size_t bytes = 0;
    for (const std::string& line : r.lines) bytes += line.size() + 1;
    INFO(max_bytes);
    CHECK(bytes <= static_cast<size_t>(max_bytes) + 1);  // +1: a last line without newline
    if (max_bytes == 1) {                                // The window holds only the last newline.
      CHECK(r.lines.empty());
      continue;
    }
    // The last line, or its tail when the cap is smaller than the line.
    REQUIRE_FALSE(r.lines.empty());
    CHECK(std::string("line 199").ends_with(r.lines.back()));
    CHECK(r.lines.back().back() == '9');
  }
}

TEST_CASE("A huge log fed one byte at a time keeps only its tail") {
  constexpr int kLines = 300000;
  std::string log;
  log.reserve(kLines * 12);
  for (int i = 0; i < kLines; ++i) log += "line " + std::to_string(1000000 + i) + "\n";  // 13 bytes
  constexpr int64_t kMaxBytes = 100;
  LogTailResult r = Tail(log, 1000, kMaxBytes, 1);
  // 100 bytes hold the end of one line and 7 whole lines of 13 bytes.
  REQUIRE(r.lines.size() == 7);
  for (int i = 0; i < 7; ++i) {
    CHECK(r.lines[i] == "line " + std::to_string(1000000 + kLines - 7 + i));
  }
  CHECK(r.truncated);
}

TEST_CASE("Any chunking gives the same tail as one feed") {
  std::mt19937 random(20261201);
  const std::string alphabet = "ab\n\r\xC3\xA9 ";
  for (int round = 0; round < 300; ++round) {
    std::string log;
    size_t length = random() % 200;
    for (size_t i = 0; i < length; ++i) log += alphabet[random() % alphabet.size()];
    int64_t max_lines = 1 + random() % 8;
    int64_t max_bytes = 1 + random() % 60;
    LogTailResult whole = Tail(log, max_lines, max_bytes);
    size_t chunk = 1 + random() % 17;
    LogTailResult chunked = Tail(log, max_lines, max_bytes, chunk);
    INFO("round " << round << " chunk " << chunk);
    CHECK(chunked.lines == whole.lines);
    CHECK(chunked.truncated == whole.truncated);
    CHECK(static_cast<int64_t>(whole.lines.size()) <= max_lines);
  }
}

TEST_CASE("A chunk larger than the window replaces it") {
  absl::StatusOr<LogTail> tail = LogTail::Create(10, 4);
  REQUIRE(tail.ok());
  tail->Feed("ab");
  tail->Feed("cdefgh\nij\n");
  CHECK(tail->retained_bytes() == 5);
  CHECK(tail->Finish().lines == Lines{"ij"});
}

}  // namespace
}  // namespace kje::spark

namespace kje::spark {
namespace {

std::vector<std::string> FeedAll(LogLines& lines, std::vector<std::string_view> chunks) {
  std::vector<std::string> out;
  for (auto chunk : chunks) {
    for (auto& line : lines.Feed(chunk)) out.push_back(std::move(line));
  }
  for (auto& line : lines.Flush()) out.push_back(std::move(line));
  return out;
}

TEST_CASE("LogLines: chunks of any size become whole lines") {
  LogLines lines;
  CHECK(FeedAll(lines, {"a", "bc\nde", "f\r\n", "\n", "last"}) ==
        std::vector<std::string>{"abc", "def", "", "last"});
  LogLines again;
  CHECK(again.Feed("one\ntwo").size() == 1);
  CHECK(again.Flush() == std::vector<std::string>{"two"});
  CHECK(again.Flush().empty());
}

TEST_CASE("LogLines: long lines come in pieces on character boundaries, as valid UTF-8") {
  LogLines lines(8);
  // "é" is two bytes: a cut at byte 8 would split the second one.
  std::vector<std::string> out = FeedAll(lines, {"abcdef\xC3\xA9\xC3", "\xA9xyz\n"});
  CHECK(out == std::vector<std::string>{"abcdef\xC3\xA9", "\xC3\xA9xyz"});
  LogLines endless(8);
  std::vector<std::string> pieces;
  for (int i = 0; i < 5; ++i) {
    for (auto& p : endless.Feed("0123456789")) pieces.push_back(p);
  }
  CHECK(pieces.size() == 6);  // 50 bytes held as at most 8 at a time
  for (const auto& p : pieces) CHECK(p.size() == 8);
  LogLines bad;
  CHECK(FeedAll(bad, {"ok \xFF\n"}) == std::vector<std::string>{"ok \xEF\xBF\xBD"});
}

TEST_CASE("LogLines: a CRLF split after a long line's cut gives the same lines as one chunk") {
  // Found by fuzz/log_tail_fuzz: the '\r' of "\r\n" was cut off with the line's first piece
  // and came back as an extra empty line once its '\n' arrived.
  for (std::vector<std::string_view> chunks :
       {std::vector<std::string_view>{"abcd\r\nnext\n"},
        std::vector<std::string_view>{"abcd\r", "\nnext\n"},
        std::vector<std::string_view>{"ab", "cd\r", "\n", "next\n"}}) {
    LogLines lines(4);
    CHECK(FeedAll(lines, chunks) == std::vector<std::string>{"abcd", "next"});
  }
  LogLines longer(4);
  CHECK(FeedAll(longer, {"abcdefg\r", "\r", "\n"}) == std::vector<std::string>{"abcd", "efg\r"});
  LogLines cr_inside(4);
  CHECK(FeedAll(cr_inside, {"abcd\r", "x\n"}) == std::vector<std::string>{"abcd", "\rx"});
}

}  // namespace
}  // namespace kje::spark
