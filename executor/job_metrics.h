#pragma once

// Application metrics counted from the informers' changes, with no request of their own: jobs by
// status (a gauge), submissions, completions, failures and cancellations (counters), and how long
// jobs waited to start (creation to STARTED) and ran (STARTED to the end), as histograms.
//
// Each application's last status is remembered (a hash of its uid and one byte), so a change is
// a transition from one status to another: a job counts once however many versions of it the
// watch delivers, and a status skipped between two versions (QUEUED straight to SUCCEEDED) still
// counts the outcome; the latencies come from the status' own times, not from when this replica
// saw them. Applications this replica first sees when it starts (the informer's first list) are
// the baseline, not submissions: only one created after the metrics started counts as submitted.
//
// Every replica follows every application, so every replica counts every transition: a sum over
// replicas counts each job once per replica (the README says how to aggregate).
//
// Labels are bounded: `namespace` is one of the configured namespaces or "other".

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "base/clock.h"
#include "cache/app_cache.h"
#include "spark/job_status.h"

namespace kje::executor {

inline constexpr size_t kJobStatusCount = 6;  // spark::JobStatus' values

// Upper bounds of the histograms' buckets, in seconds (+Inf is implied).
inline constexpr std::array<double, 12> kStartLatencyBuckets = {1,  2,   5,   10,  20,   30,
                                                                60, 120, 300, 600, 1800, 3600};
inline constexpr std::array<double, 12> kRunTimeBuckets = {10,   30,   60,   120,   300,   600,
                                                           1800, 3600, 7200, 14400, 43200, 86400};

struct Histogram {
  std::vector<int64_t> buckets;  // non-cumulative: observations in (previous bound, this bound]
  int64_t count = 0;             // all observations, the +Inf bucket included
  double sum = 0;
};

// One namespace label's series.
struct JobSeries {
  std::array<int64_t, kJobStatusCount> jobs{};  // by spark::JobStatus
  int64_t submissions = 0;
  int64_t completions = 0;  // SUCCEEDED
  int64_t failures = 0;     // FAILED
  int64_t cancellations = 0;
  Histogram start_latency;
  Histogram run_time;
};

struct JobMetricsSnapshot {
  // By namespace label, in the configured namespaces' order, then "other".
  std::vector<std::pair<std::string, JobSeries>> namespaces;
};

class JobMetrics {
 public:
  using MapStatus = std::function<spark::JobStatusInfo(const spark::AppProjection&)>;

  // `namespaces`: the label values kept; any other namespace is "other". `map_status` reads an
  // application's status (the executor's, so that the metrics agree with Status); `clock` says
  // when the metrics started (what was created before is the baseline).
  JobMetrics(std::vector<std::string> namespaces, MapStatus map_status, const Clock& clock);

  // One informer change. Thread-safe; holds only its own lock, briefly.
  void Observe(const cache::AppEvent& event);
  // A namespace's whole snapshot, after its changes were lost (a mailbox that overflowed): the
  // differences are counted as their changes would have been, the applications missing from it
  // as deleted.
  void Resync(std::string_view ns, const std::vector<cache::AppPtr>& apps);

  JobMetricsSnapshot Read() const;

 private:
  struct Tracked {
    spark::JobStatus status;
    uint8_t label;  // index into labels_
  };
  size_t LabelOf(std::string_view ns) const;
  void UpsertLocked(const spark::AppProjection& app) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DeleteLocked(uint64_t key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What a move from `from` to `info.status` counts.
  void CountLocked(JobSeries& series, spark::JobStatus from, const spark::JobStatusInfo& info,
                   const spark::AppProjection& app) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::vector<std::string> labels_;  // the namespaces, then "other"
  const MapStatus map_status_;
  const absl::Time started_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<uint64_t, Tracked> apps_ ABSL_GUARDED_BY(mu_);
  std::vector<JobSeries> series_ ABSL_GUARDED_BY(mu_);
};

// Feeds a JobMetrics from the cache: one subscription to every application of each namespace,
// its mailbox bounded by `capacity`; a mailbox that overflows is replaced and the namespace
// resynced from the informer's snapshot. The changes are counted on the informer's thread as
// they are handed over (no lock of the informer is held then), without any request.
class JobMetricsFeed {
 public:
  JobMetricsFeed(cache::AppCache& cache, std::shared_ptr<JobMetrics> metrics, size_t capacity);
  ~JobMetricsFeed();
  JobMetricsFeed(const JobMetricsFeed&) = delete;
  JobMetricsFeed& operator=(const JobMetricsFeed&) = delete;

  // Follows `ns` (a namespace the cache follows for good); the cache's refusal otherwise.
  absl::Status Follow(const std::string& ns);
  // Ends every subscription; idempotent. The cache must outlive the feed or its Stop.
  void Stop();

  struct Followed;  // one namespace's subscription (job_metrics.cc)

 private:
  cache::AppCache& cache_;
  const std::shared_ptr<JobMetrics> metrics_;
  const size_t capacity_;
  absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::shared_ptr<Followed>> followed_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje::executor
