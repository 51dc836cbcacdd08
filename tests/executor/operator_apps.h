#pragma once

// Each operator as the executor's tests meet it: its backend, from the registry, and its
// applications as the API server returns them in the situations a test needs, spelled in that
// operator's own status. A test that depends on the operator runs once per operator:
//   const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));

#include <array>
#include <memory>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/strings.h"
#include "spark/operators.h"

namespace kje::executor {

inline constexpr std::array<std::string_view, 2> kOperators = {"apache", "kubeflow"};

// What the test makes of an application's status, whatever the operator calls it.
enum class Situation { kNoStatus, kSubmitted, kRunning, kSucceeded };

struct OperatorApps {
  std::string name;
  std::shared_ptr<const spark::OperatorBackend> backend;

  static OperatorApps Named(std::string_view name) {
    auto backend = spark::NewOperatorBackend(name);
    REQUIRE(backend.ok());
    return OperatorApps{std::string(name), *std::move(backend)};
  }

  // An application in namespace "jobs", uid "uid-<name>", created at `created`.
  std::string AppJson(const std::string& app, const std::string& rv, Situation situation,
                      const std::string& job_id = "7",
                      const std::string& created = "2026-01-01T00:00:00Z") const {
    return absl::StrCat(R"({"apiVersion":")", ToAbsl(backend->Name()),
                        R"(","kind":"SparkApplication","metadata":{"name":")", app,
                        R"(","namespace":"jobs","uid":"uid-)", app, R"(","resourceVersion":")", rv,
                        R"(","creationTimestamp":")", created,
                        R"(","labels":{"app.kubernetes.io/managed-by":"gravitino",)",
                        R"("gravitino.apache.org/job-id":")", job_id, R"("}},"spec":{})",
                        StatusJson(situation), "}");
  }

  // A running driver pod of `app` that the operator's driver pick takes for the app's current
  // driver, its container started at 2026-01-01T00:00:03Z.
  std::string DriverPodJson(const std::string& app) const {
    const std::string labels =
        name == "apache"
            ? absl::StrCat(R"("spark-role":"driver","spark.operator/spark-app-name":")", app, "\"")
            : absl::StrCat(R"("spark-role":"driver","sparkoperator.k8s.io/app-name":")", app,
                           R"(","sparkoperator.k8s.io/submission-id":"s-1")");
    return absl::StrCat(
        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", app,
        R"(-driver","namespace":"jobs","uid":"pod-)", app,
        R"(","creationTimestamp":"2026-01-01T00:00:02Z","labels":{)", labels,
        R"(}},"spec":{"containers":[{"name":"spark-kubernetes-driver"}]},)",
        R"("status":{"phase":"Running","containerStatuses":[{"name":"spark-kubernetes-driver",)",
        R"("state":{"running":{"startedAt":"2026-01-01T00:00:03Z"}}}]}})");
  }

  // The operator's spelling of the running state, as Status reports it.
  std::string RunningState() const { return name == "apache" ? "RunningHealthy" : "RUNNING"; }

 private:
  std::string StatusJson(Situation situation) const {
    if (situation == Situation::kNoStatus) return "";
    if (name == "apache") {
      const char* state = situation == Situation::kSubmitted ? "Submitted"
                          : situation == Situation::kRunning ? "RunningHealthy"
                                                             : "Succeeded";
      return absl::StrCat(
          R"(,"status":{"currentState":{"currentStateSummary":")", state,
          R"(","lastTransitionTime":"2026-01-01T00:00:05Z"},)",
          R"("stateTransitionHistory":{"0":{"currentStateSummary":"Submitted",)",
          R"("lastTransitionTime":"2026-01-01T00:00:01Z"},"1":{"currentStateSummary":")", state,
          R"(","lastTransitionTime":"2026-01-01T00:00:05Z"}}})");
    }
    const char* state = situation == Situation::kSubmitted ? "SUBMITTED"
                        : situation == Situation::kRunning ? "RUNNING"
                                                           : "COMPLETED";
    return absl::StrCat(
        R"(,"status":{"applicationState":{"state":")", state,
        R"("},"submissionID":"s-1","lastSubmissionAttemptTime":)",
        R"("2026-01-01T00:00:01Z","executionAttempts":1,)", R"("sparkApplicationId":"spark-1")",
        situation == Situation::kSucceeded ? R"(,"terminationTime":"2026-01-01T00:00:05Z")" : "",
        "}");
  }
};

// `app` (an AppJson) with the mark of a kept cancel made at 2026-01-01T00:01:00Z, as the API
// server returns it after the patch.
inline std::string Marked(const std::string& app) {
  return absl::StrReplaceAll(
      app, {{R"("labels":{)",
             R"("annotations":{"gravitino.apache.org/cancel-requested":"true",)"
             R"("gravitino.apache.org/cancel-reason":"why",)"
             R"("gravitino.apache.org/stop-kept-at":"2026-01-01T00:01:00Z"},"labels":{)"}});
}

}  // namespace kje::executor
