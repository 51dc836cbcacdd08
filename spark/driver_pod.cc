#include "spark/driver_pod.h"

#include "spark/json_util.h"
#include "spark/names.h"

namespace kje::spark {

ContainerTimes DriverContainerTimes(const rapidjson::Value& pod_status) {
  const rapidjson::Value* statuses = json::Member(pod_status, "containerStatuses");
  if (statuses == nullptr || !statuses->IsArray()) return {};
  const rapidjson::Value* driver = nullptr;
  if (statuses->Size() == 1) {
    driver = &(*statuses)[0];
  } else {
    for (const rapidjson::Value& status : statuses->GetArray()) {
      if (json::String(&status, "name") == kDriverContainerName) {
        driver = &status;
        break;
      }
    }
  }
  if (driver == nullptr) return {};
  const rapidjson::Value* state = json::Member(driver, "state");
  const rapidjson::Value* terminated = json::Member(state, "terminated");
  ContainerTimes times;
  times.started = json::Time(terminated, "startedAt");
  if (times.started == kNoTime)
    times.started = json::Time(json::Member(state, "running"), "startedAt");
  times.finished = json::Time(terminated, "finishedAt");
  return times;
}

bool DriverPod::IsAlive() const { return phase != "Succeeded" && phase != "Failed"; }

absl::StatusOr<DriverPod> ProjectDriverPod(const rapidjson::Value& pod) {
  const rapidjson::Value* metadata = json::Member(pod, "metadata");
  std::optional<std::string_view> name = json::String(metadata, "name");
  if (!name) return absl::InvalidArgumentError("A pod without metadata.name");
  DriverPod driver;
  driver.name = std::string(*name);
  driver.creation_time = json::Time(metadata, "creationTimestamp");
  driver.deleting = json::String(metadata, "deletionTimestamp").has_value();
  const rapidjson::Value* status = json::Member(pod, "status");
  driver.phase = std::string(json::String(status, "phase").value_or(""));
  const rapidjson::Value* containers = json::Member(json::Member(pod, "spec"), "containers");
  if (containers != nullptr && containers->IsArray()) {
    for (const rapidjson::Value& container : containers->GetArray()) {
      if (auto container_name = json::String(&container, "name")) {
        driver.container_names.emplace_back(*container_name);
      }
    }
  }
  if (status != nullptr) driver.driver = DriverContainerTimes(*status);
  return driver;
}

std::vector<DriverPod> ProjectDriverPods(const rapidjson::Value& pod_list) {
  std::vector<DriverPod> pods;
  const rapidjson::Value* items = json::Member(pod_list, "items");
  if (items == nullptr || !items->IsArray()) return pods;
  for (const rapidjson::Value& item : items->GetArray()) {
    absl::StatusOr<DriverPod> pod = ProjectDriverPod(item);
    if (pod.ok()) pods.push_back(*std::move(pod));
  }
  return pods;
}

const DriverPod* PickNewestDriver(const std::vector<DriverPod>& pods) {
  const DriverPod* newest = nullptr;
  for (const DriverPod& pod : pods) {
    if (newest == nullptr || pod.creation_time > newest->creation_time) newest = &pod;
  }
  return newest;
}

std::optional<std::string> LogContainer(const DriverPod& pod) {
  if (pod.container_names.size() <= 1) return std::nullopt;
  for (const std::string& name : pod.container_names) {
    if (name == kDriverContainerName) return name;
  }
  return std::nullopt;
}

}  // namespace kje::spark
