#include "executor/backend.h"
#include "spark/kubeflow/app_builder.h"
#include "spark/kubeflow/app_projection.h"
#include "spark/kubeflow/names.h"
#include "spark/kubeflow/schedule_builder.h"
#include "spark/kubeflow/status_mapping.h"
#include "spark/names.h"

namespace kje::executor {
namespace {

class KubeflowSparkBackend final : public OperatorBackend {
 public:
  explicit KubeflowSparkBackend(absl::Duration driver_start_timeout)
      : driver_start_timeout_(driver_start_timeout) {}

  std::string_view Name() const override { return spark::kubeflow::kApiVersion; }

  k8s::ResourceRef Applications(std::string_view ns) const override {
    return k8s::ResourceRef{std::string(spark::kubeflow::kGroup),
                            std::string(spark::kubeflow::kVersion),
                            std::string(spark::kubeflow::kPlural),
                            std::string(ns),
                            "",
                            ""};
  }

  // The same labels as on the Apache operator's apps: the executor's, not the operator's.
  std::string ManagedSelector() const override { return spark::ManagedAppSelector(); }

  absl::StatusOr<spark::BuiltApplication> Build(
      std::string_view job_id, std::string_view metalake, const spark::SparkTemplate& job,
      const spark::BuilderOptions& options) const override {
    return spark::kubeflow::BuildSparkApplication(job_id, metalake, job, options);
  }

  absl::StatusOr<spark::AppProjection> Project(const rapidjson::Value& app) const override {
    return spark::kubeflow::ProjectApp(app);
  }

  spark::JobStatusInfo MapStatus(const spark::AppProjection& app, const spark::DriverPod* driver,
                                 absl::Time now, absl::Duration no_status_timeout) const override {
    return spark::kubeflow::MapStatus(app, driver, now, no_status_timeout, driver_start_timeout_);
  }

  std::string DriverSelector(std::string_view app_name) const override {
    return spark::kubeflow::DriverPodSelector(app_name);
  }

  const spark::DriverPod* PickDriver(const spark::AppProjection* app,
                                     const std::vector<spark::DriverPod>& pods) const override {
    return spark::kubeflow::PickDriver(app, pods);
  }

  std::string CancelPatch() const override { return spark::CancelRequestPatch(); }

  std::optional<k8s::ResourceRef> Schedules(std::string_view ns) const override {
    return k8s::ResourceRef{std::string(spark::kubeflow::kGroup),
                            std::string(spark::kubeflow::kVersion),
                            std::string(spark::kubeflow::kScheduledPlural),
                            std::string(ns),
                            "",
                            ""};
  }

 private:
  const absl::Duration driver_start_timeout_;
};

}  // namespace

std::unique_ptr<OperatorBackend> NewKubeflowSparkBackend(absl::Duration driver_start_timeout) {
  return std::make_unique<KubeflowSparkBackend>(driver_start_timeout);
}

}  // namespace kje::executor
