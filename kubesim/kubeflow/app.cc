#include "kubesim/kubeflow/app.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kubesim/kubeflow/kubeflow.h"
#include "kubesim/sim/clock.h"
#include "kubesim/sim/fetch.h"
#include "kubesim/sim/pod_template.h"

namespace kubesim::kubeflow::internal {
namespace {

namespace json = boost::json;

std::optional<int64_t> IntAt(const json::object* o, std::string_view key) {
  if (o == nullptr) return std::nullopt;
  const json::value* v = o->if_contains(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  if (v->is_double()) return static_cast<int64_t>(v->get_double());
  return std::nullopt;
}

std::optional<bool> BoolAt(const json::object* o, std::string_view key) {
  if (o == nullptr) return std::nullopt;
  const json::value* v = o->if_contains(key);
  if (v == nullptr || !v->is_bool()) return std::nullopt;
  return v->get_bool();
}

json::object ObjectCopy(const json::object* o, std::string_view key) {
  const json::object* got = ObjectAt(o, key);
  json::object out;
  if (got == nullptr) return out;
  for (const auto& kv : *got) {
    if (kv.value().is_string()) out[kv.key()] = kv.value();
  }
  return out;
}

// Key order is whatever the last writer used: a canonical form sorts it, so that an update
// that changes nothing hashes the same.
void Canonical(const json::value& v, std::string* out) {
  if (v.is_object()) {
    std::vector<std::pair<std::string, const json::value*>> items;
    for (const auto& kv : v.get_object()) items.emplace_back(std::string(kv.key()), &kv.value());
    std::sort(items.begin(), items.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    *out += '{';
    for (const auto& [key, value] : items) {
      *out += json::serialize(json::value(key)) + ':';
      Canonical(*value, out);
      *out += ',';
    }
    *out += '}';
  } else if (v.is_array()) {
    *out += '[';
    for (const json::value& item : v.get_array()) {
      Canonical(item, out);
      *out += ',';
    }
    *out += ']';
  } else {
    *out += json::serialize(v);
  }
}

std::string Uuid(uint64_t a, uint64_t b) {
  std::string h = Hex(a, 16) + Hex(b, 16);
  h[12] = '4';
  h[16] = "89ab"[std::isdigit(h[16]) ? (h[16] - '0') % 4 : (h[16] - 'a' + 10) % 4];
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) +
         "-" + h.substr(20, 12);
}

std::string Sanitize(std::string_view name) {
  std::string out;
  for (char c : name) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool ok = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9');
    if (!ok) l = '-';
    if (l == '-' && !out.empty() && out.back() == '-') continue;
    out.push_back(l);
  }
  while (!out.empty() && out.front() == '-') out.erase(out.begin());
  return out;
}

// sparkConf with the spark-submit confs the operator adds for the spec's node selectors, Secret
// volumes and Secret env (sparkConf entries of the same key lose to them, as later --conf
// arguments win).
json::object SubmitConf(const json::object& spec, const json::object& conf) {
  json::object out = conf;
  auto selectors = [&out](const json::object* owner, const std::string& prefix) {
    for (const auto& kv : ObjectCopy(owner, "nodeSelector")) {
      out[prefix + std::string(kv.key())] = kv.value();
    }
  };
  selectors(&spec, "spark.kubernetes.node.selector.");
  for (const char* role : {"driver", "executor"}) {
    const json::object* r = ObjectAt(&spec, role);
    const std::string prefix = std::string("spark.kubernetes.") + role + ".";
    selectors(r, prefix + "node.selector.");
    if (const json::value* secrets = r != nullptr ? r->if_contains("secrets") : nullptr;
        secrets != nullptr && secrets->is_array()) {
      for (const json::value& s : secrets->get_array()) {
        if (!s.is_object()) continue;
        out[prefix + "secrets." + StringAt(s.get_object(), "name")] =
            StringAt(s.get_object(), "path");
      }
    }
    if (const json::object* refs = ObjectAt(r, "envSecretKeyRefs")) {
      for (const auto& kv : *refs) {
        if (!kv.value().is_object()) continue;
        out[prefix + "secretKeyRef." + std::string(kv.key())] =
            StringAt(kv.value().get_object(), "name") + ":" +
            StringAt(kv.value().get_object(), "key");
      }
    }
  }
  return out;
}

}  // namespace

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

Job ReadJob(const json::object& app) {
  static const json::object kEmpty;
  Job job;
  const json::object* meta = ObjectAt(&app, "metadata");
  if (meta != nullptr) {
    job.ns = StringAt(*meta, "namespace");
    job.name = StringAt(*meta, "name");
    job.uid = StringAt(*meta, "uid");
    job.deleting = meta->contains("deletionTimestamp") && !meta->at("deletionTimestamp").is_null();
    for (const auto& kv : ObjectCopy(meta, "labels")) {
      if (!kv.key().starts_with("kueue.x-k8s.io/")) job.app_labels[kv.key()] = kv.value();
    }
    if (const json::object* a = ObjectAt(meta, "annotations")) {
      job.recorded_spec_hash = StringAt(*a, kSpecHashAnnotation);
    }
  }
  job.seed = Fnv1a(job.uid.empty() ? job.ns + "/" + job.name : job.uid);
  const json::object* spec_ptr = ObjectAt(&app, "spec");
  const json::object& spec = spec_ptr != nullptr ? *spec_ptr : kEmpty;
  const json::object* conf_ptr = ObjectAt(&spec, "sparkConf");
  const json::object& conf = conf_ptr != nullptr ? *conf_ptr : kEmpty;
  const json::object* driver = ObjectAt(&spec, "driver");
  const json::object* executor = ObjectAt(&spec, "executor");

  std::string outcome = StringAt(conf, "kubesim.outcome");
  if (outcome == "fail") job.outcome = Outcome::kFail;
  if (outcome == "submission-fail") job.outcome = Outcome::kSubmissionFail;
  if (outcome == "unschedulable") job.outcome = Outcome::kUnschedulable;
  if (outcome == "hang") job.outcome = Outcome::kHang;
  if (outcome == "driver-deleted") job.outcome = Outcome::kDriverDeleted;
  // kubesim.failAttempts=N: the drivers of the first N execution attempts fail as `fail` does.
  if (job.outcome == Outcome::kSucceed) {
    std::string fail_attempts = StringAt(conf, "kubesim.failAttempts");
    char* end = nullptr;
    long long n = std::strtoll(fail_attempts.c_str(), &end, 10);
    const int64_t attempts = IntAt(ObjectAt(&app, "status"), "executionAttempts").value_or(0);
    if (!fail_attempts.empty() && end != nullptr && *end == '\0' && attempts <= n) {
      job.outcome = Outcome::kFail;
    }
  }
  job.log_args = StringAt(conf, "kubesim.logArgs") == "true";
  std::string duration = StringAt(conf, "kubesim.durationMs");
  if (!duration.empty()) {
    char* end = nullptr;
    long long v = std::strtoll(duration.c_str(), &end, 10);
    if (end != nullptr && *end == '\0' && v >= 0) job.duration_ms = v;
  }

  job.driver_pod_name = driver != nullptr ? StringAt(*driver, "podName") : "";
  if (job.driver_pod_name.empty()) {
    job.driver_pod_name = StringAt(conf, "spark.kubernetes.driver.pod.name");
  }
  if (job.driver_pod_name.empty()) job.driver_pod_name = job.name + "-driver";
  job.type = StringAt(spec, "type");
  job.spark_version = StringAt(spec, "sparkVersion");
  job.image = StringAt(spec, "image");
  job.driver_image = driver != nullptr ? StringAt(*driver, "image") : "";
  if (job.driver_image.empty()) job.driver_image = job.image;
  job.executor_image = executor != nullptr ? StringAt(*executor, "image") : "";
  if (job.executor_image.empty()) job.executor_image = job.image;
  job.main_class = StringAt(spec, "mainClass");
  job.main_file = StringAt(spec, "mainApplicationFile");
  if (!job.main_file.empty()) job.dependencies.push_back(job.main_file);
  const json::object* deps = ObjectAt(&spec, "deps");
  for (const char* field : {"jars", "files", "pyFiles", "archives"}) {
    const json::value* list = deps != nullptr ? deps->if_contains(field) : nullptr;
    if (list == nullptr || !list->is_array()) continue;
    for (const json::value& uri : list->get_array()) {
      if (uri.is_string()) job.dependencies.emplace_back(uri.get_string());
    }
  }
  for (std::string& uri : sim::SparkConfUris(conf)) job.dependencies.push_back(std::move(uri));
  job.s3a = sim::S3aAccessOf(conf);
  if (const json::value* args = spec.if_contains("arguments"); args && args->is_array()) {
    for (const json::value& a : args->get_array()) {
      if (a.is_string()) job.arguments.emplace_back(a.get_string());
    }
  }
  job.driver_service_account = driver != nullptr ? StringAt(*driver, "serviceAccount") : "";
  if (job.driver_service_account.empty()) job.driver_service_account = "default";
  job.executor_service_account = executor != nullptr ? StringAt(*executor, "serviceAccount") : "";
  if (job.executor_service_account.empty()) job.executor_service_account = "default";
  job.executor_instances = std::max<int64_t>(IntAt(executor, "instances").value_or(1), 0);
  // The operator passes spec.executor.deleteOnTermination to spark-submit after the sparkConf
  // entries, so the spec wins when it is set; else the driver reads the sparkConf one, and Spark's
  // own default is true.
  job.delete_executors_on_termination =
      BoolAt(executor, "deleteOnTermination")
          .value_or(sim::SparkConfBool(conf, "spark.kubernetes.executor.deleteOnTermination")
                        .value_or(true));
  job.has_driver_template = ObjectAt(driver, "template") != nullptr;
  job.driver_labels = ObjectCopy(driver, "labels");
  job.driver_annotations = ObjectCopy(driver, "annotations");
  job.executor_labels = ObjectCopy(executor, "labels");
  job.executor_annotations = ObjectCopy(executor, "annotations");
  // spec.monitoring: the operator points Prometheus at the JMX exporter agent it adds to the
  // exposed pods (the agent itself and its ConfigMap are not simulated).
  if (const json::object* monitoring = ObjectAt(&spec, "monitoring")) {
    const json::object* prometheus = ObjectAt(monitoring, "prometheus");
    const std::string port = std::to_string(IntAt(prometheus, "port").value_or(8090));
    const auto expose = [&](json::object& annotations) {
      annotations["prometheus.io/scrape"] = "true";
      annotations["prometheus.io/port"] = port;
      annotations["prometheus.io/path"] = "/metrics";
    };
    if (BoolAt(monitoring, "exposeDriverMetrics").value_or(false)) expose(job.driver_annotations);
    if (BoolAt(monitoring, "exposeExecutorMetrics").value_or(false)) {
      expose(job.executor_annotations);
    }
  }
  if (driver != nullptr && !StringAt(*driver, "memory").empty()) {
    job.driver_memory = StringAt(*driver, "memory");
  }
  if (executor != nullptr && !StringAt(*executor, "memory").empty()) {
    job.executor_memory = StringAt(*executor, "memory");
  }
  job.driver_cores = std::max<int64_t>(IntAt(driver, "cores").value_or(1), 1);
  job.executor_cores = std::max<int64_t>(IntAt(executor, "cores").value_or(1), 1);

  if (const json::object* rp = ObjectAt(&spec, "restartPolicy")) {
    std::string type = StringAt(*rp, "type");
    if (!type.empty()) job.restart.type = type;
    job.restart.on_failure_retries = IntAt(rp, "onFailureRetries");
    job.restart.on_submission_failure_retries = IntAt(rp, "onSubmissionFailureRetries");
    if (auto s = IntAt(rp, "onFailureRetryInterval"); s && *s > 0) {
      job.restart.on_failure_interval_ms = *s * 1000;
    }
    if (auto s = IntAt(rp, "onSubmissionFailureRetryInterval"); s && *s > 0) {
      job.restart.on_submission_failure_interval_ms = *s * 1000;
    }
  }
  const json::object submit_conf = SubmitConf(spec, conf);
  job.driver_pod = sim::ReadSparkPodConf(submit_conf, "driver");
  job.executor_pod = sim::ReadSparkPodConf(submit_conf, "executor");
  if (const json::object* t = ObjectAt(driver, "template")) {
    job.driver_template = *t;
    sim::AddTemplateNodeSelector(t, &job.driver_pod);
  }
  if (const json::object* t = ObjectAt(executor, "template")) {
    job.executor_template = *t;
    sim::AddTemplateNodeSelector(t, &job.executor_pod);
  }
  job.driver_template_container =
      StringAt(submit_conf, "spark.kubernetes.driver.podTemplateContainerName");
  job.suspend = BoolAt(&spec, "suspend").value_or(false);
  job.ttl_seconds = IntAt(&spec, "timeToLiveSeconds");

  // Neither field restarts a run when it changes.
  json::object hashed = spec;
  hashed.erase("suspend");
  hashed.erase("timeToLiveSeconds");
  std::string canonical;
  Canonical(hashed, &canonical);
  job.spec_hash = Hex(Fnv1a(canonical), 16);
  return job;
}

Status ReadStatus(const json::object& app) {
  Status s;
  const json::object* st = ObjectAt(&app, "status");
  if (st == nullptr) return s;
  s.present = true;
  if (const json::object* as = ObjectAt(st, "applicationState")) {
    s.state = StringAt(*as, "state");
    s.error_message = StringAt(*as, "errorMessage");
  }
  if (const json::object* di = ObjectAt(st, "driverInfo")) {
    s.pod_name = StringAt(*di, "podName");
    s.ui_service_name = StringAt(*di, "webUIServiceName");
    s.ui_port = IntAt(di, "webUIPort").value_or(0);
    s.ui_address = StringAt(*di, "webUIAddress");
  }
  s.submission_id = StringAt(*st, "submissionID");
  s.app_id = StringAt(*st, "sparkApplicationId");
  s.last_submission_ms = sim::ParseTime(StringAt(*st, "lastSubmissionAttemptTime"));
  s.termination_ms = sim::ParseTime(StringAt(*st, "terminationTime"));
  s.execution_attempts = IntAt(st, "executionAttempts").value_or(0);
  s.submission_attempts = IntAt(st, "submissionAttempts").value_or(0);
  if (const json::object* es = ObjectAt(st, "executorState")) {
    for (const auto& kv : *es) {
      if (kv.value().is_string()) s.executor_state[kv.key()] = kv.value().get_string();
    }
  }
  return s;
}

json::object StatusJson(const Status& s) {
  json::object out;
  if (!s.app_id.empty()) out["sparkApplicationId"] = s.app_id;
  if (!s.submission_id.empty()) out["submissionID"] = s.submission_id;
  out["lastSubmissionAttemptTime"] =
      s.last_submission_ms ? json::value(sim::FormatTime(*s.last_submission_ms, false)) : nullptr;
  out["terminationTime"] =
      s.termination_ms ? json::value(sim::FormatTime(*s.termination_ms, false)) : nullptr;
  json::object driver;
  if (!s.pod_name.empty()) driver["podName"] = s.pod_name;
  if (!s.ui_service_name.empty()) driver["webUIServiceName"] = s.ui_service_name;
  if (s.ui_port != 0) driver["webUIPort"] = s.ui_port;
  if (!s.ui_address.empty()) driver["webUIAddress"] = s.ui_address;
  out["driverInfo"] = std::move(driver);
  json::object state{{"state", s.state}};
  if (!s.error_message.empty()) state["errorMessage"] = s.error_message;
  out["applicationState"] = std::move(state);
  if (!s.executor_state.empty()) {
    json::object es;
    for (const auto& [pod, state_name] : s.executor_state) es[pod] = state_name;
    out["executorState"] = std::move(es);
  }
  if (s.execution_attempts != 0) out["executionAttempts"] = s.execution_attempts;
  if (s.submission_attempts != 0) out["submissionAttempts"] = s.submission_attempts;
  return out;
}

std::string SubmissionId(const Job& job, const Status& status) {
  std::string input = job.uid + "/" + job.ns + "/" + job.name + "/" + status.submission_id + "/" +
                      std::to_string(status.submission_attempts) + "/" +
                      std::to_string(status.execution_attempts);
  uint64_t h = Fnv1a(input);
  return Uuid(h, h ^ 0x5bd1e995ULL);
}

std::string SparkAppId(std::string_view submission_id) {
  uint64_t h = Fnv1a(submission_id);
  return "spark-" + Hex(h ^ 0xa11ce, 32);
}

std::string ExecutorName(const Job& job, std::string_view submission_id, int64_t n) {
  const std::string id = Hex(Fnv1a(submission_id) ^ 0xe7ec, 16);
  const std::string suffix = "-exec-" + std::to_string(n);
  std::string prefix = Sanitize(job.name) + "-" + id;
  if (prefix.size() + suffix.size() > 63) prefix = "spark-" + id;
  return prefix + suffix;
}

}  // namespace kubesim::kubeflow::internal
