#pragma once

// The driver pod of a SparkApplication: found by labels (the operator may hash-truncate its
// name), projected to what Status and Output need.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "rapidjson/document.h"
#include "spark/time_util.h"

namespace kje::spark {

struct ContainerTimes {
  EpochMillis started = kNoTime;   // terminated.startedAt, else running.startedAt
  EpochMillis finished = kNoTime;  // terminated.finishedAt
};

// The name of the container an application's driver runs in, from its spec (`app_spec` may be
// null): sparkConf spark.kubernetes.driver.podTemplateContainerName when set, else the name of the
// first container of driverSpec.podTemplateSpec (Spark makes that one the driver and keeps its
// name), else spark-kubernetes-driver.
std::string DriverContainerName(const rapidjson::Value* app_spec);
// The same rule for any operator: `spark_conf` is the app's Spark conf object and
// `driver_pod_spec` the spec of its driver pod template (either may be null).
std::string DriverContainerName(const rapidjson::Value* spark_conf,
                                const rapidjson::Value* driver_pod_spec);

// The driver container's times in a core/v1 PodStatus (a pod's status, or an operator state's
// lastObservedDriverStatus). The driver container is the only container status when there is
// exactly one (even if renamed), else the one named `driver_container` ("" means
// spark-kubernetes-driver); with sidecars and no such name it is unknown and both times are
// absent.
ContainerTimes DriverContainerTimes(const rapidjson::Value& pod_status,
                                    std::string_view driver_container = "");

// What a container status says about the container.
enum class ContainerRun { kUnknown, kWaiting, kRunning, kTerminated };

struct ContainerStatus {
  std::string name;
  ContainerRun run = ContainerRun::kUnknown;
  ContainerTimes times;
  // Once terminated: state.terminated.exitCode, and its message (with FallbackToLogsOnError,
  // the log's last lines when the container failed without a termination message file).
  std::optional<int32_t> exit_code;
  std::string termination_message;
};

// Something the pod waits on, from its status: its PodScheduled condition false (`container`
// empty), or a container (or init container) waiting with a reason other than the usual
// ContainerCreating and PodInitializing.
struct PodHold {
  std::string container;
  std::string reason;
  std::string message;  // capped
};

struct DriverPod {
  std::string name;
  std::string uid;  // metadata.uid
  EpochMillis creation_time = kNoTime;
  std::string phase;                         // status.phase, "" when absent
  std::vector<std::string> container_names;  // spec.containers[].name
  std::vector<ContainerStatus> containers;   // status.containerStatuses
  // The container the driver runs in (DriverContainerName of the app); ProjectDriverPod without
  // one assumes spark-kubernetes-driver.
  std::string driver_container;
  ContainerTimes driver;  // the times of driver_container, from status.containerStatuses
  bool deleting = false;
  // metadata.labels (string values), for operators that mark the attempt a pod belongs to.
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<PodHold> holds;  // empty for a pod that waits on nothing
  // The port Spark's UI listens on: the containerPort Spark names "spark-ui" (from
  // spark.ui.port); 0 when the pod declares none.
  int ui_port = 0;

  // The value of label `key`; "" when absent.
  std::string_view LabelValue(std::string_view key) const;
  // Whether the driver may still run the job: not when the pod phase is Succeeded or Failed;
  // otherwise the driver container decides (a sidecar that keeps the pod Running doesn't keep a
  // finished driver alive), and when it can't be told, alive. `driver_container` "" means the
  // pod's own driver_container.
  bool IsAlive() const;
  bool IsAlive(std::string_view driver_container) const;
  // The driver container's times when the driver runs in `driver_container` ("" as above).
  ContainerTimes DriverTimes(std::string_view driver_container) const;
  // The status of the driver container (see DriverContainerTimes), or nullptr.
  const ContainerStatus* DriverStatus(std::string_view driver_container) const;
};

// INVALID_ARGUMENT when the value isn't an object with metadata.name. `driver_container` is the
// app's DriverContainerName ("" = spark-kubernetes-driver).
absl::StatusOr<DriverPod> ProjectDriverPod(const rapidjson::Value& pod,
                                           std::string_view driver_container = "");
// Projects every item of a PodList's `items`; items that don't project are skipped.
std::vector<DriverPod> ProjectDriverPods(const rapidjson::Value& pod_list,
                                         std::string_view driver_container = "");

// The newest pod by creationTimestamp (pods without one count as oldest; the first of equals
// wins); nullptr when `pods` is empty. A restarted or re-created app can briefly have the
// previous attempt's driver still terminating.
const DriverPod* PickNewestDriver(const std::vector<DriverPod>& pods);

// The container to name when reading the driver's log: the driver container only when the pod
// has more than one container and one of them has that name (sidecars); otherwise none, and
// Kubernetes picks the pod's only container. The one-argument form uses pod.driver_container.
std::optional<std::string> LogContainer(const DriverPod& pod);
std::optional<std::string> LogContainer(const DriverPod& pod, std::string_view driver_container);

}  // namespace kje::spark
