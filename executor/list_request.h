#pragma once

// ListJobs' request, checked in full before any lookup: a namespace, a label selector, a page
// size and a page token, each refused with INVALID_ARGUMENT and a bounded quote when it can't be
// what a caller of this service sends. Pure: no cache, no Kubernetes, no namespace policy.

#include <cstdint>
#include <string>
#include <string_view>

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
  int64_t page_size = kDefaultPageSize;
  PageToken page_token;
};

// `namespace_arg` "" means `default_namespace`; a page size of 0 means the default.
absl::StatusOr<ListRequest> ParseListRequest(std::string_view namespace_arg,
                                             std::string_view default_namespace,
                                             std::string_view label_selector, int64_t page_size,
                                             std::string_view page_token);

}  // namespace kje::executor
