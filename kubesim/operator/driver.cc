#include "kubesim/operator/driver.h"

#include <openssl/sha.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kubesim/operator/app_status.h"
#include "kubesim/operator/executors.h"
#include "kubesim/sim/clock.h"
#include "kubesim/sim/fetch.h"
#include "kubesim/sim/ids.h"
#include "kubesim/sim/json_access.h"
#include "kubesim/sim/nodes.h"
#include "kubesim/sim/pod_template.h"
#include "kubesim/sim/spark_pod_conf.h"

namespace kubesim::op::internal {
namespace {

using sim::Hex;
using sim::Mix;
using sim::ObjectAt;
using sim::StringAt;

namespace json = boost::json;

// Operator-time delays of the simulated kubelet.
constexpr int64_t kImagePullMs = 1500;  // pod created → container running
constexpr int64_t kDefaultDurationMs = 3000;

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string ReplaceAll(std::string s, std::string_view from, std::string_view to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

std::string FirstOf(const std::string& comma_list) {
  return comma_list.substr(0, comma_list.find(','));
}

// The image as the kubelet reports it: registry and "library/" made explicit.
std::string FullImage(const std::string& image) {
  std::string first = image.substr(0, image.find('/'));
  bool has_registry = image.find('/') != std::string::npos &&
                      (first.find('.') != std::string::npos ||
                       first.find(':') != std::string::npos || first == "localhost");
  if (has_registry) return image;
  if (image.find('/') == std::string::npos) return "docker.io/library/" + image;
  return "docker.io/" + image;
}

std::string PodIp(const JobConf& conf, int64_t attempt) {
  uint64_t h = Mix(conf.seed ^ static_cast<uint64_t>(attempt));
  return "10.244." + std::to_string(h % 4) + "." + std::to_string(2 + (h >> 8) % 250);
}

std::string HostIp(const JobConf& conf) { return sim::NodeIp(DriverNode(conf).value_or("")); }

json::object Condition(const char* type, bool status, int64_t at_ms, const char* reason = nullptr,
                       const std::string& message = "") {
  json::object c;
  c["type"] = type;
  c["status"] = status ? "True" : "False";
  c["lastProbeTime"] = nullptr;
  c["lastTransitionTime"] = FormatPodTime(at_ms);
  if (reason != nullptr) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  return c;
}

}  // namespace

std::optional<std::string> DriverNode(const JobConf& conf) {
  if (conf.outcome == Outcome::kUnschedulable) return std::nullopt;
  const json::object& selector = conf.driver_pod.node_selector;
  return sim::PlaceOnNode(selector.empty() ? nullptr : &selector, conf.seed);
}

int64_t ScaledMs(int64_t ms, double time_scale) { return sim::ScaledMs(ms, time_scale); }
std::string FormatStatusTime(int64_t ms) { return sim::FormatTime(ms, true); }
std::string FormatPodTime(int64_t ms) { return sim::FormatTime(ms, false); }
std::optional<int64_t> ParseTime(std::string_view t) { return sim::ParseTime(t); }

std::string AppId(std::string_view ns, std::string_view name, int64_t attempt) {
  std::string id = std::string(name) + "-" + std::to_string(attempt);
  if (id.size() <= 46) return id;
  std::string input = std::string(ns) + "/" + std::string(name) + "/" + std::to_string(attempt);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  // The digest as one unsigned big number, in base 36 (most significant digit first).
  std::vector<unsigned> number(digest, digest + SHA256_DIGEST_LENGTH);
  std::string base36;
  const char* kDigits = "0123456789abcdefghijklmnopqrstuvwxyz";
  while (std::any_of(number.begin(), number.end(), [](unsigned b) { return b != 0; })) {
    unsigned rem = 0;
    for (auto& b : number) {
      unsigned cur = rem * 256 + b;
      b = cur / 36;
      rem = cur % 36;
    }
    base36.push_back(kDigits[rem]);
  }
  std::reverse(base36.begin(), base36.end());
  return id.substr(0, 9) + "-" + base36.substr(0, 36);
}

JobConf ReadJobConf(const json::object& app) {
  JobConf c;
  if (const json::object* meta = ObjectAt(app, "metadata")) {
    c.ns = StringAt(*meta, "namespace");
    c.name = StringAt(*meta, "name");
    c.uid = StringAt(*meta, "uid");
  }
  c.seed = Fnv1a(c.uid.empty() ? c.ns + "/" + c.name : c.uid);
  static const json::object kEmpty;
  const json::object* spec_ptr = ObjectAt(app, "spec");
  const json::object& spec = spec_ptr != nullptr ? *spec_ptr : kEmpty;
  const json::object* conf_ptr = ObjectAt(spec, "sparkConf");
  const json::object& conf = conf_ptr != nullptr ? *conf_ptr : kEmpty;
  if (const json::object* rv = ObjectAt(spec, "runtimeVersions")) {
    c.spark_version = StringAt(*rv, "sparkVersion");
  }
  std::string outcome = StringAt(conf, "kubesim.outcome");
  if (outcome == "fail") {
    c.outcome = Outcome::kFail;
  } else if (outcome == "evict") {
    c.outcome = Outcome::kEvict;
  } else if (outcome == "unschedulable") {
    c.outcome = Outcome::kUnschedulable;
  } else if (outcome == "hang") {
    c.outcome = Outcome::kHang;
  } else if (outcome == "evict-before-start") {
    c.outcome = Outcome::kEvictBeforeStart;
  }
  // kubesim.failAttempts=N: the first N attempts (ids 0..N-1) fail as `fail` does, later ones
  // run as asked, so a restart policy can be seen to retry.
  if (c.outcome == Outcome::kSucceed) {
    std::string fail_attempts = StringAt(conf, "kubesim.failAttempts");
    char* end = nullptr;
    long long n = std::strtoll(fail_attempts.c_str(), &end, 10);
    const int64_t attempt =
        IntAt(ObjectAt(ObjectAt(ObjectAt(&app, "status"), "currentAttemptSummary"), "attemptInfo"),
              "id")
            .value_or(0);
    if (!fail_attempts.empty() && end != nullptr && *end == '\0' && attempt < n) {
      c.outcome = Outcome::kFail;
    }
  }
  c.log_args = StringAt(conf, "kubesim.logArgs") == "true";
  c.duration_ms = kDefaultDurationMs;
  std::string duration = StringAt(conf, "kubesim.durationMs");
  if (!duration.empty()) {
    char* end = nullptr;
    long long v = std::strtoll(duration.c_str(), &end, 10);
    if (end != nullptr && *end == '\0' && v >= 0) c.duration_ms = v;
  }
  std::string image = StringAt(conf, "spark.kubernetes.driver.container.image");
  if (image.empty()) image = StringAt(conf, "spark.kubernetes.container.image");
  if (!image.empty()) c.image = ReplaceAll(image, "{{SPARK_VERSION}}", c.spark_version);
  c.main_class = StringAt(spec, "mainClass");
  std::string jars = StringAt(spec, "jars");
  std::string py_files = StringAt(spec, "pyFiles");
  if (!jars.empty()) {
    c.primary_resource = FirstOf(jars);
  } else if (c.main_class == "org.apache.spark.deploy.PythonRunner" && !py_files.empty()) {
    c.primary_resource = FirstOf(py_files);
    c.python = true;
  } else if (!py_files.empty()) {
    c.primary_resource = py_files;
    c.python = true;
  } else {
    c.primary_resource = StringAt(spec, "sparkRFiles");
  }
  for (const char* field : {"jars", "pyFiles", "files", "sparkRFiles"}) {
    for (std::string& uri : sim::SplitUris(StringAt(spec, field))) {
      c.dependencies.push_back(std::move(uri));
    }
  }
  for (std::string& uri : sim::SparkConfUris(conf)) c.dependencies.push_back(std::move(uri));
  c.s3a = sim::S3aAccessOf(conf);
  if (const json::value* args = spec.if_contains("driverArgs"); args && args->is_array()) {
    for (const auto& a : args->as_array()) {
      if (a.is_string()) c.driver_args.emplace_back(a.as_string());
    }
  }
  std::string sa = StringAt(conf, "spark.kubernetes.authenticate.driver.serviceAccountName");
  if (!sa.empty()) c.service_account = sa;
  if (conf.contains("spark.app.name")) c.app_name_label = c.name;
  c.client_mode = StringAt(spec, "deploymentMode") == "ClientMode";
  // Spark's choice of the driver container in a pod template: the named one, else the first.
  const json::object* tmpl = nullptr;
  if (const json::object* driver_spec = ObjectAt(spec, "driverSpec")) {
    tmpl = ObjectAt(*driver_spec, "podTemplateSpec");
  }
  const json::object* tmpl_spec = tmpl != nullptr ? ObjectAt(*tmpl, "spec") : nullptr;
  if (tmpl_spec != nullptr) {
    if (const json::value* cs = tmpl_spec->if_contains("containers"); cs && cs->is_array()) {
      std::string wanted = StringAt(conf, "spark.kubernetes.driver.podTemplateContainerName");
      bool taken = false;
      for (const auto& item : cs->as_array()) {
        if (!item.is_object()) continue;
        std::string name = StringAt(item.as_object(), "name");
        if (!taken && (wanted.empty() || name == wanted)) {
          taken = true;
          if (!name.empty()) c.driver_container = name;
        } else if (!name.empty()) {
          c.sidecars.push_back(name);
        }
      }
    }
  }
  // A test's sidecars without a pod template (the service can't send one).
  c.driver_pod = sim::ReadSparkPodConf(conf, "driver");
  c.executor_pod = sim::ReadSparkPodConf(conf, "executor");
  sim::AddTemplateNodeSelector(tmpl, &c.driver_pod);
  if (const json::object* executor_spec = ObjectAt(spec, "executorSpec")) {
    if (const json::object* t = ObjectAt(*executor_spec, "podTemplateSpec")) {
      c.executor_template = *t;
      sim::AddTemplateNodeSelector(t, &c.executor_pod);
    }
  }
  if (StringAt(conf, "spark.dynamicAllocation.enabled") != "true") {
    const std::string instances = StringAt(conf, "spark.executor.instances");
    char* end = nullptr;
    long long n = std::strtoll(instances.c_str(), &end, 10);
    if (!instances.empty() && end != nullptr && *end == '\0' && n > 0) {
      c.executor_instances = std::min<long long>(n, 100);
    }
  }
  std::string executor_image = StringAt(conf, "spark.kubernetes.executor.container.image");
  if (executor_image.empty()) executor_image = StringAt(conf, "spark.kubernetes.container.image");
  c.executor_image = ReplaceAll(executor_image, "{{SPARK_VERSION}}", c.spark_version);
  if (const std::optional<bool> delete_on_termination =
          sim::SparkConfBool(conf, "spark.kubernetes.executor.deleteOnTermination")) {
    c.delete_executors_on_termination = *delete_on_termination;
  } else {
    const json::object* tol = ObjectAt(spec, "applicationTolerations");
    const json::object* restart = tol != nullptr ? ObjectAt(*tol, "restartConfig") : nullptr;
    const std::string policy = restart != nullptr ? StringAt(*restart, "restartPolicy") : "";
    c.delete_executors_on_termination = !policy.empty() && policy != "Never";
  }
  std::string extra = StringAt(conf, "kubesim.sidecars");
  for (size_t start = 0; start < extra.size();) {
    size_t comma = extra.find(',', start);
    if (comma == std::string::npos) comma = extra.size();
    std::string name = extra.substr(start, comma - start);
    if (!name.empty() && name != c.driver_container &&
        std::find(c.sidecars.begin(), c.sidecars.end(), name) == c.sidecars.end()) {
      c.sidecars.push_back(name);
    }
    start = comma + 1;
  }
  return c;
}

Timeline DriverTimeline(const JobConf& conf, int64_t /*attempt*/, int64_t created_ms,
                        double time_scale, int64_t delay_ms) {
  Timeline t;
  t.created_ms = created_ms;
  if (!DriverNode(conf)) return t;
  t.started_ms = created_ms + delay_ms + ScaledMs(kImagePullMs, time_scale);
  if (conf.outcome == Outcome::kEvictBeforeStart) {
    t.ended_ms = t.started_ms;  // evicted when its containers would have started
  } else if (conf.outcome != Outcome::kHang && !ExecutorsNeverStart(conf)) {
    // Executors that can never start keep the driver waiting for them.
    t.ended_ms = *t.started_ms + ScaledMs(conf.duration_ms, time_scale);
  }
  return t;
}

PodStage StageAt(const Timeline& t, int64_t now_ms) {
  if (!t.started_ms || now_ms < *t.started_ms) return PodStage::kPending;
  if (!t.ended_ms || now_ms < *t.ended_ms) return PodStage::kRunning;
  return PodStage::kTerminated;
}

PodStage StageOf(const json::object& pod, std::string_view driver_container) {
  std::string phase;
  const json::object* status = ObjectAt(pod, "status");
  if (status != nullptr) phase = StringAt(*status, "phase");
  if (phase == "Running") {
    const json::value* cs = status->if_contains("containerStatuses");
    if (cs != nullptr && cs->is_array()) {
      for (const auto& c : cs->as_array()) {
        if (!c.is_object() || StringAt(c.as_object(), "name") != driver_container) continue;
        const json::object* state = ObjectAt(c.as_object(), "state");
        if (state != nullptr && ObjectAt(*state, "terminated") != nullptr) {
          return PodStage::kTerminated;
        }
      }
    }
    return PodStage::kRunning;
  }
  if (phase == "Succeeded" || phase == "Failed") return PodStage::kTerminated;
  return PodStage::kPending;
}

json::object BuildDriverPod(const json::object& app, const JobConf& conf, int64_t attempt,
                            const Timeline& timeline) {
  const std::string app_id = AppId(conf.ns, conf.name, attempt);
  static const json::object kEmpty;
  const json::object* spec_ptr = ObjectAt(app, "spec");
  const json::object& spec = spec_ptr != nullptr ? *spec_ptr : kEmpty;
  const json::object* conf_ptr = ObjectAt(spec, "sparkConf");
  const json::object& spark_conf = conf_ptr != nullptr ? *conf_ptr : kEmpty;

  const json::object* tmpl = nullptr;
  if (const json::object* driver_spec = ObjectAt(spec, "driverSpec")) {
    tmpl = ObjectAt(*driver_spec, "podTemplateSpec");
  }

  json::object labels;
  json::object annotations;
  if (tmpl != nullptr) {
    if (const json::object* meta = ObjectAt(*tmpl, "metadata")) {
      if (const json::object* l = ObjectAt(*meta, "labels")) labels = *l;
      if (const json::object* a = ObjectAt(*meta, "annotations")) annotations = *a;
    }
  }
  const std::string kLabelPrefix = "spark.kubernetes.driver.label.";
  const std::string kAnnotationPrefix = "spark.kubernetes.driver.annotation.";
  for (const auto& kv : spark_conf) {
    std::string_view key = kv.key();
    if (!kv.value().is_string()) continue;
    if (key.starts_with(kLabelPrefix)) labels[key.substr(kLabelPrefix.size())] = kv.value();
    if (key.starts_with(kAnnotationPrefix)) {
      annotations[key.substr(kAnnotationPrefix.size())] = kv.value();
    }
  }
  labels["spark-app-name"] = conf.app_name_label;
  labels["spark-app-selector"] = app_id;
  labels["spark-role"] = "driver";
  if (!conf.spark_version.empty()) labels["spark-version"] = conf.spark_version;
  labels["spark.operator/name"] = kOperatorName;
  labels["spark.operator/spark-app-name"] = conf.name;

  json::object meta;
  meta["name"] = app_id + "-driver";
  meta["namespace"] = conf.ns;
  meta["labels"] = std::move(labels);
  if (!annotations.empty()) meta["annotations"] = std::move(annotations);
  json::object owner;
  owner["apiVersion"] = "spark.apache.org/v1";
  owner["kind"] = "SparkApplication";
  owner["name"] = conf.name;
  owner["uid"] = conf.uid;
  owner["blockOwnerDeletion"] = true;
  meta["ownerReferences"] = json::array{owner};

  // The template's pod spec is the base; Spark then sets what it needs.
  json::object pod_spec;
  json::object container;
  json::array other_containers;
  if (tmpl != nullptr) {
    if (const json::object* s = ObjectAt(*tmpl, "spec")) pod_spec = *s;
  }
  if (const json::value* cs = pod_spec.if_contains("containers"); cs && cs->is_array()) {
    std::string wanted = StringAt(spark_conf, "spark.kubernetes.driver.podTemplateContainerName");
    bool taken = false;
    for (const auto& c : cs->as_array()) {
      bool match =
          c.is_object() && (wanted.empty() ? !taken : StringAt(c.as_object(), "name") == wanted);
      if (match && !taken) {
        container = c.as_object();
        taken = true;
      } else {
        other_containers.push_back(c);
      }
    }
  }
  const std::string local_dir = "/var/data/spark-" + Hex(conf.seed ^ 0x51, 8) + "-" +
                                Hex(conf.seed ^ 0x52, 4) + "-" + Hex(conf.seed ^ 0x53, 4) + "-" +
                                Hex(conf.seed ^ 0x54, 4) + "-" + Hex(conf.seed ^ 0x55, 12);
  container["name"] = conf.driver_container;
  container["image"] = conf.image.value_or("");
  if (!container.contains("imagePullPolicy")) container["imagePullPolicy"] = "IfNotPresent";
  json::array args{"driver", "--properties-file", "/opt/spark/conf/spark.properties"};
  if (!conf.main_class.empty() && !conf.python) {
    args.push_back("--class");
    args.emplace_back(conf.main_class);
  }
  args.emplace_back(conf.primary_resource.empty() ? "spark-internal" : conf.primary_resource);
  for (const auto& a : conf.driver_args) args.emplace_back(a);
  container["args"] = std::move(args);
  json::array env;
  if (const json::value* e = container.if_contains("env"); e && e->is_array()) env = e->as_array();
  env.push_back(json::object{{"name", "SPARK_USER"}, {"value", "spark"}});
  env.push_back(json::object{{"name", "SPARK_APPLICATION_ID"}, {"value", app_id}});
  env.push_back(json::object{
      {"name", "SPARK_DRIVER_BIND_ADDRESS"},
      {"valueFrom", json::object{{"fieldRef", json::object{{"apiVersion", "v1"},
                                                           {"fieldPath", "status.podIP"}}}}}});
  env.push_back(json::object{{"name", "SPARK_LOCAL_DIRS"}, {"value", local_dir}});
  env.push_back(json::object{{"name", "SPARK_CONF_DIR"}, {"value", "/opt/spark/conf"}});
  container["env"] = std::move(env);
  container["ports"] = json::array{
      json::object{{"containerPort", 7078}, {"name", "driver-rpc-port"}, {"protocol", "TCP"}},
      json::object{{"containerPort", 7079}, {"name", "blockmanager"}, {"protocol", "TCP"}},
      json::object{{"containerPort", 4040}, {"name", "spark-ui"}, {"protocol", "TCP"}}};
  container["resources"] =
      json::object{{"limits", json::object{{"memory", "1408Mi"}}},
                   {"requests", json::object{{"cpu", "1"}, {"memory", "1408Mi"}}}};
  json::array mounts;
  if (const json::value* m = container.if_contains("volumeMounts"); m && m->is_array()) {
    mounts = m->as_array();
  }
  mounts.push_back(json::object{{"mountPath", local_dir}, {"name", "spark-local-dir-1"}});
  mounts.push_back(
      json::object{{"mountPath", "/opt/spark/conf"}, {"name", "spark-conf-volume-driver"}});
  container["volumeMounts"] = std::move(mounts);
  if (!container.contains("terminationMessagePath")) {
    container["terminationMessagePath"] = "/dev/termination-log";
  }
  if (!container.contains("terminationMessagePolicy")) {
    container["terminationMessagePolicy"] = "File";
  }
  json::array containers{container};
  for (const std::string& name : conf.sidecars) {
    bool in_template = false;
    for (const auto& c : other_containers) {
      in_template = in_template || (c.is_object() && StringAt(c.as_object(), "name") == name);
    }
    if (!in_template) {
      other_containers.push_back(json::object{{"name", name}, {"image", "busybox:1.36"}});
    }
  }
  for (auto& c : other_containers) containers.push_back(std::move(c));
  pod_spec["containers"] = std::move(containers);

  json::array volumes;
  if (const json::value* v = pod_spec.if_contains("volumes"); v && v->is_array()) {
    volumes = v->as_array();
  }
  volumes.push_back(json::object{{"name", "spark-local-dir-1"}, {"emptyDir", json::object()}});
  volumes.push_back(json::object{
      {"name", "spark-conf-volume-driver"},
      {"configMap", json::object{{"name", app_id + "-spark-drv-conf-map"},
                                 {"defaultMode", 420},
                                 {"items", json::array{json::object{{"key", "spark.properties"},
                                                                    {"path", "spark.properties"},
                                                                    {"mode", 420}}}}}}});
  pod_spec["volumes"] = std::move(volumes);
  pod_spec["restartPolicy"] = "Never";
  pod_spec["serviceAccountName"] = conf.service_account;
  pod_spec["serviceAccount"] = conf.service_account;
  pod_spec["hostname"] = app_id + "-driver";
  if (!pod_spec.contains("dnsPolicy")) pod_spec["dnsPolicy"] = "ClusterFirst";
  if (!pod_spec.contains("schedulerName")) pod_spec["schedulerName"] = "default-scheduler";
  if (!pod_spec.contains("terminationGracePeriodSeconds")) {
    pod_spec["terminationGracePeriodSeconds"] = 30;
  }
  if (!pod_spec.contains("enableServiceLinks")) pod_spec["enableServiceLinks"] = true;
  if (!pod_spec.contains("securityContext")) pod_spec["securityContext"] = json::object();
  // Spark's own confs: node selector, Secret env and volumes.
  {
    json::array& cs = pod_spec["containers"].as_array();
    sim::ApplySparkPodConf(conf.driver_pod, &pod_spec, &cs[0].as_object());
  }
  // The scheduler binds a schedulable pod at once.
  if (std::optional<std::string> node = DriverNode(conf)) pod_spec["nodeName"] = *node;

  json::object pod;
  pod["apiVersion"] = "v1";
  pod["kind"] = "Pod";
  pod["metadata"] = std::move(meta);
  pod["spec"] = std::move(pod_spec);
  pod["status"] = DriverPodStatus(conf, attempt, timeline, PodStage::kPending);
  return pod;
}

json::object DriverPodStatus(const JobConf& conf, int64_t attempt, const Timeline& t,
                             PodStage stage) {
  json::object status;
  status["qosClass"] = "Burstable";
  if (!DriverNode(conf)) {
    status["phase"] = "Pending";
    status["conditions"] = json::array{Condition(
        "PodScheduled", false, t.created_ms, "Unschedulable",
        conf.outcome == Outcome::kUnschedulable
            ? "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: "
              "3 No preemption victims found for incoming pod."
            : sim::SelectorMismatchMessage())};
    return status;
  }
  if (conf.outcome == Outcome::kEvictBeforeStart && stage == PodStage::kTerminated) {
    // Evicted before any container started: a terminal pod with no container statuses.
    const int64_t ended = t.ended_ms.value_or(t.created_ms);
    status["phase"] = "Failed";
    status["reason"] = "Evicted";
    status["message"] = "The node was low on resource: ephemeral-storage. ";
    status["conditions"] = json::array{
        Condition("DisruptionTarget", true, ended, "TerminationByKubelet",
                  "The node was low on resource: ephemeral-storage. "),
        Condition("Initialized", true, t.created_ms), Condition("Ready", false, ended, "PodFailed"),
        Condition("PodScheduled", true, t.created_ms)};
    status["startTime"] = FormatPodTime(t.created_ms);
    status["containerStatuses"] = json::array();
    return status;
  }
  const std::string image = FullImage(conf.image.value_or(""));
  // The sidecars of the pod template: waiting while the pod is pending, then running for good.
  auto sidecars = [&](PodStage at, json::array& into) {
    for (const std::string& name : conf.sidecars) {
      json::object sc;
      sc["name"] = name;
      sc["image"] = "busybox:1.36";
      sc["imageID"] = "";
      sc["lastState"] = json::object();
      sc["restartCount"] = 0;
      sc["ready"] = at != PodStage::kPending;
      sc["started"] = at != PodStage::kPending;
      if (at == PodStage::kPending) {
        sc["state"] = json::object{{"waiting", json::object{{"reason", "ContainerCreating"}}}};
      } else {
        sc["state"] = json::object{
            {"running",
             json::object{{"startedAt", FormatPodTime(t.started_ms.value_or(t.created_ms))}}}};
      }
      into.push_back(std::move(sc));
    }
  };
  // Unsigned: the attempt id comes from a status any client may write (INT64_MAX included).
  const std::string container_id =
      "containerd://" + Hex(conf.seed ^ (static_cast<uint64_t>(attempt) * 31 + 7), 64);
  const std::string message_unready =
      std::string("containers with unready status: [") + conf.driver_container + "]";
  json::object cs;
  cs["name"] = conf.driver_container;
  cs["image"] = image;
  cs["imageID"] = "";
  cs["lastState"] = json::object();
  cs["restartCount"] = 0;
  const std::string host_ip = HostIp(conf);
  const std::string pod_ip = PodIp(conf, attempt);
  status["hostIP"] = host_ip;
  status["hostIPs"] = json::array{json::object{{"ip", host_ip}}};
  status["startTime"] = FormatPodTime(t.created_ms);

  if (stage == PodStage::kPending) {
    status["phase"] = "Pending";
    status["conditions"] = json::array{
        Condition("PodReadyToStartContainers", false, t.created_ms),
        Condition("Initialized", true, t.created_ms),
        Condition("Ready", false, t.created_ms, "ContainersNotReady", message_unready),
        Condition("ContainersReady", false, t.created_ms, "ContainersNotReady", message_unready),
        Condition("PodScheduled", true, t.created_ms)};
    cs["ready"] = false;
    cs["started"] = false;
    cs["state"] = json::object{{"waiting", json::object{{"reason", "ContainerCreating"}}}};
    json::array statuses{cs};
    sidecars(stage, statuses);
    status["containerStatuses"] = std::move(statuses);
    return status;
  }

  const int64_t started = t.started_ms.value_or(t.created_ms);
  cs["containerID"] = container_id;
  cs["imageID"] = image.substr(0, image.rfind(':')) + "@sha256:" + Hex(Fnv1a(image), 64);
  status["podIP"] = pod_ip;
  status["podIPs"] = json::array{json::object{{"ip", pod_ip}}};
  if (stage == PodStage::kRunning) {
    status["phase"] = "Running";
    status["conditions"] = json::array{
        Condition("PodReadyToStartContainers", true, started),
        Condition("Initialized", true, t.created_ms), Condition("Ready", true, started),
        Condition("ContainersReady", true, started), Condition("PodScheduled", true, t.created_ms)};
    cs["ready"] = true;
    cs["started"] = true;
    cs["state"] = json::object{{"running", json::object{{"startedAt", FormatPodTime(started)}}}};
    json::array statuses{cs};
    sidecars(stage, statuses);
    status["containerStatuses"] = std::move(statuses);
    return status;
  }

  const int64_t ended = t.ended_ms.value_or(started);
  const bool success = conf.outcome == Outcome::kSucceed;
  const bool evicted = conf.outcome == Outcome::kEvict;
  const char* pod_reason = success ? "PodCompleted" : "PodFailed";
  json::array conditions;
  const std::string evict_message =
      "The node was low on resource: memory. Threshold quantity: 100Mi, available: 52Mi. "
      "Container spark-kubernetes-driver was using 1398Mi, request is 1408Mi, has larger "
      "consumption of memory. ";
  if (evicted) {
    conditions.push_back(
        Condition("DisruptionTarget", true, ended, "TerminationByKubelet", evict_message));
  }
  conditions.push_back(Condition("PodReadyToStartContainers", false, ended));
  conditions.push_back(Condition("Initialized", true, t.created_ms));
  conditions.push_back(Condition("Ready", false, ended, pod_reason));
  conditions.push_back(Condition("ContainersReady", false, ended, pod_reason));
  conditions.push_back(Condition("PodScheduled", true, t.created_ms));
  status["conditions"] = std::move(conditions);
  status["phase"] = success ? "Succeeded" : "Failed";
  // Running sidecars keep the pod Running after the driver container ends.
  if (!conf.sidecars.empty() && !evicted) status["phase"] = "Running";
  if (evicted) {
    status["reason"] = "Evicted";
    status["message"] = evict_message;
  }
  json::object terminated;
  terminated["containerID"] = container_id;
  terminated["exitCode"] = success ? 0 : (evicted ? 137 : 1);
  terminated["reason"] = success ? "Completed" : "Error";
  terminated["startedAt"] = FormatPodTime(started);
  terminated["finishedAt"] = FormatPodTime(ended);
  cs["ready"] = false;
  cs["started"] = false;
  cs["state"] = json::object{{"terminated", std::move(terminated)}};
  json::array statuses{cs};
  if (!evicted) sidecars(stage, statuses);
  status["containerStatuses"] = std::move(statuses);
  return status;
}

}  // namespace kubesim::op::internal
