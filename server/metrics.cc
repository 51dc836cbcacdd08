#include "server/metrics.h"

#include <google/protobuf/descriptor.h>
#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <array>
#include <atomic>
#include <limits>
#include <map>
#include <tuple>

#include "absl/strings/ascii.h"
#include "base/grpc_codes.h"
#include "base/strings.h"

namespace kje::server {
namespace {

static_assert(std::size(kGrpcCodeNames) == grpc::StatusCode::UNAUTHENTICATED + 1);

// prometheus.DefBuckets of client_golang, which go-grpc-prometheus's handling histogram uses:
// dashboards built on it expect these `le` values.
const std::vector<double> kGrpcBuckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

constexpr const char* kSubmitResults[] = {"created", "adopted"};
constexpr const char* kCancelResults[] = {"requested", "already_stopped"};

// A result label from a fixed set: the named successes, or a failure's lowercase code name.
std::string BoundedResult(std::string_view result, const char* const (&successes)[2]) {
  for (const char* s : successes) {
    if (result == s) return std::string(result);
  }
  for (size_t i = 1; i < std::size(kGrpcCodeNames); ++i) {
    if (result == GrpcCodeResult(static_cast<grpc::StatusCode>(i))) return std::string(result);
  }
  return "other";
}

prometheus::ClientMetric::Label Label(std::string name, std::string value) {
  return prometheus::ClientMetric::Label{std::move(name), std::move(value)};
}

prometheus::MetricFamily NewFamily(std::string name, std::string help,
                                   prometheus::MetricType type) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  return family;
}

}  // namespace

std::string_view GrpcCodeName(grpc::StatusCode code) {
  return GrpcCodeNameOf(static_cast<int>(code));
}

std::string GrpcCodeResult(grpc::StatusCode code) {
  return absl::AsciiStrToLower(ToAbsl(GrpcCodeName(code)));
}

