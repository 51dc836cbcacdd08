#pragma once

// The seam between the service and a Spark operator: which resource a job is, how it is built
// from a template, how its status reads, how its driver is found, and whether the operator has
// schedules. The executor and the cache work on these answers only. Each operator is a folder
// under spark/ with one implementation; spark/operators.h picks one by name. Pure: no I/O, and
// the Kubernetes references are the executor's to make from the kinds named here.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "rapidjson/document.h"
#include "spark/app_projection.h"
#include "spark/driver_pod.h"
#include "spark/job_status.h"
#include "spark/job_template.h"
#include "spark/run_details.h"
#include "spark/schedule.h"
#include "spark/waiting.h"

namespace kje::spark {

// A namespaced collection of the API server: group (empty for the core group), version and
// resource (plural).
struct ResourceKind {
  std::string_view group;
  std::string_view version;
  std::string_view plural;
};

class OperatorBackend {
 public:
  virtual ~OperatorBackend() = default;

  // The applications' API version (group/version); for logs and errors.
  virtual std::string_view Name() const = 0;
  // The operator's applications.
  virtual ResourceKind Applications() const = 0;
  // The label selector of the applications this service manages.
  virtual std::string ManagedSelector() const = 0;
  virtual absl::StatusOr<BuiltApplication> Build(std::string_view job_id, std::string_view metalake,
                                                 const SparkTemplate& job,
                                                 const BuilderOptions& options) const = 0;
  // An application object as the API server returned it.
  virtual absl::StatusOr<AppProjection> Project(const rapidjson::Value& app) const = 0;
  // The same from its JSON text (the answer to a create, a get, a patch).
  absl::StatusOr<AppProjection> ProjectJson(std::string_view json) const;
  virtual JobStatusInfo MapStatus(const AppProjection& app, const DriverPod* driver, absl::Time now,
                                  absl::Duration no_status_timeout) const = 0;
  // Whether the application has any state: none means the operator hasn't reconciled it.
  virtual bool HasState(const AppProjection& app) const = 0;
  // Whether the current state is an outcome or a stopped state; a stopped app has a state.
  virtual bool IsStopped(const AppProjection& app) const = 0;
  // Whether the driver pod's container times are worth a lookup (the executor remembers them per
  // application version): a stopped app's exact end, and, on an operator whose status has no
  // driver start of its own, a started app's start.
  virtual bool WantsDriverTimes(const AppProjection& app) const { return IsStopped(app); }
  // What a remembered driver lookup holds for: while the app's epoch is the same, its driver's
  // times are. By default one version of the app; an operator that looks drivers up while they
  // run keeps a running one for its whole submission (its start doesn't move).
  virtual std::string_view DriverEpoch(const AppProjection& app) const {
    return app.resource_version();
  }
  // The Spark application id, attempts and driver UI the operator reports for the current run.
  // Read in place: the strings are the app's (RunDetailsRef).
  virtual RunDetailsRef RunDetailsOf(const AppProjection& app) const = 0;
  // The label selector of an application's driver pods.
  virtual std::string DriverSelector(std::string_view app_name) const = 0;
  // The label selector of the pods of an application's Spark executor `executor_id` (>= 1): the
  // operator's label for the application's pods, with Spark's role and executor id.
  virtual std::string ExecutorSelector(std::string_view app_name, int executor_id) const = 0;
  // The driver among an application's driver pods (DriverSelector's answer); nullptr when none
  // is its current driver. `app` is null when the application isn't known.
  virtual const DriverPod* PickDriver(const AppProjection* app,
                                      const std::vector<DriverPod>& pods) const = 0;
  // The name the operator gives the driver pod of attempt `attempt` (0 the first) of application
  // `namespace_`/`app_name`: how a driver's Events are found once neither the pod nor the
  // application is left to say (the cluster keeps Events an hour after their last write).
  virtual std::string DriverPodName(std::string_view namespace_, std::string_view app_name,
                                    int64_t attempt) const = 0;
  // How the reasons of the Events this operator records on its applications say why a job waits
  // (spark/waiting.h); null when it records none that do.
  virtual OperatorEventReason WaitingEventReasons() const { return nullptr; }
  // The merge patch that marks an application as cancelled by us.
  virtual std::string CancelPatch() const = 0;
  // Keep mode (spark/cancel_keep.h): what is merged into the spec with the mark (a JSON object,
  // "" for nothing) so that the operator stops the run and starts no other, and the pods the
  // service deletes itself to stop it (a label selector).
  virtual std::string KeptStopSpecPatch() const = 0;
  virtual std::string KeptStopPodSelector(std::string_view app_name) const = 0;
  // A server-level Spark conf default (`spark.conf.<key>`) the operator can't take: the reason,
  // for the configuration's error; OK when it can.
  virtual absl::Status CheckServerConf(std::string_view /*key*/) const { return absl::OkStatus(); }
  // The operator's schedule resources and what reads and writes them; nullopt and null for an
  // operator without schedules.
  virtual std::optional<ResourceKind> ScheduleKind() const { return std::nullopt; }
  virtual const ScheduleBackend* Schedules() const { return nullptr; }
};

}  // namespace kje::spark
