#pragma once

// The seam between the executor and a Spark operator: which resource a job is, how it is built
// from a template, how its status reads, how its driver is found. The executor and the cache
// work on these answers only: each operator is one implementation.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "k8s/resource.h"
#include "spark/app_builder.h"
#include "spark/app_projection.h"
#include "spark/driver_pod.h"
#include "spark/status_mapping.h"

namespace kje::executor {

class OperatorBackend {
 public:
  virtual ~OperatorBackend() = default;

  // e.g. "spark.apache.org/v1"; for logs and errors.
  virtual std::string_view Name() const = 0;
  // The collection of the operator's applications in `ns` (no name).
  virtual k8s::ResourceRef Applications(std::string_view ns) const = 0;
  // The label selector of the applications this service manages.
  virtual std::string ManagedSelector() const = 0;
  virtual absl::StatusOr<spark::BuiltApplication> Build(
      std::string_view job_id, std::string_view metalake, const spark::SparkTemplate& job,
      const spark::BuilderOptions& options) const = 0;
  // An application object as the API server returned it.
  virtual absl::StatusOr<spark::AppProjection> Project(const rapidjson::Value& app) const = 0;
  // The same from its JSON text (the answer to a create, a get, a patch).
  absl::StatusOr<spark::AppProjection> ProjectJson(std::string_view json) const;
  virtual spark::JobStatusInfo MapStatus(const spark::AppProjection& app,
                                         const spark::DriverPod* driver, absl::Time now,
                                         absl::Duration no_status_timeout) const = 0;
  // The label selector of an application's driver pods.
  virtual std::string DriverSelector(std::string_view app_name) const = 0;
  // The driver among an application's driver pods (DriverSelector's answer); nullptr when none
  // is its current driver. `app` is null when the application isn't known.
  virtual const spark::DriverPod* PickDriver(const spark::AppProjection* app,
                                             const std::vector<spark::DriverPod>& pods) const = 0;
  // The merge patch that marks an application as cancelled by us.
  virtual std::string CancelPatch() const = 0;
  // The collection of the operator's schedules (ScheduledSparkApplications) in `ns`; nullopt
  // for an operator without them.
  virtual std::optional<k8s::ResourceRef> Schedules(std::string_view /*ns*/) const {
    return std::nullopt;
  }
};

// apache/spark-kubernetes-operator, spark.apache.org/v1.
std::unique_ptr<OperatorBackend> NewApacheSparkBackend();
// kubeflow/spark-operator, sparkoperator.k8s.io/v1beta2. That operator has no driver start
// timeout: a driver still not started `driver_start_timeout` after its submission fails the job
// (JobStatusInfo::start_timed_out).
std::unique_ptr<OperatorBackend> NewKubeflowSparkBackend(
    absl::Duration driver_start_timeout = absl::InfiniteDuration());

}  // namespace kje::executor
