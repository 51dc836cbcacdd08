#include "kubesim/server/seed.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <utility>
#include <vector>

namespace kubesim {
namespace json = boost::json;
namespace {

constexpr int64_t kChunkBytes = 1 << 20;

bool ToInt(const std::string& text, int64_t* out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

// RFC 3339 UTC; with milliseconds as the operator writes status times, without as the kubelet
// writes pod times.
std::string Time(int64_t ms, bool millis) {
  time_t secs = static_cast<time_t>(ms / 1000);
  struct tm tm {};
  gmtime_r(&secs, &tm);
  char buf[80];
  if (millis) {
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(ms % 1000));
  } else {
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  }
  return buf;
}

json::object App(const SeedSpec& spec, int64_t i) {
  return json::object{
      {"apiVersion", "spark.apache.org/v1"},
      {"kind", "SparkApplication"},
      {"metadata",
       json::object{{"name", SeedAppName(spec, i)},
                    {"namespace", spec.ns},
                    {"labels", json::object{{"app.kubernetes.io/managed-by", "gravitino"},
                                            {"gravitino.apache.org/job-id", SeedJobId(spec, i)}}},
                    {"annotations", json::object{{"gravitino.apache.org/metalake", "bench"}}}}},
      {"spec",
       json::object{
           {"mainClass", "org.apache.spark.examples.SparkPi"},
           {"jars", "local:///opt/spark/examples/jars/spark-examples.jar"},
           {"driverArgs", json::array{}},
           {"sparkConf",
            json::object{{"spark.kubernetes.authenticate.driver.serviceAccountName", "spark"},
                         {"spark.kubernetes.container.image", "apache/spark:4.0.0"},
                         {"spark.kubernetes.namespace", spec.ns}}},
           {"runtimeVersions", json::object{{"sparkVersion", "4.0.0"}}},
           {"applicationTolerations",
            json::object{
                {"restartConfig",
                 json::object{{"restartPolicy", "Never"}, {"restartCounterResetMillis", -1}}},
                {"applicationTimeoutConfig", json::object{{"driverStartTimeoutMillis", 3600000},
                                                          {"driverReadyTimeoutMillis", 3600000}}},
                {"resourceRetainPolicy", "Always"},
                {"resourceRetainDurationMillis", 86400000},
                {"ttlAfterStopMillis", 604800000}}}}}};
}

json::object AppStatus(const SeedSpec& spec, int64_t start_ms) {
  static const std::pair<const char*, const char*> kStates[] = {
      {"Submitted", "Spark application has been created on Kubernetes Cluster."},
      {"DriverRequested", "Requested driver from resource scheduler."},
      {"DriverStarted", "Driver has started running."},
      {"DriverReady", "Driver has reached ready state."},
      {"RunningHealthy", "Application is running healthy."},
      {"Succeeded", "Spark application completed successfully."},
      {"TerminatedWithoutReleaseResources",
       "Application is terminated without releasing resources as configured."}};
  const size_t n = spec.state == "Running" ? 5 : 7;
  json::object history;
  json::object current;
  for (size_t k = 0; k < n; ++k) {
    current =
        json::object{{"currentStateSummary", kStates[k].first},
                     {"lastTransitionTime", Time(start_ms + static_cast<int64_t>(k) * 1000, true)},
                     {"message", kStates[k].second}};
    history[std::to_string(k)] = current;
  }
  return json::object{
      {"currentAttemptSummary",
       json::object{{"attemptInfo", json::object{{"failureRestartCounter", 0},
                                                 {"id", 0},
                                                 {"restartCounter", 0},
                                                 {"schedulingFailureRestartCounter", 0}}}}},
      {"stateTransitionHistory", std::move(history)},
      {"currentState", std::move(current)}};
}

json::object DriverPod(const SeedSpec& spec, int64_t i, const std::string& app_uid) {
  json::object meta{
      {"name", SeedDriverPodName(spec, i)},
      {"namespace", spec.ns},
      {"labels", json::object{{"spark-app-name", "spark"},
                              {"spark-app-selector", SeedAppName(spec, i) + "-0"},
                              {"spark-role", "driver"},
                              {"spark-version", "4.0.0"},
                              {"spark.operator/name", "spark-kubernetes-operator"},
                              {"spark.operator/spark-app-name", SeedAppName(spec, i)}}},
      {"ownerReferences", json::array{json::object{{"apiVersion", "spark.apache.org/v1"},
                                                   {"blockOwnerDeletion", true},
                                                   {"kind", "SparkApplication"},
                                                   {"name", SeedAppName(spec, i)},
                                                   {"uid", app_uid}}}}};
  if (spec.log_bytes > 0) {
    meta["annotations"] = json::object{{kSyntheticLogAnnotation, std::to_string(spec.log_bytes)}};
  }
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", std::move(meta)},
      {"spec",
       json::object{{"containers", json::array{json::object{{"name", "spark-kubernetes-driver"},
                                                            {"image", "apache/spark:4.0.0"}}}},
                    {"restartPolicy", "Never"},
                    {"nodeName", "kubesim-node-1"}}}};
}

json::object DriverPodStatus(int64_t start_ms) {
  return json::object{
      {"phase", "Succeeded"},
      {"startTime", Time(start_ms, false)},
      {"containerStatuses",
       json::array{json::object{
           {"name", "spark-kubernetes-driver"},
           {"image", "docker.io/apache/spark:4.0.0"},
           {"ready", false},
           {"started", false},
           {"restartCount", 0},
           {"state",
            json::object{
                {"terminated", json::object{{"exitCode", 0},
                                            {"reason", "Completed"},
                                            {"startedAt", Time(start_ms + 2000, false)},
                                            {"finishedAt", Time(start_ms + 5000, false)}}}}}}}}};
}

// Creates `obj`, then writes `status` through the status subresource, as the API server
// requires for types with one.
bool CreateWithStatus(Store& store, const ResourceType& type, const std::string& ns,
                      json::object obj, json::object status, json::object* created,
                      std::string* error) {
  auto c = store.Create(type, ns, std::move(obj), WriteOptions{});
  if (!c.ok()) {
    *error = c.error().message;
    return false;
  }
  json::object with_status = std::move(c.value());
  with_status["status"] = std::move(status);
  std::string name(with_status["metadata"].as_object()["name"].as_string());
  auto u = store.Update(type, ns, name, std::move(with_status), true, WriteOptions{});
  if (!u.ok()) {
    *error = u.error().message;
    return false;
  }
  if (created != nullptr) *created = std::move(u.value());
  return true;
}

// Lines [first, first + count) of a synthetic log, cut to `limit` bytes, a chunk per Poll.
class SyntheticLog : public BodyStream {
 public:
  SyntheticLog(int64_t first, int64_t count, int64_t limit, std::function<void()> notify)
      : next_(first), end_(first + count), left_(limit), notify_(std::move(notify)) {}

