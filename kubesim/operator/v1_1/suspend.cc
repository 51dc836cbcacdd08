#include "kubesim/operator/v1_1/suspend.h"

#include "kubesim/operator/app_status.h"
#include "kubesim/operator/driver.h"

namespace kubesim::op::v1_1 {

namespace json = boost::json;
using internal::IntAt;
using internal::ObjectAt;
using internal::StringAt;

std::string HoldReason(const json::object& app) {
  const json::object* spec = ObjectAt(&app, "spec");
  if (spec != nullptr) {
    const json::value* suspend = spec->if_contains("suspend");
    if (suspend != nullptr && suspend->is_bool() && suspend->as_bool()) return kSpecSuspend;
  }
  const json::object* meta = ObjectAt(&app, "metadata");
  const json::object* labels = ObjectAt(meta, "labels");
  if (labels != nullptr && labels->contains(kKueueQueueLabel)) {
    const json::object* annotations = ObjectAt(meta, "annotations");
    bool admitted =
        annotations != nullptr && StringAt(*annotations, kKueueAdmittedAnnotation) == "true";
    if (!admitted) return kKueueEviction;
  }
  return "";
}

std::string SuspendedMessage(const std::string& reason) {
  return reason == kKueueEviction
             ? "Spark application is suspended: its Kueue workload was evicted."
             : "Spark application is suspended as requested by spec.suspend.";
}

json::object SuspendHeldEvent(const json::object& app, const std::string& reason, int64_t period,
                              int64_t now_ms) {
  const json::object* meta = ObjectAt(&app, "metadata");
  const std::string ns = meta != nullptr ? StringAt(*meta, "namespace") : "";
  const std::string name = meta != nullptr ? StringAt(*meta, "name") : "";
  const std::string time = internal::FormatPodTime(now_ms);
  json::object event;
  event["apiVersion"] = "v1";
  event["kind"] = "Event";
  event["metadata"] =
      json::object{{"name", name + ".suspendheld." + std::to_string(period)}, {"namespace", ns}};
  event["involvedObject"] = json::object{{"apiVersion", "spark.apache.org/v1"},
                                         {"kind", "SparkApplication"},
                                         {"name", name},
                                         {"namespace", ns},
                                         {"uid", meta != nullptr ? StringAt(*meta, "uid") : ""}};
  event["reason"] = "SuspendHeld";
  event["message"] = reason == kKueueEviction
                         ? "Spark application is held until Kueue admits its workload."
                         : "Spark application is held: spec.suspend is true.";
  event["type"] = "Normal";
  event["count"] = 1;
  event["firstTimestamp"] = time;
  event["lastTimestamp"] = time;
  event["source"] = json::object{{"component", internal::kOperatorName}};
  event["reportingComponent"] = internal::kOperatorName;
  return event;
}

json::object ResumedStatus(const json::object& status, int64_t next_key,
                           const std::string& submitted_time, const char* submitted_msg) {
  json::object resumed = status;
  const json::object* current = ObjectAt(ObjectAt(&status, "currentAttemptSummary"), "attemptInfo");
  json::object info = current != nullptr ? *current : json::object();
  int64_t id = IntAt(current, "id").value_or(0);
  json::object previous;
  previous["attemptInfo"] = info;
  if (const json::object* history = ObjectAt(&status, "stateTransitionHistory")) {
    previous["stateTransitionHistory"] = *history;
  }
  resumed["previousAttemptSummary"] = std::move(previous);
  info["id"] = id + 1;
  resumed["currentAttemptSummary"] = json::object{{"attemptInfo", std::move(info)}};
  json::object entry{{"currentStateSummary", "Submitted"},
                     {"lastTransitionTime", submitted_time},
                     {"message", submitted_msg}};
  resumed["stateTransitionHistory"] = json::object{{std::to_string(next_key), entry}};
  resumed["currentState"] = std::move(entry);
  return resumed;
}

}  // namespace kubesim::op::v1_1
