#include "kubesim/operator/executors.h"

#include <algorithm>
#include <cstdlib>

#include "kubesim/sim/clock.h"
#include "kubesim/sim/events.h"
#include "kubesim/sim/executor_log.h"
#include "kubesim/sim/ids.h"
#include "kubesim/sim/json_access.h"
#include "kubesim/sim/kubelet.h"
#include "kubesim/sim/nodes.h"
#include "kubesim/sim/pod_template.h"

namespace kubesim::op::internal {
namespace {

namespace json = boost::json;
using sim::ObjectAt;
using sim::StringAt;

constexpr int64_t kExecutorStartMs = 1000;  // executor pod created → running (operator time)
// When the simulated kubelet saw the executor created, in wall-clock ms: creationTimestamp has
// whole seconds only, too coarse under --time-scale.
constexpr const char* kCreatedMsAnnotation = "kubesim.dev/created-ms";

std::optional<std::string> ExecutorNode(const JobConf& conf) {
  const json::object& selector = conf.executor_pod.node_selector;
  return sim::PlaceOnNode(selector.empty() ? nullptr : &selector, conf.seed);
}

std::string Label(const json::object& pod, const char* key) {
  const json::object* labels = ObjectAt(ObjectAt(pod, "metadata"), "labels");
  return labels != nullptr ? StringAt(*labels, key) : "";
}

std::string Name(const json::object& pod) {
  const json::object* meta = ObjectAt(pod, "metadata");
  return meta != nullptr ? StringAt(*meta, "name") : "";
}

int64_t CreatedMs(const json::object& pod) {
  const json::object* meta = ObjectAt(pod, "metadata");
  if (const json::object* a = ObjectAt(meta, "annotations")) {
    std::string ms = StringAt(*a, kCreatedMsAnnotation);
    if (!ms.empty()) return std::strtoll(ms.c_str(), nullptr, 10);
  }
  return meta != nullptr ? sim::ParseTime(StringAt(*meta, "creationTimestamp")).value_or(0) : 0;
}

json::object Condition(const char* type, bool status, int64_t at_ms, const char* reason = nullptr,
                       const std::string& message = "") {
  json::object c{{"type", type},
                 {"status", status ? "True" : "False"},
                 {"lastProbeTime", nullptr},
                 {"lastTransitionTime", FormatPodTime(at_ms)}};
  if (reason != nullptr) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  return c;
}

enum class Phase { kPending, kRunning, kSucceeded };

json::object ExecutorStatus(const JobConf& conf, const json::object& pod, Phase phase,
                            int64_t started_ms, int64_t now_ms) {
  const int64_t created = CreatedMs(pod);
  const std::optional<std::string> node = ExecutorNode(conf);
  if (!node) {
    return json::object{
        {"phase", "Pending"},
        {"qosClass", "Burstable"},
        {"conditions", json::array{Condition("PodScheduled", false, created, "Unschedulable",
                                             sim::SelectorMismatchMessage())}}};
  }
  const uint64_t seed = sim::Mix(conf.seed ^ std::hash<std::string>()(Name(pod)));
  const std::string ip =
      "10.244." + std::to_string(seed % 4) + "." + std::to_string(2 + (seed >> 8) % 250);
  const std::string unready =
      std::string("containers with unready status: [") + kExecutorContainer + "]";
  json::object cs{{"name", kExecutorContainer},
                  {"image", conf.executor_image},
                  {"imageID", ""},
                  {"lastState", json::object()},
                  {"restartCount", 0},
                  {"ready", phase == Phase::kRunning},
                  {"started", phase == Phase::kRunning}};
  json::object status{{"qosClass", "Burstable"},
                      {"hostIP", sim::NodeIp(*node)},
                      {"hostIPs", json::array{json::object{{"ip", sim::NodeIp(*node)}}}},
                      {"startTime", FormatPodTime(created)}};
  if (phase == Phase::kPending) {
    status["phase"] = "Pending";
    status["conditions"] =
        json::array{Condition("PodReadyToStartContainers", false, created),
                    Condition("Initialized", true, created),
                    Condition("Ready", false, created, "ContainersNotReady", unready),
                    Condition("ContainersReady", false, created, "ContainersNotReady", unready),
                    Condition("PodScheduled", true, created)};
    cs["state"] = json::object{{"waiting", json::object{{"reason", "ContainerCreating"}}}};
  } else {
    const std::string id = "containerd://" + sim::Hex(seed, 64);
    cs["containerID"] = id;
    status["podIP"] = ip;
    status["podIPs"] = json::array{json::object{{"ip", ip}}};
    const bool running = phase == Phase::kRunning;
    status["phase"] = running ? "Running" : "Succeeded";
    const int64_t at = running ? started_ms : now_ms;
    status["conditions"] =
        json::array{Condition("PodReadyToStartContainers", running, at),
                    Condition("Initialized", true, created),
                    Condition("Ready", running, at, running ? nullptr : "PodCompleted"),
                    Condition("ContainersReady", running, at, running ? nullptr : "PodCompleted"),
                    Condition("PodScheduled", true, created)};
    if (running) {
      cs["state"] =
          json::object{{"running", json::object{{"startedAt", FormatPodTime(started_ms)}}}};
    } else {
      cs["state"] =
          json::object{{"terminated", json::object{{"containerID", id},
                                                   {"exitCode", 0},
                                                   {"reason", "Completed"},
                                                   {"startedAt", FormatPodTime(started_ms)},
                                                   {"finishedAt", FormatPodTime(now_ms)}}}};
    }
  }
  status["containerStatuses"] = json::array{std::move(cs)};
  return status;
}

}  // namespace

bool IsExecutorPod(const json::object& pod) { return Label(pod, "spark-role") == "executor"; }

bool ExecutorsNeverStart(const JobConf& conf) {
  return conf.executor_instances > 0 &&
         (!ExecutorNode(conf) || sim::ImageUnpullable(conf.executor_image));
}

json::object BuildExecutorPod(const JobConf& conf, int64_t attempt, const json::object& driver,
                              int64_t n, int64_t created_ms) {
  const std::string app_id = AppId(conf.ns, conf.name, attempt);
  const std::string name = app_id + "-exec-" + std::to_string(n);
  json::object labels{{"spark-app-name", conf.app_name_label},
                      {"spark-app-selector", app_id},
                      {"spark-exec-id", std::to_string(n)},
                      {"spark-exec-resourceprofile-id", "0"},
                      {"spark-role", "executor"},
                      {"spark.operator/name", kOperatorName},
                      {"spark.operator/spark-app-name", conf.name}};
  if (!conf.spark_version.empty()) labels["spark-version"] = conf.spark_version;
  const json::object* dmeta = ObjectAt(driver, "metadata");
  json::object owner{{"apiVersion", "v1"},
                     {"kind", "Pod"},
                     {"name", dmeta != nullptr ? StringAt(*dmeta, "name") : ""},
                     {"uid", dmeta != nullptr ? StringAt(*dmeta, "uid") : ""},
                     {"controller", true}};
  json::object container{
      {"name", kExecutorContainer},
      {"image", conf.executor_image},
      {"imagePullPolicy", "IfNotPresent"},
      {"args", json::array{"executor"}},
      {"env", json::array{json::object{{"name", "SPARK_EXECUTOR_ID"}, {"value", std::to_string(n)}},
                          json::object{{"name", "SPARK_APPLICATION_ID"}, {"value", app_id}},
                          json::object{{"name", "SPARK_DRIVER_URL"},
                                       {"value", "spark://CoarseGrainedScheduler@" + app_id +
                                                     "-driver-svc." + conf.ns + ".svc:7078"}}}},
      {"resources", json::object{{"limits", json::object{{"memory", "1408Mi"}}},
                                 {"requests", json::object{{"cpu", "1"}, {"memory", "1408Mi"}}}}},
      {"terminationMessagePath", "/dev/termination-log"},
      {"terminationMessagePolicy", "File"}};
  json::object spec;
  sim::ApplySparkPodConf(conf.executor_pod, &spec, &container);
  spec["containers"] = json::array{std::move(container)};
  spec["restartPolicy"] = "Never";
  spec["serviceAccountName"] = conf.service_account;
  spec["serviceAccount"] = conf.service_account;
  spec["hostname"] = name;
  spec["schedulerName"] = "default-scheduler";
  if (std::optional<std::string> node = ExecutorNode(conf)) spec["nodeName"] = *node;
  json::object pod{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", json::object{{"name", name},
                                {"namespace", conf.ns},
                                {"labels", std::move(labels)},
                                {"annotations",
                                 json::object{{kCreatedMsAnnotation, std::to_string(created_ms)}}},
                                {"ownerReferences", json::array{std::move(owner)}}}},
      {"spec", std::move(spec)}};
  if (conf.executor_template.is_object()) {
    sim::ApplyPodTemplate(&conf.executor_template.as_object(), "", &pod);
  }
  pod["status"] = ExecutorStatus(conf, pod, Phase::kPending, created_ms, created_ms);
  return pod;
}

