#include "k8s/label_selector.h"

#include <catch2/catch.hpp>

#include "base/quote.h"

namespace kje::k8s {
namespace {

bool Match(std::string_view selector, const Labels& labels) {
  auto parsed = LabelSelector::Parse(selector);
  REQUIRE(parsed.ok());
  return parsed->Matches(labels);
}

TEST_CASE("an empty selector selects everything", "[label_selector]") {
  CHECK(Match("", {}));
  CHECK(Match("  ", {{"a", "b"}}));
}

TEST_CASE("equality and inequality", "[label_selector]") {
  Labels labels = {{"app.kubernetes.io/managed-by", "gravitino"}, {"team", "data"}};
  CHECK(Match("team=data", labels));
  CHECK(Match("team==data", labels));
  CHECK_FALSE(Match("team=ml", labels));
  CHECK(Match("team!=ml", labels));
  CHECK_FALSE(Match("team!=data", labels));
  // A missing label satisfies != as the API server's does.
  CHECK(Match("tier!=gold", labels));
  CHECK(Match("app.kubernetes.io/managed-by=gravitino, team = data", labels));
  CHECK_FALSE(Match("app.kubernetes.io/managed-by=gravitino,team=ml", labels));
  CHECK(Match("empty=", {{"empty", ""}}));
  CHECK_FALSE(Match("empty=", {{"empty", "x"}}));
}

TEST_CASE("set-based requirements and existence", "[label_selector]") {
  Labels labels = {{"team", "data"}, {"tmp", "1"}};
  CHECK(Match("team in (ml, data)", labels));
  CHECK_FALSE(Match("team in (ml,ops)", labels));
  CHECK(Match("team notin (ml,ops)", labels));
  CHECK_FALSE(Match("team notin (data)", labels));
  CHECK(Match("zone notin (a)", labels));
  CHECK_FALSE(Match("zone in (a)", labels));
  CHECK(Match("tmp", labels));
  CHECK_FALSE(Match("!tmp", labels));
  CHECK(Match("!zone", labels));
  CHECK_FALSE(Match("zone", labels));
  // "in" only as a keyword: a key may start with it.
  CHECK(Match("inside", {{"inside", "x"}}));
  CHECK(Match("index=3,team in (data)", {{"index", "3"}, {"team", "data"}}));
}

TEST_CASE("bad selectors are rejected with where and why", "[label_selector]") {
  for (const char* bad : {"=x", "a=b,", ",a", "a b", "team in ml", "team in (ml", "-bad=x", "a=-x-",
                          "UPPER/key=x", "a=b=c", "!", "a!b"}) {
    CAPTURE(bad);
    auto parsed = LabelSelector::Parse(bad);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(parsed.status().message()).find("label selector") != std::string::npos);
  }
  auto parsed = LabelSelector::Parse("team=data,x=!!");
  REQUIRE_FALSE(parsed.ok());
  CHECK(std::string(parsed.status().message()).find("offset 12") != std::string::npos);
}

TEST_CASE("an over-long or control-byte selector is quoted bounded", "[label_selector]") {
  auto bad_key = LabelSelector::Parse("\x01" + std::string(8999, 'a'));
  REQUIRE_FALSE(bad_key.ok());
  std::string message(bad_key.status().message());
  INFO(message.substr(0, 200));
  CHECK(message.size() < 1024);
  CHECK(message.find("label selector \"\\x01aaa") != std::string::npos);
  CHECK(message.find("(9000 bytes): expected a label key at offset 0") != std::string::npos);
  CHECK_FALSE(HasControlByte(message));

  auto bad_value = LabelSelector::Parse("a=" + std::string(8998, 'b'));
  REQUIRE_FALSE(bad_value.ok());
  message = std::string(bad_value.status().message());
  CHECK(message.size() < 1024);
  CHECK(message.find("(9000 bytes): invalid label value \"bbb") != std::string::npos);
  CHECK(message.find("(8998 bytes) at offset 2") != std::string::npos);
}

}  // namespace
}  // namespace kje::k8s