// Kubernetes requests from the client's own counters, converted at scrape time.
class Metrics::KubernetesCollector final : public prometheus::Collectable {
 public:
  explicit KubernetesCollector(const Metrics& metrics) : metrics_(metrics) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    std::map<k8s::RequestMetrics::Key, k8s::RequestMetrics::Value> snapshot;
    std::shared_ptr<const k8s::RequestLimiter> limiter;
    bool has_requests = false;
    {
      absl::MutexLock lock(&metrics_.mu_);
      limiter = metrics_.limiter_;
      has_requests = metrics_.requests_ != nullptr;
      if (has_requests) snapshot = metrics_.requests_->Snapshot();
    }
    std::vector<prometheus::MetricFamily> out;
    if (limiter != nullptr) AddLimiterFamilies(limiter->Stats(), out);
    auto requests = NewFamily("k8s_job_executor_kubernetes_requests_total",
                              "Requests to the Kubernetes API server by verb, resource and HTTP "
                              "status code (\"error\": no response); every attempt, retries "
                              "included.",
                              prometheus::MetricType::Counter);
    auto duration = NewFamily("k8s_job_executor_kubernetes_request_duration_seconds",
                              "Latency of requests to the Kubernetes API server by verb and "
                              "resource, every outcome included.",
                              prometheus::MetricType::Histogram);
    // The latency histogram leaves the code out: it would multiply the bucket series by the
    // number of codes seen, and the counter above already splits by code.
    std::map<std::pair<std::string, std::string>, k8s::RequestMetrics::Value> merged;
    for (const auto& [key, value] : snapshot) {
      prometheus::ClientMetric metric;
      metric.label = {Label("code", key.code), Label("resource", key.resource),
                      Label("verb", key.verb)};
      metric.counter.value = static_cast<double>(value.count);
      requests.metric.push_back(std::move(metric));

      k8s::RequestMetrics::Value& sum = merged[{key.verb, key.resource}];
      sum.count += value.count;
      sum.latency_sum_seconds += value.latency_sum_seconds;
      for (size_t i = 0; i < value.bucket_counts.size(); ++i) {
        sum.bucket_counts[i] += value.bucket_counts[i];
      }
    }
    for (const auto& [verb_resource, value] : merged) {
      prometheus::ClientMetric metric;
      metric.label = {Label("resource", verb_resource.second), Label("verb", verb_resource.first)};
      metric.histogram.sample_count = value.count;
      metric.histogram.sample_sum = value.latency_sum_seconds;
      for (size_t i = 0; i < k8s::RequestMetrics::kBuckets.size(); ++i) {
        metric.histogram.bucket.push_back(
            {value.bucket_counts[i], k8s::RequestMetrics::kBuckets[i]});
      }
      metric.histogram.bucket.push_back({value.count, std::numeric_limits<double>::infinity()});
      duration.metric.push_back(std::move(metric));
    }
    if (has_requests) {
      out.push_back(std::move(requests));
      out.push_back(std::move(duration));
    }
    return out;
  }

 private:
  // A family of one unlabelled gauge or counter.
  static prometheus::MetricFamily Single(const char* name, const char* help,
                                         prometheus::MetricType type, double value) {
    auto family = NewFamily(name, help, type);
    prometheus::ClientMetric metric;
    (type == prometheus::MetricType::Gauge ? metric.gauge.value : metric.counter.value) = value;
    family.metric.push_back(std::move(metric));
    return family;
  }
  static prometheus::MetricFamily Gauge(const char* name, const char* help, double value) {
    return Single(name, help, prometheus::MetricType::Gauge, value);
  }
  static prometheus::MetricFamily Counter(const char* name, const char* help, double value) {
    return Single(name, help, prometheus::MetricType::Counter, value);
  }

  static void AddLimiterFamilies(const k8s::LimiterStats& stats,
                                 std::vector<prometheus::MetricFamily>& out) {
    out.push_back(Gauge("k8s_job_executor_kubernetes_requests_in_flight",
                        "Requests to the Kubernetes API server holding one of "
                        "kubernetes.maxInFlight's places (watches and followed logs aside).",
                        static_cast<double>(stats.in_flight)));
    out.push_back(Gauge("k8s_job_executor_kubernetes_requests_waiting",
                        "Requests waiting for a place under kubernetes.maxInFlight.",
                        static_cast<double>(stats.waiting_slot)));
    auto waits = NewFamily("k8s_job_executor_kubernetes_request_waits_total",
                           "Requests that waited before they went, by the limit they waited for: "
                           "qps (the token bucket of kubernetes.qps and kubernetes.burst) or "
                           "maxInFlight.",
                           prometheus::MetricType::Counter);
    for (auto [limit, count] :
         {std::pair{"maxInFlight", stats.waited_slot}, std::pair{"qps", stats.waited_rate}}) {
      prometheus::ClientMetric metric;
      metric.label = {Label("limit", limit)};
      metric.counter.value = static_cast<double>(count);
      waits.metric.push_back(std::move(metric));
    }
    out.push_back(std::move(waits));
    out.push_back(Counter("k8s_job_executor_kubernetes_request_wait_seconds_total",
                          "Time requests spent waiting for kubernetes.qps or "
                          "kubernetes.maxInFlight, summed.",
                          stats.waited_seconds));
    out.push_back(Counter("k8s_job_executor_kubernetes_requests_refused_total",
                          "Requests refused at once (RESOURCE_EXHAUSTED) because as many as "
                          "kubernetes.maxInFlight were already waiting.",
                          static_cast<double>(stats.refused)));
  }

  const Metrics& metrics_;
};

// Informer health per namespace, read from the cache at scrape time.
class Metrics::InformerCollector final : public prometheus::Collectable {
 public:
  explicit InformerCollector(const Metrics& metrics) : metrics_(metrics) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    InformerStatsSource source;
    {
      absl::MutexLock lock(&metrics_.mu_);
      source = metrics_.informer_stats_;
    }
    if (!source) return {};
    // Called outside the lock: the source takes the cache's locks.
    std::vector<std::pair<std::string, cache::InformerStats>> stats = source();
    absl::Time now = metrics_.clock_.Now();

