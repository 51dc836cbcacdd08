// ListJobs' fields come from any caller: a namespace, a label selector, a page size and a page
// token, checked before any lookup. The input is the four, separated by "%%" lines (the page
// size as decimal text); missing parts are empty.

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/strings.h"
#include "executor/list_request.h"
#include "fuzz/fuzz_check.h"

using kje::executor::ListRequest;
using kje::executor::PageToken;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string_view> parts = kje::fuzz::SplitParts(kje::fuzz::AsText(data, size));
  parts.resize(4);
  int64_t page_size = 0;
  if (!absl::SimpleAtoi(kje::ToAbsl(parts[2]), &page_size)) page_size = 0;
  absl::StatusOr<ListRequest> request =
      kje::executor::ParseListRequest(parts[0], "default", parts[1], page_size, parts[3]);
  if (!request.ok()) {
    // The caller's mistake, named in a message that fits an answer, whatever was sent.
    FUZZ_CHECK(absl::IsInvalidArgument(request.status()));
    FUZZ_CHECK(!request.status().message().empty());
    FUZZ_CHECK_ANSWERABLE(kje::ToStd(request.status().message()));
    return 0;
  }
  // What is let through is what Kubernetes can hold: a namespace, a page of bounded size, and a
  // token that says exactly what was sent.
  FUZZ_CHECK(kje::IsDns1123Label(request->namespace_));
  FUZZ_CHECK(parts[0].empty() ? request->namespace_ == "default" : request->namespace_ == parts[0]);
  FUZZ_CHECK(request->page_size >= 1 && request->page_size <= kje::executor::kMaxPageSize);
  FUZZ_CHECK(parts[1].size() <= kje::executor::kMaxLabelSelectorBytes);
  FUZZ_CHECK(request->page_token.Encode() == parts[3]);
  switch (request->page_token.kind) {
    case PageToken::Kind::kFirst:
      FUZZ_CHECK(parts[3].empty());
      break;
    case PageToken::Kind::kMemory:
      // The memory kind continues after a name: one Kubernetes can hold.
      FUZZ_CHECK(kje::IsDns1123Subdomain(request->page_token.value));
      break;
    case PageToken::Kind::kApi:
      FUZZ_CHECK(!request->page_token.value.empty());
      FUZZ_CHECK(parts[3].size() <= kje::executor::kMaxPageTokenBytes);
      for (char c : request->page_token.value) {
        // Sent on as a query parameter: nothing that would need escaping in a URL.
        FUZZ_CHECK(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                   c == '=');
      }
      break;
  }
  // The token parses alone as it did inside the request.
  absl::StatusOr<PageToken> again = kje::executor::ParsePageToken(parts[3]);
  FUZZ_CHECK(again.ok() && again->kind == request->page_token.kind &&
             again->value == request->page_token.value);
  return 0;
}