  std::string Poll(int64_t, bool* done) override {
    std::string out;
    while (next_ < end_ && left_ > 0 && static_cast<int64_t>(out.size()) < kChunkBytes) {
      std::string line = SyntheticLogLine(next_++);
      if (static_cast<int64_t>(line.size()) > left_) line.resize(static_cast<size_t>(left_));
      left_ -= static_cast<int64_t>(line.size());
      out += line;
    }
    *done = next_ >= end_ || left_ <= 0;
    // The connection polls again only when notified; more is ready at once.
    if (!*done && notify_) notify_();
    return out;
  }

  void Stop() override { next_ = end_; }

 private:
  int64_t next_;
  int64_t end_;
  int64_t left_;
  std::function<void()> notify_;
};

}  // namespace

bool ParseSeedSpec(const std::string& text, SeedSpec* spec, std::string* error) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 3 || parts.size() > 4) {
    *error = "want NS:COUNT:STATE[:LOG_BYTES]";
    return false;
  }
  SeedSpec s;
  s.ns = parts[0];
  s.state = parts[2];
  if (s.ns.empty()) {
    *error = "the namespace is empty";
    return false;
  }
  if (!ToInt(parts[1], &s.count) || s.count < 1 || s.count > 10000000) {
    *error = "COUNT must be 1..10000000";
    return false;
  }
  if (s.state != "Running" && s.state != "Succeeded") {
    *error = "STATE must be Running or Succeeded";
    return false;
  }
  if (parts.size() == 4) {
    if (!ToInt(parts[3], &s.log_bytes) || s.log_bytes < 1) {
      *error = "LOG_BYTES must be a positive number";
      return false;
    }
    if (s.state != "Succeeded") {
      *error = "LOG_BYTES needs a driver pod: STATE Succeeded";
      return false;
    }
  }
  *spec = std::move(s);
  return true;
}

