#include "spark/apache/backend.h"

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "spark/apache/app_builder.h"
#include "spark/apache/app_projection.h"
#include "spark/apache/names.h"
#include "spark/apache/run_details.h"
#include "spark/apache/status_mapping.h"
#include "spark/names.h"

namespace kje::spark::apache {
namespace {

class Backend final : public OperatorBackend {
 public:
  std::string_view Name() const override { return "spark.apache.org/v1"; }

  ResourceKind Applications() const override { return {kGroup, kVersion, kPlural}; }

  std::string ManagedSelector() const override { return ManagedAppSelector(); }

  absl::StatusOr<BuiltApplication> Build(std::string_view job_id, std::string_view metalake,
                                         const SparkTemplate& job,
                                         const BuilderOptions& options) const override {
    return BuildSparkApplication(job_id, metalake, job, options);
  }

  absl::StatusOr<AppProjection> Project(const rapidjson::Value& app) const override {
    return apache::ProjectApp(app);
  }

  JobStatusInfo MapStatus(const AppProjection& app, const DriverPod* driver, absl::Time now,
                          absl::Duration no_status_timeout) const override {
    return apache::MapStatus(app, driver, now, no_status_timeout);
  }

  bool HasState(const AppProjection& app) const override { return apache::HasState(app); }
  bool IsStopped(const AppProjection& app) const override { return apache::IsStopped(app); }
  RunDetailsRef RunDetailsOf(const AppProjection& app) const override {
    return apache::RunDetailsOf(app);
  }

  std::string DriverSelector(std::string_view app_name) const override {
    return DriverPodSelector(app_name);
  }
  // The operator labels executors as it labels the driver (spark.operator/spark-app-name).
  std::string ExecutorSelector(std::string_view app_name, int executor_id) const override {
    return absl::StrCat(ToAbsl(kLabelSparkAppName), "=", ToAbsl(app_name), ",",
                        ExecutorIdRequirements(executor_id));
  }

  const DriverPod* PickDriver(const AppProjection* app,
                              const std::vector<DriverPod>& pods) const override {
    // A restarted attempt's driver is a new pod, labelled with that attempt's Spark app id; the
    // previous one may still be terminating. Until the new one exists, the newest is shown.
    if (app != nullptr && app->has_status()) {
      const RunDetailsRef details = apache::RunDetailsOf(*app);
      const DriverPod* current = nullptr;
      for (const DriverPod& pod : pods) {
        if (pod.LabelValue(kLabelSparkAppSelector) != details.spark_app_id()) continue;
        if (current == nullptr || pod.creation_time > current->creation_time) current = &pod;
      }
      if (current != nullptr) return current;
    }
    return PickNewestDriver(pods);
  }

  // Each attempt's driver is `<attempt's app id>-driver`.
  std::string DriverPodName(std::string_view namespace_, std::string_view app_name,
                            int64_t attempt) const override {
    return ApacheSparkAppId(namespace_, app_name, attempt) + "-driver";
  }

  OperatorEventReason WaitingEventReasons() const override { return &WaitingEventReason; }
  std::string CancelPatch() const override { return CancelRequestPatch(); }
  // No suspend here: the driver's deletion ends the attempt (Failed "Driver removed", then
  // ResourceReleased), and only a restart policy of Never keeps the operator from starting
  // another; it reads the policy when the attempt ends, so the mark sets it.
  std::string KeptStopSpecPatch() const override {
    return R"({"applicationTolerations":{"restartConfig":{"restartPolicy":"Never"}}})";
  }
  std::string KeptStopPodSelector(std::string_view app_name) const override {
    return DriverPodSelector(app_name);
  }
};

}  // namespace

std::unique_ptr<OperatorBackend> NewBackend() { return std::make_unique<Backend>(); }

}  // namespace kje::spark::apache
