#pragma once

// Kubernetes label selectors ("a=b,c!=d,e in (x,y),!f"), parsed and matched as the API server
// does, so a filter answered from memory selects exactly what a LIST with labelSelector would.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace kje::k8s {

using Labels = std::vector<std::pair<std::string, std::string>>;

class LabelSelector {
 public:
  enum class Op { kEquals, kNotEquals, kIn, kNotIn, kExists, kDoesNotExist };
  struct Requirement {
    std::string key;
    Op op = Op::kExists;
    std::vector<std::string> values;  // sorted; one for = and !=
  };

  // INVALID_ARGUMENT naming the offending part. An empty selector selects everything.
  static absl::StatusOr<LabelSelector> Parse(std::string_view text);

  bool Matches(const Labels& labels) const;
  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  std::vector<Requirement> requirements_;
};

}  // namespace kje::k8s