    using prometheus::MetricType;
    std::vector<prometheus::MetricFamily> out;
    out.push_back(NewFamily("k8s_job_executor_informer_objects",
                            "SparkApplications the informer holds for the namespace.",
                            MetricType::Gauge));
    out.push_back(NewFamily("k8s_job_executor_informer_relists_total",
                            "LISTs after the first (a watch fell too far behind: 410 Gone).",
                            MetricType::Counter));
    out.push_back(NewFamily("k8s_job_executor_informer_watch_restarts_total",
                            "Watches opened after the first.", MetricType::Counter));
    out.push_back(NewFamily("k8s_job_executor_informer_errors_total", "Failed LISTs and watches.",
                            MetricType::Counter));
    out.push_back(NewFamily("k8s_job_executor_informer_synced",
                            "1 once the informer's first LIST completed, else 0.",
                            MetricType::Gauge));
    out.push_back(NewFamily("k8s_job_executor_informer_staleness_seconds",
                            "Seconds since the informer last knew it was up to date (a LIST "
                            "completed, or a watch event or bookmark arrived); +Inf before its "
                            "first sync.",
                            MetricType::Gauge));
    for (const auto& [ns, s] : stats) {
      double staleness = s.last_sync == absl::InfinitePast()
                             ? std::numeric_limits<double>::infinity()
                             : std::max(0.0, absl::ToDoubleSeconds(now - s.last_sync));
      const double values[] = {static_cast<double>(s.objects),
                               static_cast<double>(s.relists),
                               static_cast<double>(s.watch_restarts),
                               static_cast<double>(s.errors),
                               s.synced ? 1.0 : 0.0,
                               staleness};
      for (size_t i = 0; i < out.size(); ++i) {
        prometheus::ClientMetric metric;
        metric.label = {Label("namespace", ns)};
        if (out[i].type == MetricType::Counter) {
          metric.counter.value = values[i];
        } else {
          metric.gauge.value = values[i];
        }
        out[i].metric.push_back(std::move(metric));
      }
    }
    return out;
  }

 private:
  const Metrics& metrics_;
};

Metrics::GrpcMethodSeries::GrpcMethodSeries(prometheus::Labels labels,
                                            prometheus::Family<prometheus::Counter>& started,
                                            prometheus::Family<prometheus::Counter>& handled,
                                            prometheus::Family<prometheus::Histogram>& handling,
                                            prometheus::Family<prometheus::Counter>& received,
                                            prometheus::Family<prometheus::Counter>& sent)
    : labels_(std::move(labels)),
      handled_family_(handled),
      started_(started.Add(labels_)),
      handling_(handling.Add(labels_, kGrpcBuckets)),
      received_(received.Add(labels_)),
      sent_(sent.Add(labels_)) {}

void Metrics::GrpcMethodSeries::Started() { started_.Increment(); }

void Metrics::GrpcMethodSeries::MessageReceived() { received_.Increment(); }

void Metrics::GrpcMethodSeries::MessageSent() { sent_.Increment(); }

void Metrics::GrpcMethodSeries::Handled(grpc::StatusCode code, absl::Duration elapsed) {
  handling_.Observe(absl::ToDoubleSeconds(elapsed));
  auto i = static_cast<size_t>(code);
  if (i >= handled_.size()) i = grpc::StatusCode::UNKNOWN;
  prometheus::Counter* counter = handled_[i].load(std::memory_order_acquire);
  if (counter == nullptr) {
    // Racing threads get the same counter: Add returns the existing one for known labels.
    prometheus::Labels labels = labels_;
    labels.emplace("grpc_code", std::string(kGrpcCodeNames[i]));
    counter = &handled_family_.Add(labels);
    handled_[i].store(counter, std::memory_order_release);
  }
  counter->Increment();
}

class Metrics::JobsCollector final : public prometheus::Collectable {
 public:
  explicit JobsCollector(const Metrics& metrics) : metrics_(metrics) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    JobStatsSource source;
    {
      absl::MutexLock lock(&metrics_.mu_);
      source = metrics_.job_stats_;
    }
    if (!source) return {};
    const JobStats stats = source();  // outside the lock: the source takes the executor's
    using prometheus::MetricType;
    std::vector<prometheus::MetricFamily> out;
    out.push_back(NewFamily("k8s_job_executor_jobs_waiting",
                            "Queued jobs this replica last found waiting, by reason (looked up "
                            "within the last two waitingRefreshMs).",
                            MetricType::Gauge));
    for (const auto& [reason, count] : stats.waiting) {
      prometheus::ClientMetric metric;
      metric.label = {Label("backend", stats.backend), Label("reason", reason)};
      metric.gauge.value = static_cast<double>(count);
      out.back().metric.push_back(std::move(metric));
    }
    out.push_back(NewFamily("k8s_job_executor_deadline_stops_total",
                            "Jobs this replica stopped because their deadline passed.",
                            MetricType::Counter));
    for (const auto& [deadline, count] : {std::pair{"queued", stats.queued_deadline_stops},
                                          std::pair{"run", stats.run_deadline_stops}}) {
      prometheus::ClientMetric metric;
      metric.label = {Label("deadline", deadline)};
      metric.counter.value = static_cast<double>(count);
      out.back().metric.push_back(std::move(metric));
    }
    out.push_back(NewFamily("k8s_job_executor_output_records_total",
                            "Kept records (a finished job's output, exit code and events) this "
                            "replica set out to write, by outcome.",
                            MetricType::Counter));
    for (const auto& [outcome, count] : stats.output_records) {
      prometheus::ClientMetric metric;
      metric.label = {Label("backend", stats.backend), Label("outcome", outcome)};
      metric.counter.value = static_cast<double>(count);
      out.back().metric.push_back(std::move(metric));
    }
    return out;
  }

 private:
  const Metrics& metrics_;
};

