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

TEST_CASE("A listing of several namespaces goes through them in order, each to its end") {
  const std::vector<std::string> namespaces = {"jobs", "team-b", "team-c"};
  absl::StatusOr<NamespacesCursor> first = ParseNamespacesToken("", namespaces);
  REQUIRE(first.ok());
  CHECK(first->namespace_ == "jobs");
  CHECK(first->token.kind == PageToken::Kind::kFirst);

  // On in the same namespace while it has pages, by name or by the API server's token.
  std::string next = NextNamespacesToken("jobs", PageToken::AfterName("a-1").Encode(), namespaces);
  absl::StatusOr<NamespacesCursor> cursor = ParseNamespacesToken(next, namespaces);
  REQUIRE(cursor.ok());
  CHECK(cursor->namespace_ == "jobs");
  CHECK(cursor->token.kind == PageToken::Kind::kMemory);
  CHECK(cursor->token.value == "a-1");
  next = NextNamespacesToken("team-b", PageToken::Continue("Y29udA==").Encode(), namespaces);
  cursor = ParseNamespacesToken(next, namespaces);
  REQUIRE(cursor.ok());
  CHECK(cursor->namespace_ == "team-b");
  CHECK(cursor->token.kind == PageToken::Kind::kApi);
  CHECK(cursor->token.value == "Y29udA==");

  // Then the next namespace's first page, and after the last one, the end.
  next = NextNamespacesToken("jobs", "", namespaces);
  cursor = ParseNamespacesToken(next, namespaces);
  REQUIRE(cursor.ok());
  CHECK(cursor->namespace_ == "team-b");
  CHECK(cursor->token.kind == PageToken::Kind::kFirst);
  CHECK(NextNamespacesToken("team-c", "", namespaces).empty());
}

TEST_CASE("A token of a several-namespace listing is refused unless this listing could make it") {
  const std::vector<std::string> namespaces = {"jobs", "team-b"};
  for (std::string token :
       {std::string("m:a-1"), std::string("k:Y29udA=="), std::string("a:jobs"),
        std::string("a:team-z/"), std::string("a:jobs/m:Not_A_Name"), std::string("a:jobs/a:jobs/"),
        std::string("a:/"), "a:jobs/k:" + std::string(3000, 'x'), std::string("a:jobs\n/")}) {
    INFO(token);
    absl::StatusOr<NamespacesCursor> cursor = ParseNamespacesToken(token, namespaces);
    REQUIRE_FALSE(cursor.ok());
    CHECK(cursor.status().code() == absl::StatusCode::kInvalidArgument);
    const std::string message(ToStd(cursor.status().message()));
    CHECK(message.find("listing of all namespaces") != std::string::npos);
    CHECK(message.size() < 512);
  }
}

}  // namespace
}  // namespace kje::executor
