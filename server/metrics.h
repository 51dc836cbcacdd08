#pragma once

// The process's Prometheus metrics and their text exposition (format 0.0.4).
//
// Three kinds of series:
//  - counted here as things happen: gRPC calls (go-grpc-prometheus names and labels, so existing
//    dashboards work), submissions and cancellations by result, build info;
//  - read at scrape time from the Kubernetes client's RequestMetrics, so nothing is counted twice;
//  - read at scrape time from the informers' stats (objects, relists, staleness, ...).
//
// Label values are bounded: gRPC service/method/code names, Kubernetes verbs/resources/HTTP codes,
// namespaces, and the fixed result names below. Job ids, app names and execution ids never are.

#include <grpcpp/support/status_code_enum.h>

#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "cache/app_informer.h"
#include "k8s/metrics.h"
#include "k8s/request_limiter.h"

namespace google::protobuf {
class ServiceDescriptor;
}  // namespace google::protobuf

namespace prometheus {
class Collectable;
class Registry;
template <typename T>
class Family;
class Counter;
class Histogram;
class Gauge;
}  // namespace prometheus

namespace kje::server {

// "OK", "NOT_FOUND", ... as gRPC and go-grpc-prometheus spell the codes; "UNKNOWN" for a value
// outside the 17 codes.
std::string_view GrpcCodeName(grpc::StatusCode code);
// "ok", "not_found", ...: a failure's result label for RecordSubmit / RecordCancel.
std::string GrpcCodeResult(grpc::StatusCode code);

class Metrics {
 public:
  // Per namespace, as cache::AppCache::Stats() returns them.
  using InformerStatsSource =
      std::function<std::vector<std::pair<std::string, cache::InformerStats>>()>;
  // What the executor knows of its jobs: those it knows to be waiting, by reason (as last looked
  // up, the reasons spelt as the proto spells them), and those it stopped for a deadline.
  struct JobStats {
    std::string backend;  // the operator's API version
    std::vector<std::pair<std::string, int64_t>> waiting;
    int64_t queued_deadline_stops = 0;
    int64_t run_deadline_stops = 0;
    // Kept records this replica set out to write, by outcome (kept, not_kept, lost_race,
    // failed): k8s_job_executor_output_records_total{backend,outcome}.
    std::vector<std::pair<std::string, int64_t>> output_records;
  };
  using JobStatsSource = std::function<JobStats()>;

  // `version` becomes k8s_job_executor_build_info{version=...}; `clock` (not owned) measures
  // informer staleness.
  Metrics(std::string version, const Clock& clock);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // Scrape-time sources; either may be left unset (its series are then absent). Not owned: they
  // must outlive this object, or be replaced by a null source before they go.
  void SetKubernetesRequests(const k8s::RequestMetrics* requests);
  // The client's admission (kubernetes.maxInFlight, qps, burst), shared so it may go first.
  void SetKubernetesLimiter(std::shared_ptr<const k8s::RequestLimiter> limiter);
  void SetInformerStats(InformerStatsSource source);
  void SetJobStats(JobStatsSource source);
  // More series read at scrape time (the application metrics: server/app_metrics.h).
  void AddCollectable(std::shared_ptr<const prometheus::Collectable> collectable);

  // k8s_job_executor_submissions_total{result}: "created", "adopted", or GrpcCodeResult() of the
  // failure. Anything else is counted as "other", so a caller's mistake can't grow the label set.
  void RecordSubmit(std::string_view result);
  // k8s_job_executor_cancellations_total{result}: "requested", "already_stopped", or
  // GrpcCodeResult() of the failure; anything else is "other".
  void RecordCancel(std::string_view result);

  // The global bounds' series of one kind ("unary", "stream"): calls in flight and calls refused.
  struct AdmissionSeries {
    prometheus::Gauge* in_flight;
    prometheus::Counter* refused;
  };
  AdmissionSeries AdmissionSeriesFor(std::string_view kind);

  // One gRPC method's grpc_server_* series, resolved once: counting a call through it costs no
  // label lookup. Thread-safe; lives as long as the Metrics.
  class GrpcMethodSeries;
  // `type` is one of "unary", "client_stream", "server_stream", "bidi_stream"; `service` the full
  // service name ("jobexecutor.v1.JobExecutor"), `method` the bare method name ("Submit").
  GrpcMethodSeries* GrpcSeries(std::string_view type, std::string_view service,
                               std::string_view method);
  // Creates the series of every method of `service` at 0 (as go-grpc-prometheus's
  // InitializeMetrics does), so rate() and alerts work before a method's first call.
  void InitializeGrpcService(const google::protobuf::ServiceDescriptor& service);
  // The same, one call at a time (the interceptor of server/grpc_metrics.h keeps the series).
  void RecordGrpcStarted(std::string_view type, std::string_view service, std::string_view method);
  void RecordGrpcHandled(std::string_view type, std::string_view service, std::string_view method,
                         grpc::StatusCode code, absl::Duration elapsed);

  // Every series in Prometheus text format 0.0.4.
  std::string Render() const;

 private:
  class KubernetesCollector;
  class InformerCollector;

  const Clock& clock_;
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<KubernetesCollector> kubernetes_;
  std::unique_ptr<InformerCollector> informers_;
  class JobsCollector;
  std::unique_ptr<JobsCollector> jobs_;
  prometheus::Family<prometheus::Counter>* grpc_started_;
  prometheus::Family<prometheus::Counter>* grpc_handled_;
  prometheus::Family<prometheus::Histogram>* grpc_handling_seconds_;
  prometheus::Family<prometheus::Counter>* grpc_received_;
  prometheus::Family<prometheus::Counter>* grpc_sent_;
  prometheus::Family<prometheus::Counter>* submissions_;
  prometheus::Family<prometheus::Counter>* cancellations_;
  prometheus::Family<prometheus::Gauge>* rpcs_in_flight_;
  prometheus::Family<prometheus::Counter>* rpcs_refused_;

  absl::Mutex grpc_mu_;
  std::map<std::tuple<std::string, std::string, std::string>, std::unique_ptr<GrpcMethodSeries>,
           std::less<>>
      grpc_series_ ABSL_GUARDED_BY(grpc_mu_);

  mutable absl::Mutex mu_;
  const k8s::RequestMetrics* requests_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::shared_ptr<const k8s::RequestLimiter> limiter_ ABSL_GUARDED_BY(mu_);
  InformerStatsSource informer_stats_ ABSL_GUARDED_BY(mu_);
  JobStatsSource job_stats_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<const prometheus::Collectable>> collectables_ ABSL_GUARDED_BY(mu_);
};

class Metrics::GrpcMethodSeries {
 public:
  void Started();
  void MessageReceived();
  void MessageSent();
  void Handled(grpc::StatusCode code, absl::Duration elapsed);

 private:
  friend class Metrics;
  GrpcMethodSeries(std::map<std::string, std::string> labels,
                   prometheus::Family<prometheus::Counter>& started,
                   prometheus::Family<prometheus::Counter>& handled,
                   prometheus::Family<prometheus::Histogram>& handling,
                   prometheus::Family<prometheus::Counter>& received,
                   prometheus::Family<prometheus::Counter>& sent);

  const std::map<std::string, std::string> labels_;
  prometheus::Family<prometheus::Counter>& handled_family_;
  prometheus::Counter& started_;
  prometheus::Histogram& handling_;
  prometheus::Counter& received_;
  prometheus::Counter& sent_;
  // By code, created on first use.
  std::array<std::atomic<prometheus::Counter*>, 17> handled_{};
};

}  // namespace kje::server