Metrics::Metrics(std::string version, const Clock& clock)
    : clock_(clock),
      registry_(std::make_shared<prometheus::Registry>()),
      kubernetes_(std::make_unique<KubernetesCollector>(*this)),
      informers_(std::make_unique<InformerCollector>(*this)),
      jobs_(std::make_unique<JobsCollector>(*this)) {
  grpc_started_ = &prometheus::BuildCounter()
                       .Name("grpc_server_started_total")
                       .Help("Total number of RPCs started on the server.")
                       .Register(*registry_);
  grpc_handled_ = &prometheus::BuildCounter()
                       .Name("grpc_server_handled_total")
                       .Help(
                           "Total number of RPCs completed on the server, regardless of success "
                           "or failure.")
                       .Register(*registry_);
  grpc_handling_seconds_ =
      &prometheus::BuildHistogram()
           .Name("grpc_server_handling_seconds")
           .Help(
               "Histogram of response latency (seconds) of gRPC that had been application-level "
               "handled by the server.")
           .Register(*registry_);
  grpc_received_ = &prometheus::BuildCounter()
                        .Name("grpc_server_msg_received_total")
                        .Help("Total number of RPC stream messages received on the server.")
                        .Register(*registry_);
  grpc_sent_ = &prometheus::BuildCounter()
                    .Name("grpc_server_msg_sent_total")
                    .Help("Total number of gRPC stream messages sent by the server.")
                    .Register(*registry_);
  submissions_ = &prometheus::BuildCounter()
                      .Name("k8s_job_executor_submissions_total")
                      .Help(
                          "Submit calls by result: created, adopted (a retry found its "
                          "application), or the lowercase gRPC code of the failure.")
                      .Register(*registry_);
  cancellations_ = &prometheus::BuildCounter()
                        .Name("k8s_job_executor_cancellations_total")
                        .Help(
                            "Cancel calls by result: requested, already_stopped, or the "
                            "lowercase gRPC code of the failure.")
                        .Register(*registry_);
  rpcs_in_flight_ = &prometheus::BuildGauge()
                         .Name("k8s_job_executor_rpcs_in_flight")
                         .Help(
                             "Calls holding a place under the global bounds: unary RPCs waiting "
                             "for Kubernetes or the informer (kind=unary), open streams "
                             "(kind=stream).")
                         .Register(*registry_);
  rpcs_refused_ = &prometheus::BuildCounter()
                       .Name("k8s_job_executor_rpcs_refused_total")
                       .Help(
                           "Calls refused RESOURCE_EXHAUSTED because a global bound was full "
                           "(server.maxConcurrentRpcs for kind=unary, server.maxStreams for "
                           "kind=stream).")
                       .Register(*registry_);
  for (const char* kind : {"unary", "stream"}) {
    rpcs_in_flight_->Add({{"kind", kind}});
    rpcs_refused_->Add({{"kind", kind}});
  }
  // Known results start at 0, so rate() and absent() work before the first one happens.
  for (const char* r : kSubmitResults) submissions_->Add({{"result", r}});
  for (const char* r : kCancelResults) cancellations_->Add({{"result", r}});
  prometheus::BuildGauge()
      .Name("k8s_job_executor_build_info")
      .Help("Always 1; the labels tell the running build.")
      .Register(*registry_)
      .Add({{"version", std::move(version)}})
      .Set(1);
}

