#include "kubesim/kubeflow/kueue.h"

#include "kubesim/kubeflow/app.h"
#include "kubesim/kubeflow/pods.h"
#include "kubesim/sim/events.h"
#include "kubesim/sim/kueue_workload.h"

namespace kubesim::kubeflow {
namespace {

namespace json = boost::json;
using internal::ObjectAt;
using internal::StringAt;

int64_t Generation(const json::object* meta) {
  const json::value* g = meta != nullptr ? meta->if_contains("generation") : nullptr;
  return g != nullptr && g->is_int64() ? g->get_int64() : 0;
}

json::object KueueEvent(const json::object& app, const char* reason, std::string message,
                        const std::string& key, int64_t now_ms) {
  const json::object* meta = ObjectAt(&app, "metadata");
  sim::Involved involved;
  involved.api_version = internal::kApiVersion;
  involved.kind = "SparkApplication";
  if (meta != nullptr) {
    involved.ns = StringAt(*meta, "namespace");
    involved.name = StringAt(*meta, "name");
    involved.uid = StringAt(*meta, "uid");
  }
  sim::EventSpec spec;
  spec.reason = reason;
  spec.message = std::move(message);
  spec.source = {kKueueJobController, ""};
  spec.key = involved.uid + "|" + key;
  spec.first_ms = now_ms;
  return sim::MakeEvent(involved, spec);
}

}  // namespace

sim::WorkloadOwner Owner(const json::object& app) {
  const json::object* meta = ObjectAt(&app, "metadata");
  sim::WorkloadOwner owner;
  owner.api_version = internal::kApiVersion;
  owner.kind = "SparkApplication";
  if (meta != nullptr) {
    owner.ns = StringAt(*meta, "namespace");
    owner.name = StringAt(*meta, "name");
    owner.uid = StringAt(*meta, "uid");
  }
  return owner;
}

std::string KueueWorkloadName(const json::object& app) { return sim::WorkloadName(Owner(app)); }

sim::ObjectWrite KueueWorkload(const json::object& app, bool admitted, int64_t now_ms) {
  const internal::Job job = internal::ReadJob(app);
  const json::object* labels = ObjectAt(ObjectAt(&app, "metadata"), "labels");
  std::vector<sim::WorkloadPodSet> sets;
  sets.push_back({"driver", 1, internal::kDriverContainer, job.driver_cores,
                  internal::PodMemory(job.driver_memory)});
  if (job.executor_instances > 0) {
    sets.push_back({"executor", job.executor_instances, internal::kExecutorContainer,
                    job.executor_cores, internal::PodMemory(job.executor_memory)});
  }
  return sim::WorkloadWrite(Owner(app),
                            labels != nullptr ? StringAt(*labels, kKueueQueueLabel) : "", sets,
                            admitted, now_ms);
}

bool KueuePass(const sim::AppView& view, sim::Actions* out) {
  const json::object& app = *view.app;
  const json::object* meta = ObjectAt(&app, "metadata");
  const json::object* labels = ObjectAt(meta, "labels");
  if (labels == nullptr || !labels->contains(kKueueQueueLabel)) return false;
  if (meta->contains("deletionTimestamp") && !meta->at("deletionTimestamp").is_null()) {
    return false;
  }
  const json::object* status = ObjectAt(&app, "status");
  const json::object* app_state = ObjectAt(status, "applicationState");
  const std::string state = app_state != nullptr ? StringAt(*app_state, "state") : "";
  // A finished job's Workload is finished: Kueue leaves it alone.
  if (state == internal::kCompleted || state == internal::kFailed) return false;
  const json::object* annotations = ObjectAt(meta, "annotations");
  const bool admitted =
      annotations != nullptr && StringAt(*annotations, kKueueAdmittedAnnotation) == "true";
  const json::object* spec = ObjectAt(&app, "spec");
  const json::value* suspend_v = spec != nullptr ? spec->if_contains("suspend") : nullptr;
  const bool suspend = suspend_v != nullptr && suspend_v->is_bool() && suspend_v->get_bool();
  const std::string ns = StringAt(*meta, "namespace");
  const std::string generation = std::to_string(Generation(meta));

  sim::Actions kueue;
  if (status == nullptr) {
    // The job controller creates the Workload as soon as it sees the job.
    kueue.events.push_back(KueueEvent(app, "CreatedWorkload",
                                      "Created Workload: " + ns + "/" + KueueWorkloadName(app),
                                      "created", view.now_ms));
  }
  kueue.write_objects.push_back(KueueWorkload(app, admitted, view.now_ms));
  const std::string started = std::string("Admitted by clusterQueue ") + sim::kKueueClusterQueue;
  if (admitted && suspend) {
    kueue.set_spec["suspend"] = false;
    kueue.events.push_back(
        KueueEvent(app, "Started", started, "started|" + generation, view.now_ms));
  } else if (admitted && status == nullptr) {
    // Admitted before it was ever suspended: it starts at once.
    kueue.events.push_back(
        KueueEvent(app, "Started", started, "started|" + generation, view.now_ms));
  } else if (!admitted && !suspend) {
    // The webhook suspends a new job; a job that runs without admission is stopped.
    kueue.set_spec["suspend"] = true;
    const bool ran = status != nullptr && state != internal::kNew &&
                     state != internal::kSuspending && state != internal::kSuspended;
    if (ran) {
      kueue.events.push_back(KueueEvent(app, "Stopped", "Not admitted by cluster queue",
                                        "stopped|" + generation, view.now_ms));
    }
  }
  const bool changed = !kueue.set_spec.empty();
  if (changed) {
    kueue.requeue_at_ms = view.now_ms + 1;
    *out = std::move(kueue);
    return true;
  }
  for (json::object& e : kueue.events) out->events.push_back(std::move(e));
  for (sim::ObjectWrite& w : kueue.write_objects) out->write_objects.push_back(std::move(w));
  return false;
}

}  // namespace kubesim::kubeflow
