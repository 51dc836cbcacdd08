#include "kubesim/operator/app_status.h"

#include <algorithm>
#include <cstdlib>

namespace kubesim::op::internal {

namespace json = boost::json;

bool IsStarting(const std::string& s) {
  return s == "DriverRequested" || s == "DriverStarted" || s == "DriverReady" ||
         s == "InitializedBelowThresholdExecutors";
}
bool IsRunning(const std::string& s) {
  return s == "RunningHealthy" || s == "RunningWithPartialCapacity" ||
         s == "RunningWithBelowThresholdExecutors";
}
bool IsFailure(const std::string& s) {
  return s == "DriverStartTimedOut" || s == "ExecutorsStartTimedOut" || s == "SchedulingFailure" ||
         s == "DriverEvicted" || s == "Failed" || s == "DriverReadyTimedOut";
}
bool IsInfrastructureFailure(const std::string& s) {
  return s == "DriverStartTimedOut" || s == "ExecutorsStartTimedOut" || s == "SchedulingFailure";
}
bool IsStopping(const std::string& s) { return IsFailure(s) || s == "Succeeded"; }
bool IsTerminated(const std::string& s) {
  return s == "ResourceReleased" || s == "TerminatedWithoutReleaseResources";
}

std::optional<int64_t> IntAt(const json::object* o, std::string_view key) {
  if (o == nullptr) return std::nullopt;
  const json::value* v = o->if_contains(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) return static_cast<int64_t>(std::min<uint64_t>(v->as_uint64(), INT64_MAX));
  if (v->is_double()) return static_cast<int64_t>(v->as_double());
  return std::nullopt;
}

Tolerations ReadTolerations(const json::object& app) {
  Tolerations t;
  const json::object* tol = ObjectAt(ObjectAt(&app, "spec"), "applicationTolerations");
  if (tol == nullptr) return t;
  const json::object* restart = ObjectAt(tol, "restartConfig");
  if (std::string p = restart ? StringAt(*restart, "restartPolicy") : ""; !p.empty()) {
    t.restart_policy = p;
  }
  t.max_restart_attempts = IntAt(restart, "maxRestartAttempts").value_or(t.max_restart_attempts);
  t.restart_backoff_ms = IntAt(restart, "restartBackoffMillis").value_or(t.restart_backoff_ms);
  t.restart_counter_reset_ms = IntAt(restart, "restartCounterResetMillis").value_or(-1);
  t.max_restart_on_failure = IntAt(restart, "maxRestartOnFailure");
  t.backoff_on_failure_ms = IntAt(restart, "restartBackoffMillisForFailure");
  t.max_restart_on_scheduling_failure = IntAt(restart, "maxRestartOnSchedulingFailure");
  t.backoff_on_scheduling_failure_ms = IntAt(restart, "restartBackoffMillisForSchedulingFailure");
  const json::object* timeouts = ObjectAt(tol, "applicationTimeoutConfig");
  t.driver_start_timeout_ms =
      IntAt(timeouts, "driverStartTimeoutMillis").value_or(t.driver_start_timeout_ms);
  t.driver_ready_timeout_ms =
      IntAt(timeouts, "driverReadyTimeoutMillis").value_or(t.driver_ready_timeout_ms);
  t.executor_start_timeout_ms =
      IntAt(timeouts, "executorStartTimeoutMillis").value_or(t.executor_start_timeout_ms);
  t.init_executors = IntAt(ObjectAt(tol, "instanceConfig"), "initExecutors").value_or(0);
  t.termination_requeue_ms =
      IntAt(timeouts, "terminationRequeuePeriodMillis").value_or(t.termination_requeue_ms);
  if (std::string p = StringAt(*tol, "resourceRetainPolicy"); !p.empty()) t.retain_policy = p;
  t.retain_duration_ms = IntAt(tol, "resourceRetainDurationMillis").value_or(-1);
  t.ttl_after_stop_ms = IntAt(tol, "ttlAfterStopMillis").value_or(-1);
  return t;
}

// A history map's entries in numeric key order.
std::vector<std::pair<int64_t, const json::object*>> Entries(const json::object* history) {
  std::vector<std::pair<int64_t, const json::object*>> out;
  if (history == nullptr) return out;
  for (const auto& kv : *history) {
    if (!kv.value().is_object()) continue;
    char* end = nullptr;
    std::string key(kv.key());
    long long k = std::strtoll(key.c_str(), &end, 10);
    if (end == nullptr || *end != '\0') continue;
    out.emplace_back(k, &kv.value().as_object());
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace kubesim::op::internal
