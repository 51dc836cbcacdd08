#include "executor/backend.h"
#include "spark/names.h"

namespace kje::executor {
namespace {

class ApacheSparkBackend final : public OperatorBackend {
 public:
  std::string_view Name() const override { return "spark.apache.org/v1"; }

  k8s::ResourceRef Applications(std::string_view ns) const override {
    return k8s::ResourceRef{std::string(spark::kGroup),
                            std::string(spark::kVersion),
                            std::string(spark::kPlural),
                            std::string(ns),
                            "",
                            ""};
  }

  std::string ManagedSelector() const override { return spark::ManagedAppSelector(); }

  absl::StatusOr<spark::BuiltApplication> Build(
      std::string_view job_id, std::string_view metalake, const spark::SparkTemplate& job,
      const spark::BuilderOptions& options) const override {
    return spark::BuildSparkApplication(job_id, metalake, job, options);
  }

  absl::StatusOr<spark::AppProjection> Project(const rapidjson::Value& app) const override {
    return spark::ProjectApp(app);
  }

  spark::JobStatusInfo MapStatus(const spark::AppProjection& app, const spark::DriverPod* driver,
                                 absl::Time now, absl::Duration no_status_timeout) const override {
    return spark::MapStatus(app, driver, now, no_status_timeout);
  }

  std::string DriverSelector(std::string_view app_name) const override {
    return spark::DriverPodSelector(app_name);
  }

  const spark::DriverPod* PickDriver(const spark::AppProjection* /*app*/,
                                     const std::vector<spark::DriverPod>& pods) const override {
    // A restarted attempt's driver has a new pod; the previous one may still be terminating.
    return spark::PickNewestDriver(pods);
  }

  std::string CancelPatch() const override { return spark::CancelRequestPatch(); }
};

}  // namespace

absl::StatusOr<spark::AppProjection> OperatorBackend::ProjectJson(std::string_view json) const {
  return spark::ProjectJsonWith(json, [this](const rapidjson::Value& app) { return Project(app); });
}

std::unique_ptr<OperatorBackend> NewApacheSparkBackend() {
  return std::make_unique<ApacheSparkBackend>();
}

}  // namespace kje::executor
