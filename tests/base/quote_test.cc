#include "base/quote.h"

#include <catch2/catch.hpp>
#include <string>

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
  CHECK(quoted.size() <= 4 * kMaxQuotedBytes + 32);
  CHECK(quoted.find('\n') == std::string::npos);
}

}  // namespace
}  // namespace kje
