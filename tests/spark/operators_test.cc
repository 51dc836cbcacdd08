// What every operator's backend answers alike. This file, as the registry it tests, may name
// each operator: it builds their statuses to ask their backends.

#include "spark/operators.h"

#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "spark/apache/app_projection.h"
#include "spark/kubeflow/app_projection.h"

namespace kje::spark {
namespace {

// Every status an operator's folder can pack, for a state code: with and without a history of
// that state (Apache), or the state itself (Kubeflow).
using StatusesOf = std::function<std::vector<AppFields>(int code)>;

std::vector<AppFields> ApacheStatuses(int code) {
  if (code > static_cast<int>(apache::AppState::kSuspended)) return {};
  std::vector<AppFields> out;
  for (bool has_history : {false, true}) {
    apache::ApacheStatus status;
    if (has_history) {
      status.history.push_back({apache::kCurrentStateId, kNoTime, kNoTime, kNoTime,
                                static_cast<apache::AppState>(code)});
    }
    AppFields fields;
    apache::SetStatus(status, fields);
    out.push_back(fields);
  }
  return out;
}

std::vector<AppFields> KubeflowStatuses(int code) {
  if (code > static_cast<int>(kubeflow::State::kUnrecognized)) return {};
  kubeflow::KubeflowStatus status;
  status.state = static_cast<kubeflow::State>(code);
  AppFields fields;
  kubeflow::SetStatus(status, fields);
  return {fields};
}

TEST_CASE("A stopped app always has a state, whichever the operator and the state") {
  // The executor's cached Status asks IsStopped alone on that account.
  const std::vector<std::pair<std::string_view, StatusesOf>> operators = {
      {"apache", ApacheStatuses}, {"kubeflow", KubeflowStatuses}};
  REQUIRE(operators.size() == OperatorNames().size());
  for (const auto& [name, statuses] : operators) {
    INFO(name);
    absl::StatusOr<std::unique_ptr<OperatorBackend>> backend = NewOperatorBackend(name);
    REQUIRE(backend.ok());
    int stopped = 0;
    for (int code = 0; code < 256; ++code) {
      for (AppFields fields : statuses(code)) {
        for (bool has_status : {false, true}) {
          fields.namespace_ = "spark-jobs";
          fields.name = "gravitino-job-1";
          fields.has_status = has_status;
          const AppProjection app(fields);
          if (!(*backend)->IsStopped(app)) continue;
          ++stopped;
          CHECK((*backend)->HasState(app));
        }
      }
    }
    CHECK(stopped >= 2);  // the operator's stopped states were among them
  }
}

TEST_CASE("Each operator names its drivers: by attempt (Apache), or one name (Kubeflow)") {
  auto apache = NewOperatorBackend("apache");
  auto kubeflow = NewOperatorBackend("kubeflow");
  REQUIRE(apache.ok());
  REQUIRE(kubeflow.ok());
  CHECK((*apache)->DriverPodName("jobs", "pi", 0) == "pi-0-driver");
  CHECK((*apache)->DriverPodName("jobs", "pi", 2) == "pi-2-driver");
  // "<name>-0" over 46 characters: its first 9, a dash, 36 base-36 digits of
  // SHA-256("jobs/<name>/0") (worked out with Python's hashlib).
  CHECK((*apache)->DriverPodName("jobs", "gravitino-job-a-rather-long-job-id-0123456789", 0) ==
        "gravitino-4kje29358hmi148qfos8chsmgab72ot61s1m-driver");
  CHECK((*kubeflow)->DriverPodName("jobs", "pi", 0) == "pi-driver");
  CHECK((*kubeflow)->DriverPodName("jobs", "pi", 3) == "pi-driver");
}

// Whether every "key=value" of `selector` holds in `labels`.
bool Selects(const std::string& selector, const std::map<std::string, std::string>& labels) {
  size_t at = 0;
  while (at <= selector.size()) {
    size_t comma = selector.find(',', at);
    if (comma == std::string::npos) comma = selector.size();
    const std::string requirement = selector.substr(at, comma - at);
    const size_t eq = requirement.find('=');
    if (eq == std::string::npos) return false;
    auto it = labels.find(requirement.substr(0, eq));
    if (it == labels.end() || it->second != requirement.substr(eq + 1)) return false;
    at = comma + 1;
  }
  return true;
}

TEST_CASE("An executor's selector picks that executor's pods as each operator labels them") {
  // The labels the operators and Spark put on the pods of app "gravitino-job-1".
  const std::map<std::string, std::map<std::string, std::string>> app_label = {
      {"apache", {{"spark.operator/spark-app-name", "gravitino-job-1"}}},
      {"kubeflow", {{"sparkoperator.k8s.io/app-name", "gravitino-job-1"}}}};
  REQUIRE(app_label.size() == OperatorNames().size());
  for (const auto& [name, labels] : app_label) {
    INFO(name);
    absl::StatusOr<std::unique_ptr<OperatorBackend>> backend = NewOperatorBackend(name);
    REQUIRE(backend.ok());
    auto pod = [&labels](std::string role, std::string exec_id) {
      std::map<std::string, std::string> out = labels;
      out["spark-role"] = role;
      if (!exec_id.empty()) out["spark-exec-id"] = exec_id;
      return out;
    };
    const std::string second = (*backend)->ExecutorSelector("gravitino-job-1", 2);
    CHECK(Selects(second, pod("executor", "2")));
    CHECK_FALSE(Selects(second, pod("executor", "1")));
    CHECK_FALSE(Selects(second, pod("driver", "")));
    CHECK_FALSE(Selects((*backend)->ExecutorSelector("gravitino-job-10", 2), pod("executor", "2")));
    // The driver's selector and an executor's never pick the same pod.
    CHECK(Selects((*backend)->DriverSelector("gravitino-job-1"), pod("driver", "")));
    CHECK_FALSE(Selects((*backend)->DriverSelector("gravitino-job-1"), pod("executor", "2")));
  }
}

}  // namespace
}  // namespace kje::spark
