#include "spark/driver_pod.h"

#include "absl/strings/ascii.h"
#include "base/strings.h"
#include "spark/app_projection.h"
#include "spark/json_util.h"
#include "spark/names.h"

namespace kje::spark {
namespace {

std::string_view OrDefault(std::string_view driver_container) {
  return driver_container.empty() ? kDriverContainerName : driver_container;
}

// The only container status, else the one named `driver_container`; nullptr when unknown.
const rapidjson::Value* FindDriverStatus(const rapidjson::Value& pod_status,
                                         std::string_view driver_container) {
  const rapidjson::Value* statuses = json::Member(pod_status, "containerStatuses");
  if (statuses == nullptr || !statuses->IsArray()) return nullptr;
  if (statuses->Size() == 1) return &(*statuses)[0];
  for (const rapidjson::Value& status : statuses->GetArray()) {
    if (json::String(&status, "name") == driver_container) return &status;
  }
  return nullptr;
}

ContainerTimes TimesOf(const rapidjson::Value* container_status) {
  const rapidjson::Value* state = json::Member(container_status, "state");
  const rapidjson::Value* terminated = json::Member(state, "terminated");
  ContainerTimes times;
  times.started = json::Time(terminated, "startedAt");
  if (times.started == kNoTime) {
    times.started = json::Time(json::Member(state, "running"), "startedAt");
  }
  times.finished = json::Time(terminated, "finishedAt");
  return times;
}

ContainerRun RunOf(const rapidjson::Value* container_status) {
  const rapidjson::Value* state = json::Member(container_status, "state");
  // A container status can carry more than one key during a transition: terminated wins.
  if (json::Member(state, "terminated") != nullptr) return ContainerRun::kTerminated;
  if (json::Member(state, "running") != nullptr) return ContainerRun::kRunning;
  if (json::Member(state, "waiting") != nullptr) return ContainerRun::kWaiting;
  return ContainerRun::kUnknown;
}

// The usual steps of a starting container, not something it is stuck on.
bool IsStartingStep(std::string_view reason) {
  return reason.empty() || reason == "ContainerCreating" || reason == "PodInitializing";
}

void ReadHolds(const rapidjson::Value* status, std::vector<PodHold>& holds) {
  if (const rapidjson::Value* conditions = json::Member(status, "conditions");
      conditions != nullptr && conditions->IsArray()) {
    for (const rapidjson::Value& condition : conditions->GetArray()) {
      if (json::String(&condition, "type") != "PodScheduled" ||
          json::String(&condition, "status") != "False") {
        continue;
      }
      holds.push_back(PodHold{"", std::string(json::String(&condition, "reason").value_or("")),
                              CapMessage(json::String(&condition, "message").value_or(""))});
    }
  }
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const rapidjson::Value* statuses = json::Member(status, list);
    if (statuses == nullptr || !statuses->IsArray()) continue;
    for (const rapidjson::Value& item : statuses->GetArray()) {
      const rapidjson::Value* waiting = json::Member(json::Member(&item, "state"), "waiting");
      std::string_view reason = json::String(waiting, "reason").value_or("");
      if (waiting == nullptr || IsStartingStep(reason)) continue;
      holds.push_back(PodHold{std::string(json::String(&item, "name").value_or("")),
                              std::string(reason),
                              CapMessage(json::String(waiting, "message").value_or(""))});
    }
  }
}

}  // namespace

std::string DriverContainerName(const rapidjson::Value* app_spec) {
  return DriverContainerName(
      json::Member(app_spec, "sparkConf"),
      json::Member(json::Member(json::Member(app_spec, "driverSpec"), "podTemplateSpec"), "spec"));
}

std::string DriverContainerName(const rapidjson::Value* spark_conf,
                                const rapidjson::Value* driver_pod_spec) {
  std::optional<std::string_view> configured =
      json::String(spark_conf, kConfDriverPodTemplateContainerName);
  if (configured) {
    absl::string_view name = absl::StripAsciiWhitespace(ToAbsl(*configured));
    if (!name.empty()) return std::string(name);
  }
  const rapidjson::Value* containers = json::Member(driver_pod_spec, "containers");
  if (containers != nullptr && containers->IsArray() && !containers->Empty()) {
    std::optional<std::string_view> first = json::String(&(*containers)[0], "name");
    if (first && !first->empty()) return std::string(*first);
  }
  return std::string(kDriverContainerName);
}

ContainerTimes DriverContainerTimes(const rapidjson::Value& pod_status,
                                    std::string_view driver_container) {
  const rapidjson::Value* driver = FindDriverStatus(pod_status, OrDefault(driver_container));
  if (driver == nullptr) return {};
  return TimesOf(driver);
}

