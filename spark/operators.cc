#include "spark/operators.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/quote.h"
#include "base/strings.h"
#include "spark/apache/backend.h"
#include "spark/kubeflow/backend.h"

namespace kje::spark {
namespace {

struct Operator {
  std::string_view name;     // the `operator` setting
  std::string_view project;  // what it stands for, in errors
  // The operator's schedules as an error names them; "" when it has none.
  std::string_view schedules;
  std::unique_ptr<OperatorBackend> (*make)(const OperatorOptions& options);
};

// One line per operator.
constexpr Operator kOperators[] = {
    {"apache", "apache/spark-kubernetes-operator", "",
     [](const OperatorOptions&) { return apache::NewBackend(); }},
    {"kubeflow", "kubeflow/spark-operator",
     "kubeflow/spark-operator (its ScheduledSparkApplication)",
     [](const OperatorOptions& o) { return kubeflow::NewBackend(o.driver_start_timeout); }},
};

}  // namespace

std::vector<std::string_view> OperatorNames() {
  std::vector<std::string_view> names;
  for (const Operator& o : kOperators) names.push_back(o.name);
  return names;
}

std::string DescribeOperators() {
  std::vector<std::string> described;
  for (const Operator& o : kOperators) {
    described.push_back(absl::StrCat(ToAbsl(o.name), " (", ToAbsl(o.project), ")"));
  }
  return absl::StrJoin(described, " or ");
}

absl::Status NoSchedulesError(const OperatorBackend& backend) {
  std::vector<std::string> with;
  for (const Operator& o : kOperators) {
    if (!o.schedules.empty()) with.emplace_back(o.schedules);
  }
  return absl::FailedPreconditionError(absl::StrCat("schedules need ", absl::StrJoin(with, " or "),
                                                    "; this server runs ", ToAbsl(backend.Name()),
                                                    " (the `operator` setting)"));
}

absl::StatusOr<std::unique_ptr<OperatorBackend>> NewOperatorBackend(
    std::string_view name, const OperatorOptions& options) {
  for (const Operator& o : kOperators) {
    if (o.name == name) return o.make(options);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("must be ", DescribeOperators(), ", not ", QuoteBounded(name)));
}

}  // namespace kje::spark
