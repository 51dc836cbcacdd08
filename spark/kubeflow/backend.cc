#include "spark/kubeflow/backend.h"

#include "absl/strings/str_cat.h"
#include "spark/kubeflow/app_builder.h"
#include "spark/kubeflow/app_projection.h"
#include "spark/kubeflow/names.h"
#include "spark/kubeflow/schedule_builder.h"
#include "spark/kubeflow/status_mapping.h"
#include "spark/names.h"

namespace kje::spark::kubeflow {
namespace {

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

  bool HasState(const AppProjection& app) const override { return spark::HasState(app); }
  bool IsStopped(const AppProjection& app) const override { return spark::IsStopped(app); }
  RunDetails RunDetailsOf(const AppProjection& app) const override {
    return spark::RunDetailsOf(app);
  }

  std::string DriverSelector(std::string_view app_name) const override {
    return kubeflow::DriverPodSelector(app_name);
  }

  const DriverPod* PickDriver(const AppProjection* app,
                              const std::vector<DriverPod>& pods) const override {
    return kubeflow::PickDriver(app, pods);
  }

  std::string CancelPatch() const override { return CancelRequestPatch(); }

  absl::Status CheckServerConf(std::string_view key) const override {
    if (!IsDeniedConfKey(key)) return absl::OkStatus();
    return absl::InvalidArgumentError(
        "isn't allowed with operator kubeflow: the operator's webhook refuses it (the image is "
        "spark.image, the service account spark.serviceAccount)");
  }

  std::optional<ResourceKind> Schedules() const override {
    return ResourceKind{kGroup, kVersion, kScheduledPlural};
  }

 private:
  const absl::Duration driver_start_timeout_;
};

}  // namespace

std::unique_ptr<OperatorBackend> NewBackend(absl::Duration driver_start_timeout) {
  return std::make_unique<Backend>(driver_start_timeout);
}

}  // namespace kje::spark::kubeflow
