#include "kubesim/kubeflow/pods.h"

#include <algorithm>
#include <cstdlib>

#include "kubesim/sim/clock.h"
#include "kubesim/sim/events.h"
#include "kubesim/sim/executor_log.h"
#include "kubesim/sim/fetch.h"
#include "kubesim/sim/kubelet.h"
#include "kubesim/sim/nodes.h"
#include "kubesim/sim/pod_template.h"
#include "kubesim/sim/s3_credentials.h"

namespace kubesim::kubeflow::internal {
namespace {

namespace json = boost::json;

// Operator-time delays of the simulated kubelet.
constexpr int64_t kImagePullMs = 1500;      // driver pod created → container running
constexpr int64_t kExecutorStartMs = 1000;  // executor pod created → running

std::string PodTime(int64_t ms) { return sim::FormatTime(ms, false); }

const json::object* Selector(const sim::SparkPodConf& conf) {
  return conf.node_selector.empty() ? nullptr : &conf.node_selector;
}

// Where the scheduler binds the driver and the executors: nowhere when no node fits.
std::optional<std::string> DriverNode(const Job& job) {
  if (job.outcome == Outcome::kUnschedulable) return std::nullopt;
  return sim::PlaceOnNode(Selector(job.driver_pod), job.seed);
}
std::optional<std::string> ExecutorNode(const Job& job) {
  return sim::PlaceOnNode(Selector(job.executor_pod), job.seed);
}

// The executors can never start (no node for them, or an image no one can pull): the driver
// waits for them until it is deleted.
bool ExecutorsNeverStart(const Job& job) {
  return job.executor_instances > 0 &&
         (!ExecutorNode(job) || sim::ImageUnpullable(job.executor_image));
}

// A pod no node fits: Pending with the scheduler's verdict, no containers.
json::object UnschedulableStatus(int64_t created_ms, const std::string& message) {
  return json::object{
      {"phase", "Pending"},
      {"qosClass", "Burstable"},
      {"conditions", json::array{json::object{{"type", "PodScheduled"},
                                              {"status", "False"},
                                              {"lastProbeTime", nullptr},
                                              {"lastTransitionTime", PodTime(created_ms)},
                                              {"reason", "Unschedulable"},
                                              {"message", message}}}}};
}

bool IsBound(const json::object& pod) {
  const json::object* spec = ObjectAt(&pod, "spec");
  return spec != nullptr && !StringAt(*spec, "nodeName").empty();
}

std::string PodIp(uint64_t seed) {
  return "10.244." + std::to_string(seed % 4) + "." + std::to_string(2 + (seed >> 8) % 250);
}

json::object Condition(const char* type, bool status, int64_t at_ms, const char* reason = nullptr) {
  json::object c{{"type", type},
                 {"status", status ? "True" : "False"},
                 {"lastProbeTime", nullptr},
                 {"lastTransitionTime", PodTime(at_ms)}};
  if (reason != nullptr) c["reason"] = reason;
  return c;
}

json::object OwnerRef(const char* api_version, const char* kind, const std::string& name,
                      const std::string& uid, bool controller) {
  return json::object{{"apiVersion", api_version},
                      {"kind", kind},
                      {"name", name},
                      {"uid", uid},
                      {"controller", controller},
                      {"blockOwnerDeletion", true}};
}

// The labels spark-submit is told to put on both kinds of pods, then Spark's own.
json::object RunLabels(const Job& job, const json::object& role_labels,
                       const std::string& submission_id, const char* role) {
  json::object labels = job.app_labels;
  for (const auto& kv : role_labels) labels[kv.key()] = kv.value();
  labels[kLabelAppName] = job.name;
  labels[kLabelLaunchedBy] = "true";
  labels[kLabelSubmissionId] = submission_id;
  if (!job.has_driver_template) labels[kLabelMutatedBy] = "true";
  labels[kLabelAppSelector] = SparkAppId(submission_id);
  labels[kLabelRole] = role;
  return labels;
}

json::object Resources(int64_t cores, const std::string& memory) {
  std::string mem = PodMemory(memory);
  return json::object{{"limits", json::object{{"memory", mem}}},
                      {"requests", json::object{{"cpu", std::to_string(cores)}, {"memory", mem}}}};
}

json::object ContainerStatus(const char* name, const std::string& image, Stage stage,
                             int64_t started_ms, int64_t ended_ms, int exit_code, uint64_t seed) {
  json::object cs{{"name", name},
                  {"image", image},
                  {"imageID", ""},
                  {"lastState", json::object()},
                  {"restartCount", 0}};
  if (stage == Stage::kPending) {
    cs["ready"] = false;
    cs["started"] = false;
    cs["state"] = json::object{{"waiting", json::object{{"reason", "ContainerCreating"}}}};
    return cs;
  }
  const std::string container_id = "containerd://" + Hex(seed ^ 0xc0, 64);
  cs["containerID"] = container_id;
  cs["imageID"] = image.substr(0, image.rfind(':')) + "@sha256:" + Hex(Fnv1a(image), 64);
  if (stage == Stage::kRunning) {
    cs["ready"] = true;
    cs["started"] = true;
    cs["state"] = json::object{{"running", json::object{{"startedAt", PodTime(started_ms)}}}};
    return cs;
  }
  cs["ready"] = false;
  cs["started"] = false;
  cs["state"] =
      json::object{{"terminated", json::object{{"containerID", container_id},
                                               {"exitCode", exit_code},
                                               {"reason", exit_code == 0 ? "Completed" : "Error"},
                                               {"startedAt", PodTime(started_ms)},
                                               {"finishedAt", PodTime(ended_ms)}}}};
  return cs;
}

json::object PodStatus(Stage stage, int64_t created_ms, int64_t started_ms, int64_t ended_ms,
                       int exit_code, json::object container_status, uint64_t seed,
                       const std::string& node) {
  json::object status{
      {"qosClass", "Burstable"}, {"hostIP", sim::NodeIp(node)}, {"startTime", PodTime(created_ms)}};
  json::array conditions;
  if (stage == Stage::kPending) {
    status["phase"] = "Pending";
    conditions = {Condition("Initialized", true, created_ms),
                  Condition("Ready", false, created_ms, "ContainersNotReady"),
                  Condition("ContainersReady", false, created_ms, "ContainersNotReady"),
                  Condition("PodScheduled", true, created_ms)};
  } else if (stage == Stage::kRunning) {
    status["phase"] = "Running";
    status["podIP"] = PodIp(seed);
    conditions = {Condition("Initialized", true, created_ms), Condition("Ready", true, started_ms),
                  Condition("ContainersReady", true, started_ms),
                  Condition("PodScheduled", true, created_ms)};
  } else {
    const char* reason = exit_code == 0 ? "PodCompleted" : "PodFailed";
    status["phase"] = exit_code == 0 ? "Succeeded" : "Failed";
    status["podIP"] = PodIp(seed);
    conditions = {Condition("Initialized", true, created_ms),
                  Condition("Ready", false, ended_ms, reason),
                  Condition("ContainersReady", false, ended_ms, reason),
                  Condition("PodScheduled", true, created_ms)};
  }
  status["conditions"] = std::move(conditions);
  status["containerStatuses"] = json::array{std::move(container_status)};
  return status;
}

json::object ExecutorPodStatus(const Job& job, const json::object& pod, Stage stage, int64_t now_ms,
                               double time_scale, int64_t delay_ms = 0) {
  const int64_t created = CreatedMs(pod);
  const std::optional<std::string> node = ExecutorNode(job);
  if (!node) return UnschedulableStatus(created, sim::SelectorMismatchMessage());
  const int64_t started = created + delay_ms + sim::ScaledMs(kExecutorStartMs, time_scale);
  const uint64_t seed = Fnv1a(StringAt(*ObjectAt(&pod, "metadata"), "name"));
  return PodStatus(
      stage, created, started, now_ms, 0,
      ContainerStatus(kExecutorContainer, job.executor_image, stage, started, now_ms, 0, seed),
      seed, *node);
}

// The pending status `status` as the kubelet's hold shows it, written when it changed, and the
// kubelet's events for the hold.
void ShowHold(const std::string& name, json::object status, const sim::KubeletHold& hold,
              json::object* pod, sim::Actions* actions) {
  sim::ApplyHold(hold, &status);
  const json::object* shown = ObjectAt(pod, "status");
  if (shown == nullptr || *shown != status) {
    (*pod)["status"] = status;
    actions->pod_status.push_back({name, std::move(status)});
  }
  sim::AppendHoldEvents(*pod, hold, &actions->events);
}

// How late a started pod's containers started: as the kubelet's verdict says, or, when what
// held it has gone again since (a Secret deleted), by its container's startedAt.
int64_t StartDelay(const json::object& pod, const sim::KubeletVerdict& v, int64_t created_ms,
                   int64_t pull_ms) {
  if (v.hold.kind == sim::HoldKind::kNone) return v.delay_ms;
  const json::object* status = ObjectAt(&pod, "status");
  const json::value* cs = status != nullptr ? status->if_contains("containerStatuses") : nullptr;
  if (cs == nullptr || !cs->is_array() || cs->as_array().empty() ||
      !cs->as_array()[0].is_object()) {
    return 0;
  }
  const json::object* state = ObjectAt(&cs->as_array()[0].as_object(), "state");
  const json::object* at = ObjectAt(state, "running");
  if (at == nullptr) at = ObjectAt(state, "terminated");
  std::optional<int64_t> started =
      at != nullptr ? sim::ParseTime(StringAt(*at, "startedAt")) : std::nullopt;
  return started ? std::max<int64_t>(0, *started - created_ms - pull_ms) : 0;
}

}  // namespace

// A JVM container's memory request as Spark computes it: the heap plus max(384 MiB, 10 %).
std::string PodMemory(const std::string& memory) {
  char* end = nullptr;
  double v = std::strtod(memory.c_str(), &end);
  double mib = v;
  if (end != nullptr && *end != '\0') {
    char unit = static_cast<char>(std::tolower(static_cast<unsigned char>(*end)));
    if (unit == 'k') mib = v / 1024;
    if (unit == 'g') mib = v * 1024;
    if (unit == 't') mib = v * 1024 * 1024;
  }
  int64_t heap = static_cast<int64_t>(mib);
  return std::to_string(heap + std::max<int64_t>(384, heap / 10)) + "Mi";
}

Timeline DriverTimeline(const Job& job, int64_t created_ms, double time_scale, int64_t delay_ms) {
  Timeline t;
  t.created_ms = created_ms;
  if (!DriverNode(job)) return t;
  t.started_ms = created_ms + delay_ms + sim::ScaledMs(kImagePullMs, time_scale);
  if (job.outcome != Outcome::kHang && !ExecutorsNeverStart(job)) {
    t.ended_ms = *t.started_ms + sim::ScaledMs(job.duration_ms, time_scale);
  }
  return t;
}

std::optional<Stage> StageOf(const json::object& pod) {
  const json::object* status = ObjectAt(&pod, "status");
  std::string phase = status != nullptr ? StringAt(*status, "phase") : "Pending";
  if (phase == "Pending" || phase.empty()) return Stage::kPending;
  if (phase == "Running") return Stage::kRunning;
  if (phase == "Succeeded" || phase == "Failed") return Stage::kTerminated;
  return std::nullopt;
}

int64_t CreatedMs(const json::object& pod) {
  const json::object* meta = ObjectAt(&pod, "metadata");
  if (meta == nullptr) return 0;
  if (const json::object* a = ObjectAt(meta, "annotations")) {
    std::string ms = StringAt(*a, kCreatedMsAnnotation);
    if (!ms.empty()) return std::strtoll(ms.c_str(), nullptr, 10);
  }
  return sim::ParseTime(StringAt(*meta, "creationTimestamp")).value_or(0);
}

bool IsDeleting(const json::object& pod) {
  const json::object* meta = ObjectAt(&pod, "metadata");
  return meta != nullptr && meta->contains("deletionTimestamp") &&
         !meta->at("deletionTimestamp").is_null();
}

std::string Label(const json::object& pod, std::string_view key) {
  const json::object* labels = ObjectAt(ObjectAt(&pod, "metadata"), "labels");
  return labels != nullptr ? StringAt(*labels, key) : "";
}

json::object BuildDriverPod(const Job& job, const std::string& submission_id, int64_t created_ms,
                            double time_scale) {
  const std::string app_id = SparkAppId(submission_id);
  json::object annotations = job.driver_annotations;
  annotations[kCreatedMsAnnotation] = std::to_string(created_ms);
  json::object meta{{"name", job.driver_pod_name},
                    {"namespace", job.ns},
                    {"labels", RunLabels(job, job.driver_labels, submission_id, "driver")},
                    {"annotations", std::move(annotations)},
                    {"ownerReferences", json::array{OwnerRef(kApiVersion, "SparkApplication",
                                                             job.name, job.uid, true)}}};
  json::array args{"driver", "--properties-file", "/opt/spark/conf/spark.properties"};
  if (!job.main_class.empty()) {
    args.emplace_back("--class");
    args.emplace_back(job.main_class);
  }
  args.emplace_back(job.main_file.empty() ? "spark-internal" : job.main_file);
  for (const std::string& a : job.arguments) args.emplace_back(a);
  json::object container{
      {"name", kDriverContainer},
      {"image", job.driver_image},
      {"imagePullPolicy", "IfNotPresent"},
      {"args", std::move(args)},
      {"env", json::array{json::object{{"name", "SPARK_USER"}, {"value", "spark"}},
                          json::object{{"name", "SPARK_APPLICATION_ID"}, {"value", app_id}},
                          json::object{{"name", "SPARK_CONF_DIR"}, {"value", "/opt/spark/conf"}}}},
      {"ports",
       json::array{
           json::object{{"containerPort", 7078}, {"name", "driver-rpc-port"}, {"protocol", "TCP"}},
           json::object{{"containerPort", 7079}, {"name", "blockmanager"}, {"protocol", "TCP"}},
           json::object{{"containerPort", 4040}, {"name", "spark-ui"}, {"protocol", "TCP"}}}},
      {"resources", Resources(job.driver_cores, job.driver_memory)}};
  json::object spec;
  sim::ApplySparkPodConf(job.driver_pod, &spec, &container);
  spec["containers"] = json::array{std::move(container)};
  for (const auto& kv : json::object{{"restartPolicy", "Never"},
                                     {"serviceAccountName", job.driver_service_account},
                                     {"serviceAccount", job.driver_service_account},
                                     {"dnsPolicy", "ClusterFirst"},
                                     {"schedulerName", "default-scheduler"},
                                     {"terminationGracePeriodSeconds", 30},
                                     {"enableServiceLinks", true}}) {
    spec[kv.key()] = kv.value();
  }
  if (std::optional<std::string> node = DriverNode(job)) spec["nodeName"] = *node;
  Timeline t = DriverTimeline(job, created_ms, time_scale);
  json::object pod{{"apiVersion", "v1"},
                   {"kind", "Pod"},
                   {"metadata", std::move(meta)},
                   {"spec", std::move(spec)}};
  if (job.driver_template.is_object()) {
    sim::ApplyPodTemplate(&job.driver_template.as_object(), job.driver_template_container, &pod);
  }
  // Spark sets neither: the template's, else the API server's defaults.
  for (json::value& c : pod["spec"].as_object()["containers"].as_array()) {
    if (!c.is_object()) continue;
    json::object& each = c.as_object();
    if (!each.contains("terminationMessagePath")) {
      each["terminationMessagePath"] = "/dev/termination-log";
    }
    if (!each.contains("terminationMessagePolicy")) each["terminationMessagePolicy"] = "File";
  }
  pod["status"] = DriverPodStatus(job, t, Stage::kPending);
  return pod;
}

json::object BuildExecutorPod(const Job& job, const json::object& driver, int64_t n,
                              int64_t created_ms, const Options& options) {
  const json::object* dmeta = ObjectAt(&driver, "metadata");
  const std::string driver_name = dmeta != nullptr ? StringAt(*dmeta, "name") : "";
  const std::string driver_uid = dmeta != nullptr ? StringAt(*dmeta, "uid") : "";
  const std::string submission_id = Label(driver, kLabelSubmissionId);
  json::object labels = RunLabels(job, job.executor_labels, submission_id, "executor");
  labels[kLabelExecId] = std::to_string(n);
  labels["spark-exec-resourceprofile-id"] = "0";
  json::object annotations = job.executor_annotations;
  annotations[kCreatedMsAnnotation] = std::to_string(created_ms);
  json::array owners{OwnerRef("v1", "Pod", driver_name, driver_uid, true)};
  if (options.executor_owner == ExecutorOwner::kApp) {
    owners.push_back(OwnerRef(kApiVersion, "SparkApplication", job.name, job.uid, false));
  }
  const std::string name = ExecutorName(job, submission_id, n);
  json::object container{
      {"name", kExecutorContainer},
      {"image", job.executor_image},
      {"imagePullPolicy", "IfNotPresent"},
      {"args", json::array{"executor"}},
      {"env", json::array{json::object{{"name", "SPARK_EXECUTOR_ID"}, {"value", std::to_string(n)}},
                          json::object{{"name", "SPARK_APPLICATION_ID"},
                                       {"value", SparkAppId(submission_id)}},
                          json::object{{"name", "SPARK_DRIVER_URL"},
                                       {"value", "spark://CoarseGrainedScheduler@" + driver_name +
                                                     "-svc." + job.ns + ".svc:7078"}}}},
      {"resources", Resources(job.executor_cores, job.executor_memory)}};
  json::object spec;
  sim::ApplySparkPodConf(job.executor_pod, &spec, &container);
  spec["containers"] = json::array{std::move(container)};
  spec["restartPolicy"] = "Never";
  spec["serviceAccountName"] = job.executor_service_account;
  spec["serviceAccount"] = job.executor_service_account;
  spec["hostname"] = name;
  if (std::optional<std::string> node = ExecutorNode(job)) spec["nodeName"] = *node;
  json::object pod{{"apiVersion", "v1"},
                   {"kind", "Pod"},
                   {"metadata", json::object{{"name", name},
                                             {"namespace", job.ns},
                                             {"labels", std::move(labels)},
                                             {"annotations", std::move(annotations)},
                                             {"ownerReferences", std::move(owners)}}},
                   {"spec", std::move(spec)}};
  if (job.executor_template.is_object()) {
    sim::ApplyPodTemplate(&job.executor_template.as_object(), "", &pod);
  }
  pod["status"] = ExecutorPodStatus(job, pod, Stage::kPending, created_ms, options.time_scale);
  return pod;
}

json::object DriverPodStatus(const Job& job, const Timeline& t, Stage stage) {
  if (job.outcome == Outcome::kUnschedulable) {
    return UnschedulableStatus(t.created_ms,
                               "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes "
                               "are available: 3 No preemption victims found for incoming pod.");
  }
  const std::optional<std::string> node = DriverNode(job);
  if (!node) return UnschedulableStatus(t.created_ms, sim::SelectorMismatchMessage());
  const int64_t started = t.started_ms.value_or(t.created_ms);
  const int64_t ended = t.ended_ms.value_or(started);
  const int exit_code = job.outcome == Outcome::kFail ? 1 : 0;
  return PodStatus(stage, t.created_ms, started, ended, exit_code,
                   ContainerStatus(kDriverContainer, job.driver_image, stage, started, ended,
                                   exit_code, job.seed),
                   job.seed, *node);
}

namespace {

// spark-submit fetches the dependencies as the container starts (the pass that moves the driver
// out of Pending); a failure ends the driver then and there.
// It reads s3a:// with the credentials the driver pod's environment holds.
std::optional<sim::FetchOutcome> FetchAtStart(const Job& job, const json::object& driver,
                                              const sim::ObjectLookup& lookup, Stage seen,
                                              const sim::DependencyFetch& fetch, Timeline* t,
                                              Stage* want) {
  if (seen != Stage::kPending || *want == Stage::kPending) return std::nullopt;
  sim::S3aAccess s3a = job.s3a;
  s3a.credentials = sim::PodS3Credentials(driver, kDriverContainer, lookup);
  sim::FetchOutcome fetched = sim::FetchAll(job.dependencies, s3a, fetch, *t->started_ms);
  if (fetched.failed) {
    t->ended_ms = t->started_ms;
    *want = Stage::kTerminated;
  }
  return fetched;
}

json::object FailedDriverStatus(const Job& job, const Timeline& t, Stage stage) {
  Job failed = job;
  failed.outcome = Outcome::kFail;
  return DriverPodStatus(failed, t, stage);
}

}  // namespace

std::optional<int64_t> RunKubelet(const Job& job, const Status& status, const Options& options,
                                  int64_t now_ms, const sim::ObjectLookup& lookup,
                                  std::vector<json::object>* pods, sim::Actions* actions,
                                  const sim::DependencyFetch& fetch) {
  std::optional<int64_t> next;
  auto due = [&next](int64_t at) { next = next ? std::min(*next, at) : at; };
  if (status.submission_id.empty()) return next;
  json::object* driver = nullptr;
  std::vector<json::object*> executors;
  for (json::object& pod : *pods) {
    if (IsDeleting(pod) || Label(pod, kLabelSubmissionId) != status.submission_id) continue;
    std::string role = Label(pod, kLabelRole);
    std::string name = StringAt(*ObjectAt(&pod, "metadata"), "name");
    if (role == "driver" && name == status.pod_name) driver = &pod;
    if (role == "executor") executors.push_back(&pod);
  }
  if (driver == nullptr) return next;
  const std::string driver_name = status.pod_name;
  std::optional<Stage> seen = StageOf(*driver);
  if (!seen) return next;  // phase Unknown (a lost node): the kubelet has nothing to say
  const int64_t created = CreatedMs(*driver);
  const int64_t pull_ms = sim::ScaledMs(kImagePullMs, options.time_scale);
  if (*seen == Stage::kPending && !IsBound(*driver)) {
    // The scheduler retries it, and says so again.
    due(sim::AppendFailedScheduling(*driver, created, now_ms, options.time_scale,
                                    &actions->events));
    return next;
  }
  const sim::KubeletVerdict verdict =
      sim::KubeletCheck(*driver, created, now_ms, lookup, options.time_scale, kImagePullMs);
  if (*seen == Stage::kPending && verdict.hold.kind != sim::HoldKind::kNone) {
    ShowHold(
        driver_name,
        DriverPodStatus(job, DriverTimeline(job, created, options.time_scale), Stage::kPending),
        verdict.hold, driver, actions);
    if (verdict.next_ms) due(*verdict.next_ms);
    return next;
  }
  Timeline t = DriverTimeline(job, created, options.time_scale,
                              StartDelay(*driver, verdict, created, pull_ms));
  Stage want = Stage::kPending;
  if (t.started_ms && now_ms >= *t.started_ms) want = Stage::kRunning;
  if (t.ended_ms && now_ms >= *t.ended_ms) want = Stage::kTerminated;
  std::optional<sim::FetchOutcome> fetched =
      FetchAtStart(job, *driver, lookup, *seen, fetch, &t, &want);
  if (want == Stage::kPending && t.started_ms) due(*t.started_ms);
  if (want == Stage::kRunning && t.ended_ms) due(*t.ended_ms);
  const std::string app_id = Label(*driver, kLabelAppSelector);
  if (want > *seen) {
    if (*seen == Stage::kPending) {
      sim::AppendStartEvents(*driver, *t.started_ms - pull_ms, *t.started_ms, false,
                             &actions->events);
    }
    // A container writes its log before it terminates: followers must see every line.
    std::string log;
    if (fetched) log += fetched->log;
    if (*seen == Stage::kPending && !(fetched && fetched->failed)) {
      log += DriverLogStart(job, app_id, t);
    }
    if (fetched && fetched->failed) {
      // Nothing ran: no driver lines after the exception.
    } else if (want == Stage::kTerminated && job.outcome != Outcome::kDriverDeleted) {
      log += DriverLogEnd(job, app_id, t);
    }
    if (!log.empty()) actions->logs.push_back({driver_name, kDriverContainer, std::move(log)});
    const bool fetch_failed = fetched && fetched->failed;
    if (want == Stage::kTerminated && job.outcome == Outcome::kDriverDeleted && !fetch_failed) {
      // The pod goes before anyone sees its final phase (evicted and collected, or deleted by
      // hand); a dead driver deletes no executors.
      actions->delete_pods.push_back(driver_name);
      pods->erase(pods->begin() + (driver - pods->data()));
      return next;
    }
    json::object st =
        fetch_failed ? FailedDriverStatus(job, t, want) : DriverPodStatus(job, t, want);
    (*driver)["status"] = st;
    actions->pod_status.push_back({driver_name, std::move(st)});
    seen = want;
  }
  if (*seen == Stage::kTerminated) {
    // The driver shuts its executors down as it ends.
    std::vector<std::string> deleted;
    for (json::object* e : executors) {
      std::string name = StringAt(*ObjectAt(e, "metadata"), "name");
      if (job.delete_executors_on_termination) {
        actions->delete_pods.push_back(name);
        deleted.push_back(name);
      } else if (StageOf(*e) != Stage::kTerminated) {
        json::object st =
            ExecutorPodStatus(job, *e, Stage::kTerminated, now_ms, options.time_scale);
        (*e)["status"] = st;
        actions->pod_status.push_back({name, std::move(st)});
      }
    }
    std::erase_if(*pods, [&deleted](const json::object& p) {
      std::string name = StringAt(*ObjectAt(&p, "metadata"), "name");
      return std::find(deleted.begin(), deleted.end(), name) != deleted.end();
    });
    return next;
  }
  // An app being deleted gets no new executors: its pods are being collected.
  if (*seen != Stage::kRunning || job.deleting) return next;
  // A running driver asks for its executors, and again for one that went away.
  const json::object driver_pod = *driver;  // pods may move as executors are added
  for (int64_t n = 1; n <= job.executor_instances; ++n) {
    std::string name = ExecutorName(job, status.submission_id, n);
    bool exists = false;
    for (const json::object& pod : *pods) {
      exists = exists || StringAt(*ObjectAt(&pod, "metadata"), "name") == name;
    }
    if (exists) continue;
    json::object pod = BuildExecutorPod(job, driver_pod, n, now_ms, options);
    sim::AppendScheduleEvents(pod, now_ms, &actions->events);
    actions->create_pods.push_back(pod);
    due(now_ms + sim::ScaledMs(kExecutorStartMs, options.time_scale));
    pods->push_back(std::move(pod));
  }
  for (json::object& pod : *pods) {
    if (IsDeleting(pod) || Label(pod, kLabelSubmissionId) != status.submission_id ||
        Label(pod, kLabelRole) != "executor" || StageOf(pod) != Stage::kPending) {
      continue;
    }
    const int64_t created = CreatedMs(pod);
    const std::string name = StringAt(*ObjectAt(&pod, "metadata"), "name");
    if (!IsBound(pod)) {
      due(sim::AppendFailedScheduling(pod, created, now_ms, options.time_scale, &actions->events));
      continue;
    }
    const sim::KubeletVerdict v =
        sim::KubeletCheck(pod, created, now_ms, lookup, options.time_scale, kExecutorStartMs);
    if (v.hold.kind != sim::HoldKind::kNone) {
      ShowHold(name, ExecutorPodStatus(job, pod, Stage::kPending, now_ms, options.time_scale),
               v.hold, &pod, actions);
      if (v.next_ms) due(*v.next_ms);
      continue;
    }
    const int64_t pull_from = created + v.delay_ms;
    const int64_t start = pull_from + sim::ScaledMs(kExecutorStartMs, options.time_scale);
    if (now_ms < start) {
      due(start);
      continue;
    }
    // The driver's image is on the node already when the executors share it.
    sim::AppendStartEvents(pod, pull_from, start, job.executor_image == job.driver_image,
                           &actions->events);
    json::object st =
        ExecutorPodStatus(job, pod, Stage::kRunning, now_ms, options.time_scale, v.delay_ms);
    pod["status"] = st;
    // The executor's container starts, and writes its first lines.
    actions->logs.push_back({name, kExecutorContainer, sim::ExecutorLogStart(pod, st, start)});
    actions->pod_status.push_back({name, std::move(st)});
  }
  return next;
}

}  // namespace kubesim::kubeflow::internal