std::string SeedJobId(const SeedSpec& spec, int64_t i) {
  return Lower(spec.state) + "-" + std::to_string(i);
}

std::string SeedAppName(const SeedSpec& spec, int64_t i) {
  return "gravitino-job-" + SeedJobId(spec, i);
}

std::string SeedDriverPodName(const SeedSpec& spec, int64_t i) {
  return SeedAppName(spec, i) + "-0-driver";
}

bool SeedStore(Store& store, const SeedSpec& spec, int64_t now_ms, std::string* error,
               const std::atomic<bool>* cancel) {
  const ResourceType* apps = store.FindType("spark.apache.org", "v1", "sparkapplications");
  const ResourceType* pods = store.FindType("", "v1", "pods");
  if (apps == nullptr || pods == nullptr) {
    *error = "sparkapplications.spark.apache.org/v1 is not served (no --crd-dir?)";
    return false;
  }
  // An hour ago, so nothing seeded looks new.
  const int64_t start_ms = now_ms - 3600 * 1000;
  for (int64_t i = 0; i < spec.count; ++i) {
    if (cancel != nullptr && *cancel) {
      *error = "cancelled";
      return false;
    }
    json::object app;
    if (!CreateWithStatus(store, *apps, spec.ns, App(spec, i), AppStatus(spec, start_ms), &app,
                          error)) {
      *error = SeedAppName(spec, i) + ": " + *error;
      return false;
    }
    if (spec.state != "Succeeded") continue;
    std::string uid(app["metadata"].as_object()["uid"].as_string());
    if (!CreateWithStatus(store, *pods, spec.ns, DriverPod(spec, i, uid), DriverPodStatus(start_ms),
                          nullptr, error)) {
      *error = SeedDriverPodName(spec, i) + ": " + *error;
      return false;
    }
  }
  store.Compact();
  return true;
}

std::string SyntheticLogLine(int64_t i) {
  char head[64];
  int n = std::snprintf(head, sizeof(head), "%012lld INFO SparkContext: synthetic driver log ",
                        static_cast<long long>(i));
  std::string line(head, static_cast<size_t>(n));
  line.resize(kSyntheticLineBytes - 1, '.');
  line.push_back('\n');
  return line;
}

std::shared_ptr<BodyStream> SyntheticLogStream(const Store& store, const std::string& ns,
                                               const std::string& pod, const LogOptions& options,
                                               std::function<void()> notify) {
  const ResourceType* pods = store.FindType("", "v1", "pods");
  if (pods == nullptr) return nullptr;
  auto got = store.Get(*pods, ns, pod);
  if (!got.ok()) return nullptr;
  const json::object& meta = got.value().at("metadata").as_object();
  const json::value* annotations = meta.if_contains("annotations");
  if (annotations == nullptr || !annotations->is_object()) return nullptr;
  const json::value* size = annotations->as_object().if_contains(kSyntheticLogAnnotation);
  int64_t bytes = 0;
  if (size == nullptr || !size->is_string() || !ToInt(std::string(size->as_string()), &bytes)) {
    return nullptr;
  }
  int64_t lines = std::max<int64_t>(0, bytes / kSyntheticLineBytes);
  int64_t first = 0;
  if (options.tail_lines) first = std::max<int64_t>(0, lines - *options.tail_lines);
  int64_t limit = options.limit_bytes.value_or(lines * kSyntheticLineBytes);
  return std::make_shared<SyntheticLog>(first, lines - first, limit, std::move(notify));
}

}  // namespace kubesim