const ContainerStatus* DriverPod::DriverStatus(std::string_view name) const {
  if (containers.size() == 1) return &containers.front();
  std::string_view wanted = OrDefault(name.empty() ? std::string_view(driver_container) : name);
  for (const ContainerStatus& status : containers) {
    if (status.name == wanted) return &status;
  }
  return nullptr;
}

ContainerTimes DriverPod::DriverTimes(std::string_view name) const {
  const ContainerStatus* status = DriverStatus(name);
  return status != nullptr ? status->times : ContainerTimes{};
}

bool DriverPod::IsAlive() const { return IsAlive(""); }

bool DriverPod::IsAlive(std::string_view name) const {
  if (phase == "Succeeded" || phase == "Failed") return false;
  const ContainerStatus* status = DriverStatus(name);
  return status == nullptr || status->run != ContainerRun::kTerminated;
}

std::string_view DriverPod::LabelValue(std::string_view key) const {
  for (const auto& [label, value] : labels) {
    if (label == key) return value;
  }
  return "";
}

absl::StatusOr<DriverPod> ProjectDriverPod(const rapidjson::Value& pod,
                                           std::string_view driver_container) {
  const rapidjson::Value* metadata = json::Member(pod, "metadata");
  std::optional<std::string_view> name = json::String(metadata, "name");
  if (!name) return absl::InvalidArgumentError("A pod without metadata.name");
  DriverPod driver;
  driver.name = std::string(*name);
  driver.uid = std::string(json::String(metadata, "uid").value_or(""));
  driver.driver_container = std::string(OrDefault(driver_container));
  driver.creation_time = json::Time(metadata, "creationTimestamp");
  driver.deleting = json::String(metadata, "deletionTimestamp").has_value();
  if (const rapidjson::Value* labels = json::Member(metadata, "labels");
      labels != nullptr && labels->IsObject()) {
    for (const auto& label : labels->GetObject()) {
      if (!label.value.IsString()) continue;
      driver.labels.emplace_back(std::string(json::View(label.name)),
                                 std::string(json::View(label.value)));
    }
  }
  const rapidjson::Value* status = json::Member(pod, "status");
  driver.phase = std::string(json::String(status, "phase").value_or(""));
  const rapidjson::Value* containers = json::Member(json::Member(pod, "spec"), "containers");
  if (containers != nullptr && containers->IsArray()) {
    for (const rapidjson::Value& container : containers->GetArray()) {
      if (auto container_name = json::String(&container, "name")) {
        driver.container_names.emplace_back(*container_name);
      }
      const rapidjson::Value* ports = json::Member(&container, "ports");
      if (ports == nullptr || !ports->IsArray()) continue;
      for (const rapidjson::Value& port : ports->GetArray()) {
        std::optional<int64_t> number = json::Int(&port, "containerPort");
        if (json::String(&port, "name").value_or("") == "spark-ui" && number && *number > 0 &&
            *number <= 65535) {
          driver.ui_port = static_cast<int>(*number);
        }
      }
    }
  }
  const rapidjson::Value* statuses = json::Member(status, "containerStatuses");
  if (statuses != nullptr && statuses->IsArray()) {
    for (const rapidjson::Value& item : statuses->GetArray()) {
      ContainerStatus container;
      container.name = std::string(json::String(&item, "name").value_or(""));
      container.run = RunOf(&item);
      container.times = TimesOf(&item);
      const rapidjson::Value* terminated = json::Member(json::Member(&item, "state"), "terminated");
      if (auto code = json::Int(terminated, "exitCode")) {
        container.exit_code = static_cast<int32_t>(*code);
      }
      container.termination_message = std::string(json::String(terminated, "message").value_or(""));
      driver.containers.push_back(std::move(container));
    }
  }
  ReadHolds(status, driver.holds);
  driver.driver = driver.DriverTimes("");
  return driver;
}

std::vector<DriverPod> ProjectDriverPods(const rapidjson::Value& pod_list,
                                         std::string_view driver_container) {
  std::vector<DriverPod> pods;
  const rapidjson::Value* items = json::Member(pod_list, "items");
  if (items == nullptr || !items->IsArray()) return pods;
  for (const rapidjson::Value& item : items->GetArray()) {
    absl::StatusOr<DriverPod> pod = ProjectDriverPod(item, driver_container);
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
  return LogContainer(pod, pod.driver_container);
}

std::optional<std::string> LogContainer(const DriverPod& pod, std::string_view driver_container) {
  if (pod.container_names.size() <= 1) return std::nullopt;
  std::string_view wanted = OrDefault(driver_container);
  for (const std::string& name : pod.container_names) {
    if (name == wanted) return name;
  }
  return std::nullopt;
}

}  // namespace kje::spark
