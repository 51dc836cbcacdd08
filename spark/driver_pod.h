#pragma once

// The driver pod of a SparkApplication: found by labels (the operator may hash-truncate its
// name), projected to what Status and Output need.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "rapidjson/document.h"
#include "spark/time_util.h"

namespace kje::spark {

struct ContainerTimes {
  EpochMillis started = kNoTime;   // terminated.startedAt, else running.startedAt
  EpochMillis finished = kNoTime;  // terminated.finishedAt
};

// The driver container's times in a core/v1 PodStatus (a pod's status, or an operator state's
// lastObservedDriverStatus). The driver container is the only container status when there is
// exactly one (even if renamed), else the one named spark-kubernetes-driver; with sidecars and
// no such name it is unknown and both times are absent.
ContainerTimes DriverContainerTimes(const rapidjson::Value& pod_status);

struct DriverPod {
  std::string name;
  EpochMillis creation_time = kNoTime;
  std::string phase;                         // status.phase, "" when absent
  std::vector<std::string> container_names;  // spec.containers[].name
  ContainerTimes driver;                     // from status.containerStatuses
  bool deleting = false;

  // Pending, Running, Unknown or no phase: the driver may still run the job.
  bool IsAlive() const;
};

// INVALID_ARGUMENT when the value isn't an object with metadata.name.
absl::StatusOr<DriverPod> ProjectDriverPod(const rapidjson::Value& pod);
// Projects every item of a PodList's `items`; items that don't project are skipped.
std::vector<DriverPod> ProjectDriverPods(const rapidjson::Value& pod_list);

// The newest pod by creationTimestamp (pods without one count as oldest; the first of equals
// wins); nullptr when `pods` is empty. A restarted or re-created app can briefly have the
// previous attempt's driver still terminating.
const DriverPod* PickNewestDriver(const std::vector<DriverPod>& pods);

// The container to name when reading the driver's log: spark-kubernetes-driver only when the pod
// has more than one container and one of them has that name (sidecars); otherwise none, and
// Kubernetes picks the pod's only container.
std::optional<std::string> LogContainer(const DriverPod& pod);

}  // namespace kje::spark
