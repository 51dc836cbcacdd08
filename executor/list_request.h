#pragma once

// ListJobs' request, checked in full before any lookup: a namespace, a label selector, a page
// size and a page token, each refused with INVALID_ARGUMENT and a bounded quote when it can't be
// what a caller of this service sends. Pure: no cache, no Kubernetes, no namespace policy.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "k8s/label_selector.h"

namespace kje::executor {

inline constexpr int64_t kDefaultPageSize = 100;
inline constexpr int64_t kMaxPageSize = 1000;
// An API server's continue token is base64 of a small JSON object (a resource version and the
// next key, a name of at most 253 characters): a few hundred bytes. Anything longer was not
// handed out by a server.
inline constexpr size_t kMaxPageTokenBytes = 2048;
// Kubernetes sets no length on a selector, only on its keys (317 bytes) and values (63 bytes);
// this bound leaves room for dozens of requirements while keeping a hostile one out of the parser.
inline constexpr size_t kMaxLabelSelectorBytes = 4096;

// Where the next page comes from: this replica's informer (after the last name served) or the
// API server (its continue token). A token says which, so any replica can go on.
struct PageToken {
  enum class Kind { kFirst, kMemory, kApi };
  Kind kind = Kind::kFirst;
  // The last name served (kMemory) or the API server's continue token (kApi).
  std::string value;

  static PageToken AfterName(std::string name) { return {Kind::kMemory, std::move(name)}; }
  static PageToken Continue(std::string token) { return {Kind::kApi, std::move(token)}; }
  // The token as the caller receives it; "" for kFirst.
  std::string Encode() const;
};

// The token a caller sent back, or INVALID_ARGUMENT when this service could not have made it.
absl::StatusOr<PageToken> ParsePageToken(std::string_view text);

struct ListRequest {
  std::string namespace_;
  k8s::LabelSelector selector;
  // The selector as the caller wrote it, for a LIST passed through to the API server.
  std::string selector_text;
  int64_t page_size = kDefaultPageSize;
  PageToken page_token;
};

// `namespace_arg` "" means `default_namespace`; a page size of 0 means the default.
absl::StatusOr<ListRequest> ParseListRequest(std::string_view namespace_arg,
                                             std::string_view default_namespace,
                                             std::string_view label_selector, int64_t page_size,
                                             std::string_view page_token);

// Where a listing of several namespaces (ListJobs' all_namespaces over an allow-list) stands:
// the namespace the next page comes from, and the page token within it.
struct NamespacesCursor {
  std::string namespace_;
  PageToken token;
};

// The cursor a token of such a listing names; "" is the first namespace's first page.
// `namespaces`: the listing's namespaces in name order, not empty. INVALID_ARGUMENT for a token
// this service could not have made for them (another listing's, or a namespace no longer listed).
absl::StatusOr<NamespacesCursor> ParseNamespacesToken(std::string_view text,
                                                      const std::vector<std::string>& namespaces);

// The token of the page after one served from `ns`, whose own next token is `next_in_namespace`
// ("" once `ns` is done): on in `ns`, else the next namespace's first page, else "" (the end).
std::string NextNamespacesToken(std::string_view ns, std::string_view next_in_namespace,
                                const std::vector<std::string>& namespaces);

}  // namespace kje::executor
