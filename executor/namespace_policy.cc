#include "executor/namespace_policy.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/quote.h"

namespace kje::executor {

NamespacePolicy::NamespacePolicy(std::vector<std::string> allowed)
    : allowed_(std::move(allowed)), allowed_in_order_(allowed_) {
  std::sort(allowed_in_order_.begin(), allowed_in_order_.end());
  allowed_in_order_.erase(std::unique(allowed_in_order_.begin(), allowed_in_order_.end()),
                          allowed_in_order_.end());
}

absl::Status NamespacePolicy::Check(std::string_view ns) const {
  if (allowed_.empty() || std::find(allowed_.begin(), allowed_.end(), ns) != allowed_.end()) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(absl::StrCat("namespace ", QuoteBounded(ns),
                                                  " is not allowed: server.allowedNamespaces is [",
                                                  absl::StrJoin(allowed_, ", "), "]"));
}

std::vector<std::string> NamespacePolicy::Configured(std::string_view default_namespace) const {
  std::vector<std::string> out;
  if (!default_namespace.empty() && Check(default_namespace).ok()) {
    out.emplace_back(default_namespace);
  }
  for (const auto& ns : allowed_) {
    if (std::find(out.begin(), out.end(), ns) == out.end()) out.push_back(ns);
  }
  return out;
}

}  // namespace kje::executor
