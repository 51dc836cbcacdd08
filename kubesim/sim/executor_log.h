#pragma once

// What a simulated Spark executor writes to its log: its start, as Spark's
// CoarseGrainedExecutorBackend logs it, in Spark's log4j layout (sim/log_writer.h). Both
// simulated operators' executors write it when their container starts, so an executor pod's log
// can be read as a real one's can.

#include <boost/json.hpp>
#include <cstdint>
#include <string>

namespace kubesim::sim {

// The lines of executor `pod` (its spark-app-selector and spark-exec-id labels, its
// SPARK_DRIVER_URL) as it starts with `status` (its podIP), dated `started_ms`.
std::string ExecutorLogStart(const boost::json::object& pod, const boost::json::object& status,
                             int64_t started_ms);

}  // namespace kubesim::sim