ExecutorsPass RunExecutors(const JobConf& conf, int64_t attempt, const json::object& driver,
                           PodStage driver_stage, const std::vector<const json::object*>& executors,
                           int64_t now_ms, const sim::ObjectLookup& lookup, double time_scale,
                           sim::Actions* actions) {
  ExecutorsPass pass;
  auto due = [&pass](int64_t at) {
    pass.next_ms = pass.next_ms ? std::min(*pass.next_ms, at) : at;
  };
  if (driver_stage == PodStage::kTerminated) {
    for (const json::object* e : executors) {
      if (conf.delete_executors_on_termination) {
        actions->delete_pods.push_back(Name(*e));
        continue;
      }
      const json::object* st = ObjectAt(*e, "status");
      if (st == nullptr || StringAt(*st, "phase") != "Running") continue;
      const json::object* cs =
          ObjectAt(&st->at("containerStatuses").as_array().at(0).as_object(), "state");
      std::optional<int64_t> started =
          sim::ParseTime(StringAt(*ObjectAt(cs, "running"), "startedAt"));
      actions->pod_status.push_back({Name(*e), ExecutorStatus(conf, *e, Phase::kSucceeded,
                                                              started.value_or(now_ms), now_ms)});
    }
    return pass;
  }
  if (driver_stage != PodStage::kRunning) return pass;
  for (int64_t n = 1; n <= conf.executor_instances; ++n) {
    const std::string name = AppId(conf.ns, conf.name, attempt) + "-exec-" + std::to_string(n);
    bool exists = std::any_of(executors.begin(), executors.end(),
                              [&](const json::object* e) { return Name(*e) == name; });
    if (exists) continue;
    json::object pod = BuildExecutorPod(conf, attempt, driver, n, now_ms);
    sim::AppendScheduleEvents(pod, now_ms, &actions->events);
    actions->create_pods.push_back(std::move(pod));
    due(now_ms + 1);  // the kubelet gets it at once
  }
  for (const json::object* e : executors) {
    const json::object* st = ObjectAt(*e, "status");
    const std::string phase = st != nullptr ? StringAt(*st, "phase") : "";
    if (phase == "Running") {
      ++pass.ready;
      continue;
    }
    if (phase != "Pending" && !phase.empty()) continue;
    const int64_t created = CreatedMs(*e);
    const json::object* spec = ObjectAt(*e, "spec");
    if (spec == nullptr || StringAt(*spec, "nodeName").empty()) {
      due(sim::AppendFailedScheduling(*e, created, now_ms, time_scale, &actions->events));
      continue;
    }
    const sim::KubeletVerdict v =
        sim::KubeletCheck(*e, created, now_ms, lookup, time_scale, kExecutorStartMs);
    if (v.hold.kind != sim::HoldKind::kNone) {
      json::object status = ExecutorStatus(conf, *e, Phase::kPending, created, now_ms);
      sim::ApplyHold(v.hold, &status);
      if (st == nullptr || *st != status) actions->pod_status.push_back({Name(*e), status});
      sim::AppendHoldEvents(*e, v.hold, &actions->events);
      if (v.next_ms) due(*v.next_ms);
      continue;
    }
    const int64_t pull_from = created + v.delay_ms;
    const int64_t start = pull_from + sim::ScaledMs(kExecutorStartMs, time_scale);
    if (now_ms < start) {
      due(start);
      continue;
    }
    // The driver's image is on the node already when the executors share it.
    sim::AppendStartEvents(*e, pull_from, start, conf.executor_image == conf.image.value_or(""),
                           &actions->events);
    json::object running = ExecutorStatus(conf, *e, Phase::kRunning, start, now_ms);
    // The executor's container starts, and writes its first lines.
    actions->logs.push_back(
        {Name(*e), kExecutorContainer, sim::ExecutorLogStart(*e, running, start)});
    actions->pod_status.push_back({Name(*e), std::move(running)});
    ++pass.ready;
  }
  return pass;
}

}  // namespace kubesim::op::internal
