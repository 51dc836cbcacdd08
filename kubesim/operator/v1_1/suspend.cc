#include "kubesim/operator/v1_1/suspend.h"

#include "kubesim/operator/app_status.h"
#include "kubesim/operator/driver.h"
#include "kubesim/sim/events.h"
#include "kubesim/sim/kueue_workload.h"

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

namespace {

// An event of the operator about the application.
json::object AppEvent(const json::object& app, sim::EventSpec spec) {
  const json::object* meta = ObjectAt(&app, "metadata");
  sim::Involved involved;
  involved.api_version = "spark.apache.org/v1";
  involved.kind = "SparkApplication";
  if (meta != nullptr) {
    involved.ns = StringAt(*meta, "namespace");
    involved.name = StringAt(*meta, "name");
    involved.uid = StringAt(*meta, "uid");
  }
  spec.source = {internal::kOperatorName, ""};
  spec.key = involved.uid + "|" + spec.key;
  return sim::MakeEvent(involved, spec);
}

}  // namespace

json::object SuspendHeldEvent(const json::object& app, const std::string& reason, int64_t period,
                              int64_t first_ms, int64_t now_ms) {
  sim::EventSpec spec;
  spec.reason = "SuspendHeld";
  spec.message = reason == kKueueEviction
                     ? "Spark application is held until Kueue admits its workload."
                     : "Spark application is held: spec.suspend is true.";
  spec.key = reason;
  spec.first_ms = first_ms;
  spec.last_ms = now_ms;
  spec.count = period + 1;
  return AppEvent(app, spec);
}

json::object KueueAdmissionPendingEvent(const json::object& app, const std::string& episode,
                                        int64_t period, int64_t first_ms, int64_t now_ms) {
  sim::EventSpec spec;
  spec.reason = "KueueAdmissionPending";
  spec.message = "Spark application is waiting for Kueue to admit its workload.";
  spec.key = "pending|" + episode;
  spec.first_ms = first_ms;
  spec.last_ms = now_ms;
  spec.count = period + 1;
  return AppEvent(app, spec);
}

json::object KueueAdmittedEvent(const json::object& app, int64_t attempt, int64_t now_ms) {
  sim::EventSpec spec;
  spec.reason = "KueueAdmitted";
  spec.message = "Spark application's Kueue workload is admitted.";
  spec.key = std::to_string(attempt);
  spec.first_ms = now_ms;
  return AppEvent(app, spec);
}

sim::ObjectWrite KueueWorkload(const json::object& app, int64_t executors, bool admitted,
                               int64_t now_ms) {
  const json::object* meta = ObjectAt(&app, "metadata");
  sim::WorkloadOwner owner;
  owner.api_version = "spark.apache.org/v1";
  owner.kind = "SparkApplication";
  if (meta != nullptr) {
    owner.ns = StringAt(*meta, "namespace");
    owner.name = StringAt(*meta, "name");
    owner.uid = StringAt(*meta, "uid");
  }
  std::vector<sim::WorkloadPodSet> sets{{"driver", 1, internal::kDriverContainer, 1, "1408Mi"}};
  if (executors > 0) {
    sets.push_back({"executor", executors, "spark-kubernetes-executor", 1, "1408Mi"});
  }
  const json::object* labels = ObjectAt(meta, "labels");
  return sim::WorkloadWrite(owner, labels != nullptr ? StringAt(*labels, kKueueQueueLabel) : "",
                            sets, admitted, now_ms);
}

bool IsQueued(const json::object& app) {
  const json::object* labels = ObjectAt(ObjectAt(&app, "metadata"), "labels");
  return labels != nullptr && labels->contains(kKueueQueueLabel);
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
