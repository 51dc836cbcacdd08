// A kubeflow/spark-operator SparkApplication's status is written by the operator and anyone with
// edit rights on the resource: the projection, the mapping (with and without the executor's
// driver start timeout) and the driver pick must take any JSON. Input: the application's JSON, then
// optionally a "%%" line and its driver pods' JSON (a pod or a PodList).

#include <string>

#include "fuzz/fuzz_check.h"
#include "rapidjson/document.h"
#include "spark/app_projection.h"
#include "spark/driver_pod.h"
#include "spark/job_status.h"
#include "spark/kubeflow/app_projection.h"
#include "spark/kubeflow/names.h"
#include "spark/kubeflow/status_mapping.h"

namespace spark = kje::spark;
namespace kubeflow = kje::spark::kubeflow;

namespace {

void CheckMapping(const spark::AppProjection& app, const spark::DriverPod* driver) {
  absl::Time now = absl::FromUnixSeconds(1778580000);  // 2026-05-12
  for (absl::Duration timeout :
       {absl::ZeroDuration(), absl::Minutes(10), absl::InfiniteDuration()}) {
    spark::JobStatusInfo info = kubeflow::MapStatus(app, driver, now, timeout, timeout);
    FUZZ_CHECK(!info.start_timed_out ||
               (info.status == spark::JobStatus::kFailed && app.has_status() &&
                kubeflow::ViewOf(app).state == kubeflow::State::kSubmitted &&
                !app.cancel_requested()));
    FUZZ_CHECK(info.is_stopped == kubeflow::IsStopped(app));
    FUZZ_CHECK(info.deleting == app.deleting());
    FUZZ_CHECK(info.operator_state == kubeflow::OperatorState(app));
    FUZZ_CHECK(info.operator_removes_driver);
    FUZZ_CHECK(!info.held);
    FUZZ_CHECK(!info.finished_at.has_value() || spark::IsTerminal(info.status));
    FUZZ_CHECK(!info.no_status_timed_out ||
               (info.status == spark::JobStatus::kFailed && !app.has_status()));
    // Only the operator's own final states, a failed submission nothing retries, a deletion or
    // a timeout end a job.
    if (spark::IsTerminal(info.status)) {
      const kubeflow::KubeflowView view = kubeflow::ViewOf(app);
      FUZZ_CHECK(
          app.deleting() || info.no_status_timed_out || info.start_timed_out ||
          (app.has_status() && kubeflow::IsTerminated(view.state)) ||
          (app.has_status() && view.state == kubeflow::State::kSubmissionFailed && !view.retries));
    }
    if (info.status == spark::JobStatus::kCancelling) FUZZ_CHECK(app.cancel_requested());
    if (info.unknown_state) {
      FUZZ_CHECK(kubeflow::ViewOf(app).state == kubeflow::State::kUnrecognized);
      FUZZ_CHECK(!spark::IsTerminal(info.status) || app.deleting());
    }
    FUZZ_CHECK(info.message.size() <= 1024);
    if (driver != nullptr)
      FUZZ_CHECK(!spark::ShouldDeleteOrphanDriver(info, *driver, app.driver_container()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string_view> parts = kje::fuzz::SplitParts(kje::fuzz::AsText(data, size));
  absl::StatusOr<spark::AppProjection> app = kubeflow::ProjectAppJson(parts[0]);
  if (!app.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(app.status()));
    return 0;
  }
  FUZZ_CHECK(!app->name().empty() && !app->namespace_().empty());
  // Packing loses nothing: the projection unpacked and packed again reads the same.
  FUZZ_CHECK(kubeflow::StatusOf(spark::AppProjection(app->ToFields())).submission_id ==
             kubeflow::ViewOf(*app).submission_id);
  FUZZ_CHECK(app->current_message().size() <= spark::kMaxMessageBytes + 3);
  FUZZ_CHECK(app->unknown_current_state().empty() ==
             (kubeflow::ViewOf(*app).state != kubeflow::State::kUnrecognized));
  FUZZ_CHECK(kubeflow::HasState(*app) == app->has_status());
  FUZZ_CHECK(!kubeflow::IsStopped(*app) || kubeflow::HasState(*app));
  // The name is the app's own bytes; the namespace is interned, shared by its apps and counted
  // in the interner's own bound, not by each app.
  FUZZ_CHECK(app->ApproximateBytes() >= sizeof(spark::AppProjection) + app->name().size());

  CheckMapping(*app, nullptr);
  if (parts.size() > 1) {
    rapidjson::Document pod_doc;
    pod_doc.Parse(parts[1].data(), parts[1].size());
    if (pod_doc.HasParseError()) return 0;
    std::vector<spark::DriverPod> pods = spark::ProjectDriverPods(pod_doc);
    if (absl::StatusOr<spark::DriverPod> single = spark::ProjectDriverPod(pod_doc); single.ok()) {
      pods.push_back(*single);
    }
    const spark::DriverPod* picked = kubeflow::PickDriver(&*app, pods);
    if (picked != nullptr) {
      // Never a pod of another submission, nor one the status doesn't name.
      FUZZ_CHECK(!kubeflow::ViewOf(*app).submission_id.empty());
      FUZZ_CHECK(picked->LabelValue(kubeflow::kLabelSubmissionId) ==
                 kubeflow::ViewOf(*app).submission_id);
      FUZZ_CHECK(kubeflow::ViewOf(*app).driver_pod_name.empty() ||
                 picked->name == kubeflow::ViewOf(*app).driver_pod_name);
    }
    FUZZ_CHECK((kubeflow::PickDriver(nullptr, pods) == nullptr) == pods.empty());
    CheckMapping(*app, picked);
  }
  return 0;
}
