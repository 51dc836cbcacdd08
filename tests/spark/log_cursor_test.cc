#include "spark/log_cursor.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kje::spark {
namespace {

TEST_CASE("a cursor decodes to the position it was made from", "[log_cursor]") {
  LogPosition at{"0b6f-uid", 1796557454123456789, 3};
  auto back = DecodeCursor(EncodeCursor(at));
  REQUIRE(back.ok());
  CHECK(back->pod_uid == at.pod_uid);
  CHECK(back->unix_nanos == at.unix_nanos);
  CHECK(back->at_stamp == at.at_stamp);
  // Opaque to the caller: no separator or raw uid shows.
  CHECK(EncodeCursor(at).find('|') == std::string::npos);
}

TEST_CASE("anything but a cursor of this codec is refused", "[log_cursor]") {
  const std::vector<std::string> bad = {
      "",
      "not base64!",
      EncodeCursor({"uid", 1, 1}) + "%%",
      std::string(600, 'A'),
  };
  for (const std::string& text : bad) {
    auto decoded = DecodeCursor(text);
    REQUIRE_FALSE(decoded.ok());
    CHECK(decoded.status().code() == absl::StatusCode::kInvalidArgument);
  }
  // Well-formed base64 of the wrong content: another version, no uid, a count of 0, junk.
  for (std::string raw : {"2|uid|5|1", "1||5|1", "1|uid|5|0", "1|uid|x|1", "1|uid|5"}) {
    std::string text;
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    // Encode by hand so the test doesn't lean on the codec it checks.
    uint32_t acc = 0;
    int bits = 0;
    for (unsigned char c : raw) {
      acc = (acc << 8) | c;
      bits += 8;
      while (bits >= 6) {
        text += alphabet[(acc >> (bits - 6)) & 63];
        bits -= 6;
      }
    }
    if (bits > 0) text += alphabet[(acc << (6 - bits)) & 63];
    CHECK_FALSE(DecodeCursor(text).ok());
  }
}

TEST_CASE("a stamped line splits into its stamp and text", "[log_cursor]") {
  auto line = SplitStamp("2026-12-06T11:44:14.123456789Z hello world");
  REQUIRE(line.has_value());
  CHECK(line->text == "hello world");
  CHECK(line->unix_nanos % 1000000000 == 123456789);
  auto whole = SplitStamp("2026-12-06T11:44:14Z x");
  REQUIRE(whole.has_value());
  CHECK(whole->unix_nanos % 1000000000 == 0);
  CHECK(line->unix_nanos - whole->unix_nanos == 123456789);
  auto empty_text = SplitStamp("2026-12-06T11:44:14.5Z ");
  REQUIRE(empty_text.has_value());
  CHECK(empty_text->text.empty());
  CHECK_FALSE(SplitStamp("hello world").has_value());
  CHECK_FALSE(SplitStamp("2026-13-06T11:44:14Z bad month").has_value());
  CHECK_FALSE(SplitStamp("").has_value());
  // Round trip as Kubernetes writes it: nanoseconds, trailing zeros dropped.
  CHECK(FormatStamp(line->unix_nanos) == "2026-12-06T11:44:14.123456789Z");
  CHECK(FormatStamp(empty_text->unix_nanos) == "2026-12-06T11:44:14.5Z");
  CHECK(ResumeSinceTime({"u", line->unix_nanos, 1}) == "2026-12-06T11:44:14Z");
}

// Lines (by stamp) read from the start, cut at every point, and resumed from the cursor there
// with a reread from ResumeSinceTime's second: exactly the rest comes, whatever the equal stamps.
TEST_CASE("a resumed follow delivers exactly the lines after the cursor", "[log_cursor]") {
  const int64_t s = 1796557454000000000;
  const std::vector<int64_t> stamps = {
      s, s, s + 5, s + 5, s + 5, s + 1000000000, s + 1000000000, s + 2000000007};
  for (size_t cut = 1; cut <= stamps.size(); ++cut) {
    LogPositionTracker first("pod-a", std::nullopt);
    for (size_t i = 0; i < cut; ++i) CHECK(first.Accept(stamps[i]));
    const LogPosition at = first.position();
    auto decoded = DecodeCursor(EncodeCursor(at));
    REQUIRE(decoded.ok());
    // The reread starts at the position's whole second: every line of that second comes again.
    LogPositionTracker resumed("pod-a", *decoded);
    std::vector<size_t> delivered;
    for (size_t i = 0; i < stamps.size(); ++i) {
      if (stamps[i] / 1000000000 < at.unix_nanos / 1000000000) continue;
      if (resumed.Accept(stamps[i])) delivered.push_back(i);
    }
    std::vector<size_t> rest;
    for (size_t i = cut; i < stamps.size(); ++i) rest.push_back(i);
    CHECK(delivered == rest);
  }
}

TEST_CASE("a cursor of another pod resumes a new driver's log from its start", "[log_cursor]") {
  LogPositionTracker tracker("pod-b", LogPosition{"pod-a", 99, 1});
  CHECK(tracker.Accept(5));
  CHECK(tracker.position().pod_uid == "pod-b");
  CHECK(tracker.position().at_stamp == 1);
  // Before any line, the position is the resume point itself.
  LogPositionTracker idle("pod-a", LogPosition{"pod-a", 99, 2});
  CHECK_FALSE(idle.started());
  CHECK(idle.position().unix_nanos == 99);
  CHECK(idle.position().at_stamp == 2);
}

}  // namespace
}  // namespace kje::spark
