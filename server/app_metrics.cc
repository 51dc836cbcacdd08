#include "server/app_metrics.h"

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <array>
#include <cstdint>
#include <limits>
#include <utility>

#include "spark/job_status.h"

namespace kje::server {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

constexpr char kJobs[] = "k8s_job_executor_jobs";
constexpr char kSubmissions[] = "k8s_job_executor_job_submissions_total";
constexpr char kCompletions[] = "k8s_job_executor_job_completions_total";
constexpr char kFailures[] = "k8s_job_executor_job_failures_total";
constexpr char kCancellations[] = "k8s_job_executor_job_cancellations_total";
constexpr char kStartLatency[] = "k8s_job_executor_job_start_latency_seconds";
constexpr char kRunTime[] = "k8s_job_executor_job_run_seconds";

MetricFamily Family(std::string name, std::string help, MetricType type) {
  MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  return family;
}

template <size_t N>
ClientMetric::Histogram ToHistogram(const executor::Histogram& h, const std::array<double, N>& le) {
  ClientMetric::Histogram out;
  out.sample_count = static_cast<uint64_t>(h.count);
  out.sample_sum = h.sum;
  uint64_t cumulative = 0;
  for (size_t i = 0; i < N; ++i) {
    cumulative += static_cast<uint64_t>(h.buckets[i]);
    out.bucket.push_back(ClientMetric::Bucket{cumulative, le[i]});
  }
  out.bucket.push_back(ClientMetric::Bucket{static_cast<uint64_t>(h.count),
                                            std::numeric_limits<double>::infinity()});
  return out;
}

class AppMetricsCollector final : public prometheus::Collectable {
 public:
  AppMetricsCollector(std::shared_ptr<const executor::JobMetrics> metrics, std::string backend)
      : metrics_(std::move(metrics)), backend_(std::move(backend)) {}

  std::vector<MetricFamily> Collect() const override {
    const executor::JobMetricsSnapshot snapshot = metrics_->Read();
    std::vector<MetricFamily> out;
    out.push_back(Family(kJobs,
                         "Jobs this replica's informers hold, by status (as Status reports it).",
                         MetricType::Gauge));
    MetricFamily& jobs = out.back();
    for (const auto& [ns, series] : snapshot.namespaces) {
      for (size_t i = 0; i < executor::kJobStatusCount; ++i) {
        ClientMetric metric = Labelled(ns);
        metric.label.push_back(
            {"status", std::string(spark::JobStatusName(static_cast<spark::JobStatus>(i)))});
        metric.gauge.value = static_cast<double>(series.jobs[i]);
        jobs.metric.push_back(std::move(metric));
      }
    }
    struct Counter {
      const char* name;
      const char* help;
      int64_t executor::JobSeries::*field;
    };
    const Counter counters[] = {
        {kSubmissions, "Jobs created after this replica started, as its informers saw them.",
         &executor::JobSeries::submissions},
        {kCompletions, "Jobs that reached SUCCEEDED.", &executor::JobSeries::completions},
        {kFailures, "Jobs that reached FAILED.", &executor::JobSeries::failures},
        {kCancellations,
         "Jobs that reached CANCELLED, or whose application was deleted before they finished.",
         &executor::JobSeries::cancellations}};
    for (const Counter& counter : counters) {
      out.push_back(Family(counter.name, counter.help, MetricType::Counter));
      for (const auto& [ns, series] : snapshot.namespaces) {
        ClientMetric metric = Labelled(ns);
        metric.counter.value = static_cast<double>(series.*counter.field);
        out.back().metric.push_back(std::move(metric));
      }
    }
    out.push_back(Family(kStartLatency,
                         "From the application's creation to the job's start (STARTED).",
                         MetricType::Histogram));
    for (const auto& [ns, series] : snapshot.namespaces) {
      ClientMetric metric = Labelled(ns);
      metric.histogram = ToHistogram(series.start_latency, executor::kStartLatencyBuckets);
      out.back().metric.push_back(std::move(metric));
    }
    out.push_back(Family(kRunTime,
                         "From the job's start to its end (SUCCEEDED, FAILED, CANCELLED).",
                         MetricType::Histogram));
    for (const auto& [ns, series] : snapshot.namespaces) {
      ClientMetric metric = Labelled(ns);
      metric.histogram = ToHistogram(series.run_time, executor::kRunTimeBuckets);
      out.back().metric.push_back(std::move(metric));
    }
    return out;
  }

 private:
  ClientMetric Labelled(const std::string& ns) const {
    ClientMetric metric;
    metric.label = {{"backend", backend_}, {"namespace", ns}};
    return metric;
  }

  const std::shared_ptr<const executor::JobMetrics> metrics_;
  const std::string backend_;
};

}  // namespace

const std::vector<std::string>& AppMetricNames() {
  static const std::vector<std::string> kNames = {
      kJobs, kSubmissions, kCompletions, kFailures, kCancellations, kStartLatency, kRunTime};
  return kNames;
}

std::shared_ptr<prometheus::Collectable> NewAppMetricsCollector(
    std::shared_ptr<const executor::JobMetrics> metrics, std::string backend) {
  return std::make_shared<AppMetricsCollector>(std::move(metrics), std::move(backend));
}

}  // namespace kje::server
