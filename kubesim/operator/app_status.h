#pragma once

// Reading a SparkApplication as the simulated operator does: the state classes of
// ApplicationStateSummary, guarded JSON reads, the application's tolerations and its history in
// numeric key order. Internal to kubesim/operator.

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kubesim/sim/json_access.h"

namespace kubesim::op::internal {

bool IsStarting(const std::string& s);
bool IsRunning(const std::string& s);
bool IsFailure(const std::string& s);
bool IsInfrastructureFailure(const std::string& s);
bool IsStopping(const std::string& s);
bool IsTerminated(const std::string& s);

using sim::ObjectAt;
using sim::StringAt;
std::optional<int64_t> IntAt(const boost::json::object* o, std::string_view key);

struct Tolerations {
  std::string restart_policy = "Never";
  int64_t max_restart_attempts = 3;
  int64_t restart_backoff_ms = 30000;
  int64_t restart_counter_reset_ms = -1;
  std::optional<int64_t> max_restart_on_failure;
  std::optional<int64_t> backoff_on_failure_ms;
  std::optional<int64_t> max_restart_on_scheduling_failure;
  std::optional<int64_t> backoff_on_scheduling_failure_ms;
  int64_t driver_start_timeout_ms = 300000;
  int64_t driver_ready_timeout_ms = 300000;
  int64_t executor_start_timeout_ms = 300000;
  int64_t init_executors = 0;  // instanceConfig.initExecutors
  int64_t termination_requeue_ms = 2000;
  std::string retain_policy = "Never";
  int64_t retain_duration_ms = -1;
  int64_t ttl_after_stop_ms = -1;
};

Tolerations ReadTolerations(const boost::json::object& app);

// A history map's entries in numeric key order.
std::vector<std::pair<int64_t, const boost::json::object*>> Entries(
    const boost::json::object* history);

}  // namespace kubesim::op::internal
