#pragma once

// The Kubeflow operator's ScheduledSparkApplication controller (kubeflow/spark-operator v2.5.2,
// sparkoperator.k8s.io/v1beta2) as a pure reconciler: given a ScheduledSparkApplication, the
// SparkApplications labelled as its runs and the operator's time, it returns what the operator
// would do. It keeps no state between calls; everything is in the object's status.
//
// Faithful to v2.5.2 where that surprises: a suspended schedule is not even validated;
// FailedValidation is terminal even after the spec is fixed; a nextRun already set is not moved by
// a schedule or time-zone edit; Forbid leaves nextRun in the past (and so runs as soon as it is
// reconciled after the previous run ends); an unknown or empty concurrencyPolicy starts the first
// run only; history is pruned only when a run starts; a negative history limit fails the
// reconcile after the run was created (Go panics slicing with it), so the status is not written.

#include <absl/time/time.h>

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kubesim::schedule {

inline constexpr const char* kLabelScheduledAppName = "sparkoperator.k8s.io/scheduled-app-name";

// How the run names' timestamp suffix is written: Unix time in this unit.
enum class Precision { kNanos, kMicros, kMillis, kSeconds, kMinutes };

struct Options {
  // Go's time.Local in the operator's pod, what timeZone "" and "Local" mean. Operator images run
  // in UTC unless their pod sets TZ.
  absl::TimeZone local = absl::UTCTimeZone();
  Precision precision = Precision::kNanos;
};

struct View {
  const boost::json::object* app = nullptr;  // the ScheduledSparkApplication
  // Every SparkApplication of its namespace labelled kLabelScheduledAppName=<its name>, whoever
  // created it.
  std::vector<const boost::json::object*> runs;
  absl::Time now;  // the operator's clock
};

struct Actions {
  // Deleted first, with grace period 0: the newest unfinished run under Replace.
  std::vector<std::string> delete_runs;
  // Then created (complete SparkApplication). If it fails, nothing after it happens.
  std::optional<boost::json::object> create_run;
  // Then deleted, grace period 0: finished runs beyond the history limits.
  std::vector<std::string> prune_runs;
  // Then the new .status, whole; absent when unchanged.
  std::optional<boost::json::object> status;
  // Reconcile again at this operator time.
  std::optional<absl::Time> requeue_at;
  // Non-empty: the reconcile fails at this point with this error (the status is not written) and
  // is retried with backoff.
  std::string error;
};

Actions Reconcile(const View& view, const Options& options);

// `<name>-<timestamp>` as the operator names a run started at `at`.
std::string RunName(const std::string& scheduled_name, absl::Time at, Precision precision);

}  // namespace kubesim::schedule
