#pragma once

// The application metrics (executor/job_metrics.h) as Prometheus series, read at scrape time:
//   k8s_job_executor_jobs{backend,namespace,status}                          gauge
//   k8s_job_executor_job_submissions_total{backend,namespace}                counter
//   k8s_job_executor_job_completions_total{backend,namespace}                counter
//   k8s_job_executor_job_failures_total{backend,namespace}                   counter
//   k8s_job_executor_job_cancellations_total{backend,namespace}              counter
//   k8s_job_executor_job_start_latency_seconds{backend,namespace}            histogram
//   k8s_job_executor_job_run_seconds{backend,namespace}                      histogram

#include <memory>
#include <string>
#include <vector>

#include "executor/job_metrics.h"

namespace prometheus {
class Collectable;
}  // namespace prometheus

namespace kje::server {

// The names of the series above (without the histograms' _bucket/_sum/_count suffixes).
const std::vector<std::string>& AppMetricNames();

// `backend` is the label every series carries (the operator's API version, as elsewhere).
std::shared_ptr<prometheus::Collectable> NewAppMetricsCollector(
    std::shared_ptr<const executor::JobMetrics> metrics, std::string backend);

}  // namespace kje::server