Metrics::~Metrics() = default;

void Metrics::SetKubernetesRequests(const k8s::RequestMetrics* requests) {
  absl::MutexLock lock(&mu_);
  requests_ = requests;
}

void Metrics::SetKubernetesLimiter(std::shared_ptr<const k8s::RequestLimiter> limiter) {
  absl::MutexLock lock(&mu_);
  limiter_ = std::move(limiter);
}

void Metrics::SetInformerStats(InformerStatsSource source) {
  absl::MutexLock lock(&mu_);
  informer_stats_ = std::move(source);
}

void Metrics::SetJobStats(JobStatsSource source) {
  absl::MutexLock lock(&mu_);
  job_stats_ = std::move(source);
}

Metrics::AdmissionSeries Metrics::AdmissionSeriesFor(std::string_view kind) {
  std::map<std::string, std::string> labels = {{"kind", std::string(kind)}};
  return {&rpcs_in_flight_->Add(labels), &rpcs_refused_->Add(labels)};
}

void Metrics::RecordSubmit(std::string_view result) {
  submissions_->Add({{"result", BoundedResult(result, kSubmitResults)}}).Increment();
}

void Metrics::RecordCancel(std::string_view result) {
  cancellations_->Add({{"result", BoundedResult(result, kCancelResults)}}).Increment();
}

Metrics::GrpcMethodSeries* Metrics::GrpcSeries(std::string_view type, std::string_view service,
                                               std::string_view method) {
  auto key = std::make_tuple(type, service, method);
  {
    absl::ReaderMutexLock lock(&grpc_mu_);
    auto it = grpc_series_.find(key);
    if (it != grpc_series_.end()) return it->second.get();
  }
  absl::MutexLock lock(&grpc_mu_);
  auto it = grpc_series_.find(key);
  if (it != grpc_series_.end()) return it->second.get();
  prometheus::Labels labels = {{"grpc_type", std::string(type)},
                               {"grpc_service", std::string(service)},
                               {"grpc_method", std::string(method)}};
  std::unique_ptr<GrpcMethodSeries> series(
      new GrpcMethodSeries(labels, *grpc_started_, *grpc_handled_, *grpc_handling_seconds_,
                           *grpc_received_, *grpc_sent_));
  GrpcMethodSeries* out = series.get();
  grpc_series_.emplace(
      std::make_tuple(std::string(type), std::string(service), std::string(method)),
      std::move(series));
  return out;
}

void Metrics::InitializeGrpcService(const google::protobuf::ServiceDescriptor& service) {
  for (int i = 0; i < service.method_count(); ++i) {
    const google::protobuf::MethodDescriptor& method = *service.method(i);
    std::string_view type = method.client_streaming()
                                ? (method.server_streaming() ? "bidi_stream" : "client_stream")
                                : (method.server_streaming() ? "server_stream" : "unary");
    GrpcSeries(type, service.full_name(), method.name());
  }
}

void Metrics::RecordGrpcStarted(std::string_view type, std::string_view service,
                                std::string_view method) {
  GrpcSeries(type, service, method)->Started();
}

void Metrics::RecordGrpcHandled(std::string_view type, std::string_view service,
                                std::string_view method, grpc::StatusCode code,
                                absl::Duration elapsed) {
  GrpcSeries(type, service, method)->Handled(code, elapsed);
}

void Metrics::AddCollectable(std::shared_ptr<const prometheus::Collectable> collectable) {
  absl::MutexLock lock(&mu_);
  collectables_.push_back(std::move(collectable));
}

std::string Metrics::Render() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  std::vector<std::shared_ptr<const prometheus::Collectable>> more;
  {
    absl::MutexLock lock(&mu_);
    more = collectables_;
  }
  // Collected outside the lock: they take their own.
  for (const auto& c : more) {
    for (auto& family : c->Collect()) families.push_back(std::move(family));
  }
  for (const prometheus::Collectable* c :
       {static_cast<const prometheus::Collectable*>(kubernetes_.get()),
        static_cast<const prometheus::Collectable*>(informers_.get()),
        static_cast<const prometheus::Collectable*>(jobs_.get())}) {
    for (auto& family : c->Collect()) families.push_back(std::move(family));
  }
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace kje::server
