#include "executor/list_request.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::executor {
namespace {

constexpr std::string_view kMemoryPrefix = "m:";
constexpr std::string_view kApiPrefix = "k:";
// A listing of several namespaces: "a:<namespace>/<the page token within it>".
constexpr std::string_view kNamespacesPrefix = "a:";

// The alphabet of a continue token: URL-safe base64 with padding, as API servers write it.
bool IsBase64UrlToken(std::string_view s) {
  for (char c : s) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '=';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string PageToken::Encode() const {
  switch (kind) {
    case Kind::kFirst:
      return "";
    case Kind::kMemory:
      return absl::StrCat(ToAbsl(kMemoryPrefix), value);
    case Kind::kApi:
      return absl::StrCat(ToAbsl(kApiPrefix), value);
  }
  return "";
}

absl::StatusOr<PageToken> ParsePageToken(std::string_view text) {
  constexpr std::string_view kNotOurs = "page_token is not one this service handed out";
  if (text.empty()) return PageToken{};
  if (text.size() > kMaxPageTokenBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(kNotOurs), ": ", text.size(), " bytes, at most ", kMaxPageTokenBytes));
  }
  if (text.starts_with(kMemoryPrefix)) {
    std::string_view name = text.substr(kMemoryPrefix.size());
    if (IsDns1123Subdomain(name)) return PageToken::AfterName(std::string(name));
  } else if (text.starts_with(kApiPrefix)) {
    std::string_view token = text.substr(kApiPrefix.size());
    if (!token.empty() && IsBase64UrlToken(token)) return PageToken::Continue(std::string(token));
  }
  return absl::InvalidArgumentError(absl::StrCat(ToAbsl(kNotOurs), ": ", QuoteBounded(text)));
}

absl::StatusOr<ListRequest> ParseListRequest(std::string_view namespace_arg,
                                             std::string_view default_namespace,
                                             std::string_view label_selector, int64_t page_size,
                                             std::string_view page_token) {
  ListRequest request;
  request.namespace_ = std::string(namespace_arg.empty() ? default_namespace : namespace_arg);
  if (!IsDns1123Label(request.namespace_)) {
    return absl::InvalidArgumentError(
        absl::StrCat(QuoteBounded(request.namespace_),
                     " is not a valid namespace: a DNS-1123 label of at most 63 characters"));
  }
  if (label_selector.size() > kMaxLabelSelectorBytes) {
    return absl::InvalidArgumentError(absl::StrCat("label_selector is ", label_selector.size(),
                                                   " bytes, at most ", kMaxLabelSelectorBytes));
  }
  absl::StatusOr<k8s::LabelSelector> selector = k8s::LabelSelector::Parse(label_selector);
  if (!selector.ok()) return selector.status();
  request.selector = *std::move(selector);
  request.selector_text = std::string(label_selector);
  if (page_size == 0) page_size = kDefaultPageSize;
  if (page_size < 0 || page_size > kMaxPageSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size must be between 0 and ", kMaxPageSize, ", got ", page_size));
  }
  request.page_size = page_size;
  absl::StatusOr<PageToken> token = ParsePageToken(page_token);
  if (!token.ok()) return token.status();
  request.page_token = *std::move(token);
  return request;
}

absl::StatusOr<NamespacesCursor> ParseNamespacesToken(std::string_view text,
                                                      const std::vector<std::string>& namespaces) {
  if (text.empty()) return NamespacesCursor{namespaces.front(), PageToken{}};
  auto refused = [&text] {
    return absl::InvalidArgumentError(absl::StrCat(
        "page_token is not one this service handed out for a listing of all namespaces: ",
        QuoteBounded(text), " (list again from the first page)"));
  };
  if (text.size() > kMaxPageTokenBytes || !text.starts_with(kNamespacesPrefix)) return refused();
  std::string_view rest = text.substr(kNamespacesPrefix.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return refused();
  std::string_view ns = rest.substr(0, slash);
  if (!std::binary_search(namespaces.begin(), namespaces.end(), ns)) return refused();
  std::string_view inner = rest.substr(slash + 1);
  absl::StatusOr<PageToken> token = ParsePageToken(inner);
  if (!token.ok()) return refused();
  return NamespacesCursor{std::string(ns), *std::move(token)};
}

std::string NextNamespacesToken(std::string_view ns, std::string_view next_in_namespace,
                                const std::vector<std::string>& namespaces) {
  if (!next_in_namespace.empty()) {
    return absl::StrCat(ToAbsl(kNamespacesPrefix), ToAbsl(ns), "/", ToAbsl(next_in_namespace));
  }
  auto after = std::upper_bound(namespaces.begin(), namespaces.end(), ns);
  if (after == namespaces.end()) return "";
  return absl::StrCat(ToAbsl(kNamespacesPrefix), *after, "/");
}

}  // namespace kje::executor
