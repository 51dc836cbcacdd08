#include "executor/list_request.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "base/quote.h"
#include "base/strings.h"

namespace kje::executor {
namespace {

std::string ErrorOf(const absl::StatusOr<ListRequest>& r) {
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(ToStd(r.status().message()));
}

TEST_CASE("A list request takes the defaults for what it leaves out") {
  absl::StatusOr<ListRequest> r = ParseListRequest("", "jobs", "", 0, "");
  REQUIRE(r.ok());
  CHECK(r->namespace_ == "jobs");
  CHECK(r->selector.empty());
  CHECK(r->page_size == kDefaultPageSize);
  CHECK(r->page_token.kind == PageToken::Kind::kFirst);

  r = ParseListRequest("team-a", "jobs", "app in (x,y),!debug", 1000, "m:gravitino-job-j1");
  REQUIRE(r.ok());
  CHECK(r->namespace_ == "team-a");
  CHECK(r->selector.requirements().size() == 2);
  CHECK(r->page_size == 1000);
  CHECK(r->page_token.kind == PageToken::Kind::kMemory);
  CHECK(r->page_token.value == "gravitino-job-j1");
}

TEST_CASE("Page tokens round trip and name where the next page comes from") {
  for (const PageToken& t :
       {PageToken{}, PageToken::AfterName("a.b-c"), PageToken::Continue("eyJ2IjoibWV0YSJ9Cg==")}) {
    absl::StatusOr<PageToken> again = ParsePageToken(t.Encode());
    REQUIRE(again.ok());
    CHECK(again->kind == t.kind);
    CHECK(again->value == t.value);
  }
  CHECK(PageToken::AfterName("x").Encode() == "m:x");
  CHECK(PageToken::Continue("abc").Encode() == "k:abc");
}

TEST_CASE("A token this service could not have handed out is refused, quoted bounded") {
  for (const std::string& bad :
       std::vector<std::string>{"x", "m:", "m:Upper", "m:a/b", "k:", "k:a b", "k:{}", "m:a\nb",
                                std::string("m:") + std::string(300, 'a')}) {
    CAPTURE(bad);
    absl::StatusOr<PageToken> t = ParsePageToken(bad);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_FALSE(HasControlByte(ToStd(t.status().message())));
  }
  std::string huge = "k:" + std::string(kMaxPageTokenBytes, 'A');
  absl::StatusOr<PageToken> t = ParsePageToken(huge);
  REQUIRE_FALSE(t.ok());
  CHECK(std::string(ToStd(t.status().message())).find("2050 bytes, at most 2048") !=
        std::string::npos);
}

TEST_CASE("Every field of a list request is checked, each error naming its field") {
  const std::string huge = std::string(9000, 'a') + "\x1b";
  CHECK(ErrorOf(ParseListRequest("Bad_NS", "jobs", "", 0, "")).find("not a valid namespace") !=
        std::string::npos);
  CHECK(ErrorOf(ParseListRequest(huge, "jobs", "", 0, "")).find("(9001 bytes)") !=
        std::string::npos);
  CHECK(ErrorOf(ParseListRequest("", "jobs", std::string(kMaxLabelSelectorBytes + 1, 'a'), 0, ""))
            .find("label_selector is 4097 bytes, at most 4096") != std::string::npos);
  CHECK(ErrorOf(ParseListRequest("", "jobs", "=x", 0, "")).find("label selector") !=
        std::string::npos);
  CHECK(ErrorOf(ParseListRequest("", "jobs", "", -1, "")).find("page_size") != std::string::npos);
  CHECK(ErrorOf(ParseListRequest("", "jobs", "", kMaxPageSize + 1, "")).find("got 1001") !=
        std::string::npos);
  CHECK(ErrorOf(ParseListRequest("", "jobs", "", 0, huge)).find("page_token") != std::string::npos);
  for (const auto& message :
       {ErrorOf(ParseListRequest(huge, "jobs", "", 0, "")),
        ErrorOf(ParseListRequest("", "jobs", huge.substr(0, 4000), 0, "")),
        ErrorOf(ParseListRequest("", "jobs", "", 0, "m:" + huge.substr(0, 2000)))}) {
    CHECK(message.size() <= kMaxMessageBytes);
    CHECK_FALSE(HasControlByte(message));
  }
}

}  // namespace
}  // namespace kje::executor
