#include "base/quote.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"

namespace kje {
namespace {

TEST_CASE("A short text is quoted whole") {
  CHECK(QuoteBounded("spark-jobs") == "\"spark-jobs\"");
  CHECK(QuoteBounded("") == "\"\"");
  CHECK(QuoteBounded("caf\xC3\xA9") == "\"caf\xC3\xA9\"");
}

TEST_CASE("A long text is cut to the cap with its full length named") {
  std::string id(9000, 'a');
  std::string quoted = QuoteBounded(id);
  CHECK(quoted == "\"" + std::string(kMaxQuotedBytes, 'a') + "\"... (9000 bytes)");
  CHECK(QuoteBounded("abcdef", 3) == "\"abc\"... (6 bytes)");
  CHECK(QuoteBounded("abc", 3) == "\"abc\"");
}

TEST_CASE("Control, quote, backslash and non-UTF-8 bytes are escaped") {
  CHECK(QuoteBounded("a\nb\"c\\d") == "\"a\\x0Ab\\\"c\\\\d\"");
  CHECK(QuoteBounded(std::string("\0\x7F", 2)) == "\"\\x00\\x7F\"");
  CHECK(QuoteBounded("\xFF\xC3") == "\"\\xFF\\xC3\"");  // invalid, and a truncated sequence
  CHECK(QuoteBounded("\xED\xA0\x80") == "\"\\xED\\xA0\\x80\"");  // a surrogate
  CHECK(QuoteBounded("\xC0\xAF") == "\"\\xC0\\xAF\"");           // an overlong '/'
}

TEST_CASE("A character that would pass the cap is left out whole") {
  // 2 bytes fit, the third character needs bytes 3 and 4.
  CHECK(QuoteBounded("ab\xC3\xA9", 3) == "\"ab\"... (4 bytes)");
}

TEST_CASE("The quote stays under its stated bound whatever the bytes") {
  std::string worst;
  for (int i = 0; i < 1000; ++i) worst += static_cast<char>(i % 32);
  std::string quoted = QuoteBounded(worst);
  // Escapes count against the budget: 32 escaped bytes fill 128 bytes of quote.
  CHECK(quoted == "\"" + QuoteBounded(worst.substr(0, 32)).substr(1, 128) + "\"... (1000 bytes)");
  CHECK(quoted.size() <= kMaxQuotedBytes + 32);
  CHECK(quoted.find('\n') == std::string::npos);
}

TEST_CASE("An escape that would pass the cap is left out whole") {
  CHECK(QuoteBounded("ab\x01", 5) == "\"ab\"... (3 bytes)");
  CHECK(QuoteBounded("ab\x01", 6) == "\"ab\\x01\"");
  CHECK(QuoteBounded("a\"b", 2) == "\"a\"... (3 bytes)");
}

TEST_CASE("A library's message is escaped and bounded without quotes") {
  CHECK(EscapeBounded("error at line 8, column 7: unknown escape character: \x03") ==
        "error at line 8, column 7: unknown escape character: \\x03");
  std::string long_message(1000, 'y');
  CHECK(EscapeBounded(long_message) ==
        std::string(kMaxForeignMessageBytes, 'y') + "... (1000 bytes)");
  CHECK_FALSE(HasControlByte(EscapeBounded(std::string(300, '\n'))));
}

TEST_CASE("A message that fits is kept as it is") {
  CHECK(BoundMessage("job not found") == "job not found");
  std::string exact(kMaxMessageBytes, 'm');
  CHECK(BoundMessage(exact) == exact);
}

TEST_CASE("A message over the cap is cut within it, at a character, with its length named") {
  std::string message(5000, 'm');
  std::string bounded = BoundMessage(message);
  CHECK(bounded.size() <= kMaxMessageBytes);
  CHECK(absl::EndsWith(bounded, "... (5000 bytes)"));
  CHECK(absl::StartsWith(bounded, std::string(900, 'm')));
  // "aé" + 18 more bytes: with room for 2 before the note, the 2-byte é is left out whole.
  std::string accented = "a\xC3\xA9" + std::string(18, 'z');
  std::string note = "... (21 bytes)";
  CHECK(BoundMessage(accented, note.size() + 2) == "a" + note);
  CHECK(BoundMessage(accented, note.size() + 3) == "a\xC3\xA9" + note);
  // A cap smaller than the note still answers the note alone.
  CHECK(BoundMessage(accented, 4) == note);
}

TEST_CASE("A plain name stays as written in a path; any other is quoted") {
  CHECK(NameInPath("spark.executor.instances") == "spark.executor.instances");
  CHECK(NameInPath(std::string(64, 'k')) == std::string(64, 'k'));
  CHECK(NameInPath(std::string(65, 'k')) == QuoteBounded(std::string(65, 'k')));
  CHECK(NameInPath("") == "\"\"");
  CHECK(NameInPath("two words") == "\"two words\"");
  CHECK(NameInPath("a\x08"
                   "b") == "\"a\\x08b\"");
  CHECK(NameInPath("a\"b") == "\"a\\\"b\"");
  CHECK_FALSE(HasControlByte(NameInPath("job\xee\xff\x08D")));
}

}  // namespace
}  // namespace kje
