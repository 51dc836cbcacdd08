#include "spark/kubeflow/backend.h"

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "spark/kubeflow/app_builder.h"
#include "spark/kubeflow/app_projection.h"
#include "spark/kubeflow/names.h"
#include "spark/kubeflow/schedule_builder.h"
#include "spark/kubeflow/schedule_projection.h"
#include "spark/kubeflow/status_mapping.h"
#include "spark/names.h"

namespace kje::spark::kubeflow {
namespace {

// ScheduledSparkApplications, run by the operator's own controller.
class ScheduledApps final : public ScheduleBackend {
 public:
  std::string_view KindName() const override { return kScheduledKind; }
  absl::Status CheckSpec(const ScheduleSpec& spec) const override {
    return CheckScheduleSpec(spec);
  }
  absl::Status CheckName(std::string_view name) const override { return CheckScheduleName(name); }
  absl::StatusOr<BuiltObject> Build(const ScheduleMeta& meta, const ScheduleSpec& spec,
                                    std::string_view application_json) const override {
    return BuildScheduledApplication(meta, spec, application_json);
  }
  absl::StatusOr<Schedule> Project(const rapidjson::Value& schedule) const override {
    return ProjectSchedule(schedule);
  }
  absl::StatusOr<std::string> UpdatePatch(const ScheduleUpdate& update) const override {
    return BuildScheduleUpdatePatch(update);
  }
  // The controller keeps a nextRun it has set until it fires, and never leaves FailedValidation
  // by itself, even for a fixed spec.
  std::optional<std::string> ReschedulePatch(const ScheduleUpdate& update,
                                             const Schedule& stored) const override {
    if (!MovesNextRun(update) && !stored.refused) return std::nullopt;
    return BuildRescheduleStatusPatch(stored.refused);
  }
  std::string RunsSelector(std::string_view name) const override {
    return absl::StrCat(ToAbsl(kLabelScheduledAppName), "=", ToAbsl(name));
  }
  absl::StatusOr<std::string> RunName(std::string_view schedule_name,
                                      std::string_view run_id) const override {
    return ManualRunName(schedule_name, run_id);
  }
  absl::StatusOr<BuiltObject> BuildRun(std::string_view schedule_json,
                                       std::string_view run_id) const override {
    return BuildManualRunJson(schedule_json, run_id);
  }
  absl::Status CheckRunAdoption(const AppProjection& existing,
                                std::string_view schedule_name) const override {
    return CheckManualRunAdoption(existing, schedule_name);
  }
};

class Backend final : public OperatorBackend {
 public:
  explicit Backend(absl::Duration driver_start_timeout)
      : driver_start_timeout_(driver_start_timeout) {}

  std::string_view Name() const override { return kApiVersion; }

  ResourceKind Applications() const override { return {kGroup, kVersion, kPlural}; }

  // The same labels as on the Apache operator's apps: the executor's, not the operator's.
  std::string ManagedSelector() const override { return ManagedAppSelector(); }

  absl::StatusOr<BuiltApplication> Build(std::string_view job_id, std::string_view metalake,
                                         const SparkTemplate& job,
                                         const BuilderOptions& options) const override {
    return kubeflow::BuildSparkApplication(job_id, metalake, job, options);
  }

  absl::StatusOr<AppProjection> Project(const rapidjson::Value& app) const override {
    return kubeflow::ProjectApp(app);
  }

  JobStatusInfo MapStatus(const AppProjection& app, const DriverPod* driver, absl::Time now,
                          absl::Duration no_status_timeout) const override {
    return kubeflow::MapStatus(app, driver, now, no_status_timeout, driver_start_timeout_);
  }

  bool HasState(const AppProjection& app) const override { return kubeflow::HasState(app); }
  bool IsStopped(const AppProjection& app) const override { return kubeflow::IsStopped(app); }
  RunDetailsRef RunDetailsOf(const AppProjection& app) const override {
    return kubeflow::RunDetailsOf(app);
  }
  // Its status says when the submission was made, not when the driver started.
  bool WantsDriverTimes(const AppProjection& app) const override {
    return kubeflow::IsStopped(app) || (app.has_status() && kubeflow::IsStarted(app));
  }
  // A stopped app's driver is looked up again once (its end is new); a running one's start holds
  // for the whole submission, whatever else its status updates.
  std::string_view DriverEpoch(const AppProjection& app) const override {
    return kubeflow::IsStopped(app) ? app.resource_version() : ViewOf(app).submission_id;
  }

  std::string DriverSelector(std::string_view app_name) const override {
    return kubeflow::DriverPodSelector(app_name);
  }
  std::string ExecutorSelector(std::string_view app_name, int executor_id) const override {
    return absl::StrCat(ToAbsl(kLabelAppName), "=", ToAbsl(app_name), ",",
                        ExecutorIdRequirements(executor_id));
  }

  const DriverPod* PickDriver(const AppProjection* app,
                              const std::vector<DriverPod>& pods) const override {
    return kubeflow::PickDriver(app, pods);
  }

  // The service sets no spec.driver.podName: every attempt's driver is `<app>-driver`.
  std::string DriverPodName(std::string_view /*namespace_*/, std::string_view app_name,
                            int64_t /*attempt*/) const override {
    return kubeflow::DriverPodName(app_name);
  }

  std::string CancelPatch() const override { return CancelRequestPatch(); }
  // Suspended, the operator deletes the driver and parks the app; v2.5.2 leaves the executors
  // (they have the app as a second owner), so the service deletes them.
  std::string KeptStopSpecPatch() const override { return R"({"suspend":true})"; }
  std::string KeptStopPodSelector(std::string_view app_name) const override {
    return kubeflow::ExecutorPodSelector(app_name);
  }

  absl::Status CheckServerConf(std::string_view key) const override {
    if (!IsDeniedConfKey(key)) return absl::OkStatus();
    return absl::InvalidArgumentError(
        "isn't allowed with operator kubeflow: the operator's webhook refuses it (the image is "
        "spark.image, the service account spark.serviceAccount)");
  }

  std::optional<ResourceKind> ScheduleKind() const override {
    return ResourceKind{kGroup, kVersion, kScheduledPlural};
  }
  const ScheduleBackend* Schedules() const override { return &schedules_; }

 private:
  const absl::Duration driver_start_timeout_;
  const ScheduledApps schedules_;
};

}  // namespace

std::unique_ptr<OperatorBackend> NewBackend(absl::Duration driver_start_timeout) {
  return std::make_unique<Backend>(driver_start_timeout);
}

}  // namespace kje::spark::kubeflow
