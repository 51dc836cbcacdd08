#pragma once

// Kubernetes label selectors ("a=b,c!=d,e in (x,y),!f"), parsed and matched as the API server
// does, so a filter answered from memory selects exactly what a LIST with labelSelector would.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
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
  // The same over labels held elsewhere: `find` answers a key's first value, nullopt when the
  // key is absent.
  bool Matches(absl::FunctionRef<std::optional<std::string_view>(std::string_view key)> find) const;
  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  std::vector<Requirement> requirements_;
};

}  // namespace kje::k8s
