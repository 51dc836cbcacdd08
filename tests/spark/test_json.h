#pragma once

// Small builders of SparkApplication and pod JSON for the spark/ tests.

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"

namespace kje::spark::testing {

inline std::string Quoted(const std::string& s) { return absl::StrCat("\"", s, "\""); }

// One operator state: {"currentStateSummary":..., "lastTransitionTime":..., ...}.
inline std::string State(const std::string& summary, const std::string& time,
                         const std::string& driver_status = "", const std::string& message = "") {
  std::string out = absl::StrCat(R"({"currentStateSummary":)", Quoted(summary));
  if (!time.empty()) absl::StrAppend(&out, R"(,"lastTransitionTime":)", Quoted(time));
  if (!message.empty()) absl::StrAppend(&out, R"(,"message":)", Quoted(message));
  if (!driver_status.empty())
    absl::StrAppend(&out, R"(,"lastObservedDriverStatus":)", driver_status);
  return out + "}";
}

// A core/v1 PodStatus whose containers are {name, state JSON}.
inline std::string PodStatus(const std::vector<std::pair<std::string, std::string>>& containers,
                             const std::string& phase = "Failed") {
  std::vector<std::string> items;
  for (const auto& [name, state] : containers) {
    items.push_back(absl::StrCat(R"({"name":)", Quoted(name), R"(,"state":)", state, "}"));
  }
  return absl::StrCat(R"({"phase":)", Quoted(phase), R"(,"containerStatuses":[)",
                      absl::StrJoin(items, ","), "]}");
}

inline std::string Terminated(const std::string& started, const std::string& finished) {
  return absl::StrCat(R"({"terminated":{"exitCode":0,"startedAt":)", Quoted(started),
                      R"(,"finishedAt":)", Quoted(finished), "}}");
}
inline std::string Running(const std::string& started) {
  return absl::StrCat(R"({"running":{"startedAt":)", Quoted(started), "}}");
}

// A status with the given history entries (key, state JSON) and an optional currentState.
inline std::string Status(const std::vector<std::pair<std::string, std::string>>& history,
                          const std::string& current = "") {
  std::vector<std::string> entries;
  for (const auto& [key, state] : history) entries.push_back(absl::StrCat(Quoted(key), ":", state));
  std::string out =
      absl::StrCat(R"({"stateTransitionHistory":{)", absl::StrJoin(entries, ","), "}");
  if (!current.empty()) absl::StrAppend(&out, R"(,"currentState":)", current);
  return out + "}";
}

struct AppMeta {
  std::string name = "gravitino-job-1";
  std::string namespace_ = "spark-jobs";
  std::string creation = "2026-05-12T10:00:00Z";
  std::string deletion;  // "" = not deleting
  std::string job_id = "1";
  bool cancel_requested = false;
  std::string cancel_value = "true";
};

// A SparkApplication; `status` is "" for none.
inline std::string App(const std::string& status, const AppMeta& meta = {}) {
  std::string metadata = absl::StrCat(
      R"({"name":)", Quoted(meta.name), R"(,"namespace":)", Quoted(meta.namespace_),
      R"(,"uid":"u-1","resourceVersion":"42","creationTimestamp":)", Quoted(meta.creation),
      R"(,"labels":{"app.kubernetes.io/managed-by":"gravitino","gravitino.apache.org/job-id":)",
      Quoted(meta.job_id), R"(},"annotations":{"gravitino.apache.org/metalake":"ml")");
  if (meta.cancel_requested) {
    absl::StrAppend(&metadata, R"(,"gravitino.apache.org/cancel-requested":)",
                    Quoted(meta.cancel_value));
  }
  absl::StrAppend(&metadata, "}");
  if (!meta.deletion.empty()) {
    absl::StrAppend(&metadata, R"(,"deletionTimestamp":)", Quoted(meta.deletion));
  }
  absl::StrAppend(&metadata, "}");
  std::string out =
      absl::StrCat(R"({"apiVersion":"spark.apache.org/v1","kind":"SparkApplication","metadata":)",
                   metadata, R"(,"spec":{"runtimeVersions":{"sparkVersion":"3.5.6"}})");
  if (!status.empty()) absl::StrAppend(&out, R"(,"status":)", status);
  return out + "}";
}

// A driver pod with containers {name, state JSON ("" = no status for it)}.
inline std::string Pod(const std::string& name, const std::string& creation,
                       const std::string& phase,
                       const std::vector<std::pair<std::string, std::string>>& containers) {
  std::vector<std::string> specs;
  std::vector<std::string> statuses;
  for (const auto& [container, state] : containers) {
    specs.push_back(absl::StrCat(R"({"name":)", Quoted(container), R"(,"image":"spark"})"));
    if (!state.empty()) {
      statuses.push_back(
          absl::StrCat(R"({"name":)", Quoted(container), R"(,"state":)", state, "}"));
    }
  }
  return absl::StrCat(R"({"metadata":{"name":)", Quoted(name), R"(,"creationTimestamp":)",
                      Quoted(creation), R"(},"spec":{"containers":[)", absl::StrJoin(specs, ","),
                      R"(]},"status":{"phase":)", Quoted(phase), R"(,"containerStatuses":[)",
                      absl::StrJoin(statuses, ","), "]}}");
}

inline absl::Time T(const std::string& rfc3339) {
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, rfc3339, &time, &error)) return absl::InfinitePast();
  return time;
}

inline std::string ReadTestData(const std::string& file) {
  std::ifstream in(std::string(KJE_SPARK_TESTDATA) + "/" + file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace kje::spark::testing
