#include "kubesim/sim/executor_log.h"

#include "kubesim/sim/json_access.h"
#include "kubesim/sim/log_writer.h"

namespace kubesim::sim {
namespace {

namespace json = boost::json;

// The value of the first container's environment variable `name`, "" when absent.
std::string EnvOf(const json::object& pod, const char* name) {
  const json::object* spec = ObjectAt(pod, "spec");
  auto containers = spec != nullptr ? spec->find("containers") : nullptr;
  if (containers == nullptr || containers == spec->end() || !containers->value().is_array() ||
      containers->value().as_array().empty() || !containers->value().as_array()[0].is_object()) {
    return "";
  }
  auto env = containers->value().as_array()[0].as_object().find("env");
  if (env == containers->value().as_array()[0].as_object().end() || !env->value().is_array()) {
    return "";
  }
  for (const json::value& v : env->value().as_array()) {
    if (v.is_object() && StringAt(v.as_object(), "name") == name) {
      return StringAt(v.as_object(), "value");
    }
  }
  return "";
}

}  // namespace

std::string ExecutorLogStart(const json::object& pod, const json::object& status,
                             int64_t started_ms) {
  const json::object* labels = ObjectAt(ObjectAt(pod, "metadata"), "labels");
  const std::string app_id = labels != nullptr ? StringAt(*labels, "spark-app-selector") : "";
  const std::string id = labels != nullptr ? StringAt(*labels, "spark-exec-id") : "";
  const std::string host = StringAt(status, "podIP");
  const std::string backend = "CoarseGrainedExecutorBackend";
  LogWriter w;
  w.Line(started_ms, "INFO", backend, "Started daemon with process name: 14@" + host);
  w.Line(started_ms, "INFO", "SignalUtils", "Registering signal handler for TERM");
  w.Line(started_ms + 300, "INFO", backend,
         "Connecting to driver: " + EnvOf(pod, "SPARK_DRIVER_URL"));
  w.Line(started_ms + 500, "INFO", backend, "Successfully registered with driver");
  w.Line(started_ms + 500, "INFO", "Executor", "Starting executor ID " + id + " on host " + host);
  w.Line(started_ms + 600, "INFO", "Executor", "Fetching dependencies of " + app_id);
  return w.Take();
}

}  // namespace kubesim::sim
