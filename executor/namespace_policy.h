#pragma once

// One namespace policy for every RPC. With an allow-list (server.allowedNamespaces), a request
// about any other namespace is refused before anything is sent to Kubernetes; without one, any
// namespace may be named (and the cache decides what it follows, see cache/app_cache.h).

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace kje::executor {

class NamespacePolicy {
 public:
  // `allowed`: empty allows any.
  explicit NamespacePolicy(std::vector<std::string> allowed);

  const std::vector<std::string>& allowed() const { return allowed_; }
  // The allowed namespaces in name order, each once: what a listing of all of them walks.
  const std::vector<std::string>& allowed_in_order() const { return allowed_in_order_; }

  // PERMISSION_DENIED naming the namespace and the rule, or OK.
  absl::Status Check(std::string_view ns) const;
  // The namespaces followed from the start: `default_namespace` (where jobs go when a template
  // names none, the builder's) if it is allowed, and the allowed ones.
  std::vector<std::string> Configured(std::string_view default_namespace) const;

 private:
  std::vector<std::string> allowed_;
  std::vector<std::string> allowed_in_order_;
};

}  // namespace kje::executor
