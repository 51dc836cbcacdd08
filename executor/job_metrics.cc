#include "executor/job_metrics.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <utility>

#include "absl/hash/hash.h"
#include "spark/time_util.h"

namespace kje::executor {
namespace {

constexpr std::string_view kOtherNamespace = "other";

uint64_t KeyOf(std::string_view uid) { return absl::HashOf(uid); }

size_t Index(spark::JobStatus status) { return static_cast<size_t>(status); }

template <size_t N>
Histogram EmptyHistogram(const std::array<double, N>&) {
  Histogram h;
  h.buckets.assign(N, 0);
  return h;
}

template <size_t N>
void Record(Histogram& h, const std::array<double, N>& bounds, absl::Duration d) {
  const double seconds = std::max(0.0, absl::ToDoubleSeconds(d));
  ++h.count;
  h.sum += seconds;
  for (size_t i = 0; i < N; ++i) {
    if (seconds <= bounds[i]) {
      ++h.buckets[i];
      return;
    }
  }
}

std::vector<std::string> Labels(std::vector<std::string> namespaces) {
  // Bounded by the configuration, and a byte indexes it.
  std::sort(namespaces.begin(), namespaces.end());
  namespaces.erase(std::unique(namespaces.begin(), namespaces.end()), namespaces.end());
  if (namespaces.size() > std::numeric_limits<uint8_t>::max() - 1) {
    namespaces.resize(std::numeric_limits<uint8_t>::max() - 1);
  }
  namespaces.emplace_back(kOtherNamespace);
  return namespaces;
}

}  // namespace

JobMetrics::JobMetrics(std::vector<std::string> namespaces, MapStatus map_status,
                       const Clock& clock)
    : labels_(Labels(std::move(namespaces))),
      map_status_(std::move(map_status)),
      // Floored to the second: a creationTimestamp has whole seconds, and an application
      // created in the second the metrics started would otherwise look older than them.
      started_(absl::FromUnixSeconds(absl::ToUnixSeconds(clock.Now()))) {
  series_.resize(labels_.size());
  for (JobSeries& s : series_) {
    s.start_latency = EmptyHistogram(kStartLatencyBuckets);
    s.run_time = EmptyHistogram(kRunTimeBuckets);
  }
}

size_t JobMetrics::LabelOf(std::string_view ns) const {
  for (size_t i = 0; i + 1 < labels_.size(); ++i) {
    if (labels_[i] == ns) return i;
  }
  return labels_.size() - 1;
}

void JobMetrics::Observe(const cache::AppEvent& event) {
  if (event.app == nullptr || event.app->uid().empty()) return;
  // The status is read outside the lock: it is the executor's code.
  if (event.type == cache::AppEvent::Type::kDeleted) {
    absl::MutexLock lock(&mu_);
    DeleteLocked(KeyOf(event.app->uid()));
    return;
  }
  const spark::JobStatusInfo info = map_status_(*event.app);
  absl::MutexLock lock(&mu_);
  const uint64_t key = KeyOf(event.app->uid());
  const size_t label = LabelOf(event.app->namespace_());
  JobSeries& series = series_[label];
  auto it = apps_.find(key);
  if (it == apps_.end()) {
    apps_.emplace(key, Tracked{info.status, static_cast<uint8_t>(label)});
    ++series.jobs[Index(info.status)];
    const spark::EpochMillis created = event.app->creation_time();
    // Made before the metrics started: the baseline, already counted by whoever ran then.
    if (created == spark::kNoTime || absl::FromUnixMillis(created) < started_) return;
    ++series.submissions;
    CountLocked(series, spark::JobStatus::kQueued, info, *event.app);
    return;
  }
  const spark::JobStatus from = it->second.status;
  if (from == info.status) return;
  --series_[it->second.label].jobs[Index(from)];
  ++series.jobs[Index(info.status)];
  it->second = Tracked{info.status, static_cast<uint8_t>(label)};
  CountLocked(series, from, info, *event.app);
}

void JobMetrics::CountLocked(JobSeries& series, spark::JobStatus from,
                             const spark::JobStatusInfo& info, const spark::AppProjection& app) {
  const spark::JobStatus to = info.status;
  if (from == spark::JobStatus::kQueued && to != spark::JobStatus::kQueued && info.started_at &&
      app.creation_time() != spark::kNoTime) {
    Record(series.start_latency, kStartLatencyBuckets,
           *info.started_at - absl::FromUnixMillis(app.creation_time()));
  }
  if (spark::IsTerminal(from) || !spark::IsTerminal(to)) return;
  switch (to) {
    case spark::JobStatus::kSucceeded:
      ++series.completions;
      break;
    case spark::JobStatus::kFailed:
      ++series.failures;
      break;
    default:
      ++series.cancellations;
      break;
  }
  if (info.started_at && info.finished_at) {
    Record(series.run_time, kRunTimeBuckets, *info.finished_at - *info.started_at);
  }
}

void JobMetrics::DeleteLocked(uint64_t key) {
  auto it = apps_.find(key);
  if (it == apps_.end()) return;
  JobSeries& series = series_[it->second.label];
  --series.jobs[Index(it->second.status)];
  // Deleted before it finished: cancelled (a Cancel deletes the application), whoever did it.
  if (!spark::IsTerminal(it->second.status)) ++series.cancellations;
  apps_.erase(it);
}

void JobMetrics::Resync(std::string_view ns, const std::vector<cache::AppPtr>& apps) {
  absl::flat_hash_map<uint64_t, bool> present;
  for (const cache::AppPtr& app : apps) {
    if (app->uid().empty()) continue;
    present[KeyOf(app->uid())] = true;
    Observe(cache::AppEvent{cache::AppEvent::Type::kUpserted, app});
  }
  const size_t label = LabelOf(ns);
  absl::MutexLock lock(&mu_);
  std::vector<uint64_t> gone;
  // Only this namespace's label: "other" holds several namespaces, and only this one resyncs.
  if (label + 1 == labels_.size()) return;
  for (const auto& [key, tracked] : apps_) {
    if (tracked.label == label && !present.contains(key)) gone.push_back(key);
  }
  for (uint64_t key : gone) DeleteLocked(key);
}

JobMetricsSnapshot JobMetrics::Read() const {
  JobMetricsSnapshot out;
  absl::MutexLock lock(&mu_);
  for (size_t i = 0; i < labels_.size(); ++i) out.namespaces.emplace_back(labels_[i], series_[i]);
  return out;
}

// ---- The feed.

struct JobMetricsFeed::Followed {
  cache::AppCache* cache;
  std::shared_ptr<JobMetrics> metrics;
  size_t capacity;
  std::string ns;
  // Pump's activations: one runs, the others ask it to go round again.
  std::atomic<int> pending{0};
  absl::Mutex mu;
  bool stopped ABSL_GUARDED_BY(mu) = false;
  std::shared_ptr<cache::Mailbox<cache::AppEvent>> mailbox ABSL_GUARDED_BY(mu);
  cache::AppCache::Subscribed subscribed ABSL_GUARDED_BY(mu);
};

namespace {

using Followed = JobMetricsFeed::Followed;

void Pump(const std::shared_ptr<Followed>& f);

// A new subscription in place of the old one, then the snapshot, so that nothing between the two
// is lost (a change seen twice counts once: the metrics keep each application's last status).
absl::Status Subscribe(const std::shared_ptr<Followed>& f) {
  auto mailbox = std::make_shared<cache::Mailbox<cache::AppEvent>>(f->capacity);
  absl::StatusOr<cache::AppCache::Subscribed> sub = f->cache->Subscribe(f->ns, {}, mailbox);
  if (!sub.ok()) return sub.status();
  cache::AppCache::Subscribed old;
  {
    absl::MutexLock lock(&f->mu);
    if (f->stopped) {
      f->cache->Unsubscribe(f->ns, *sub);
      return absl::CancelledError("stopped");
    }
    old = std::exchange(f->subscribed, *sub);
    f->mailbox = mailbox;
  }
  if (old.subscription != nullptr) f->cache->Unsubscribe(f->ns, old);
  // Before its first list the informer hands every application over as a change.
  if (auto apps = f->cache->ListAfter(f->ns, "", std::numeric_limits<size_t>::max(),
                                      [](const spark::AppProjection&) { return true; })) {
    f->metrics->Resync(f->ns, *apps);
  }
  std::weak_ptr<Followed> weak = f;
  mailbox->OnReady([weak] {
    if (auto followed = weak.lock()) Pump(followed);
  });
  return absl::OkStatus();
}

void Pump(const std::shared_ptr<Followed>& f) {
  if (f->pending.fetch_add(1) > 0) return;
  do {
    std::shared_ptr<cache::Mailbox<cache::AppEvent>> mailbox;
    {
      absl::MutexLock lock(&f->mu);
      if (f->stopped) continue;
      mailbox = f->mailbox;
    }
    for (const cache::AppEvent& event : mailbox->Drain()) f->metrics->Observe(event);
    switch (mailbox->state()) {
      case cache::Mailbox<cache::AppEvent>::State::kOverflowed:
        (void)Subscribe(f);  // refused only when the cache stops
        break;
      case cache::Mailbox<cache::AppEvent>::State::kClosed:
        break;  // the cache stopped
      case cache::Mailbox<cache::AppEvent>::State::kOpen: {
        std::weak_ptr<Followed> weak = f;
        mailbox->OnReady([weak] {
          if (auto followed = weak.lock()) Pump(followed);
        });
        break;
      }
    }
  } while (f->pending.fetch_sub(1) > 1);
}

}  // namespace

JobMetricsFeed::JobMetricsFeed(cache::AppCache& cache, std::shared_ptr<JobMetrics> metrics,
                               size_t capacity)
    : cache_(cache), metrics_(std::move(metrics)), capacity_(capacity) {}

JobMetricsFeed::~JobMetricsFeed() { Stop(); }

absl::Status JobMetricsFeed::Follow(const std::string& ns) {
  auto f = std::make_shared<Followed>();
  f->cache = &cache_;
  f->metrics = metrics_;
  f->capacity = capacity_;
  f->ns = ns;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return absl::CancelledError("the metrics feed has stopped");
    followed_.push_back(f);
  }
  return Subscribe(f);
}

void JobMetricsFeed::Stop() {
  std::vector<std::shared_ptr<Followed>> followed;
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
    followed.swap(followed_);
  }
  for (const auto& f : followed) {
    cache::AppCache::Subscribed sub;
    std::shared_ptr<cache::Mailbox<cache::AppEvent>> mailbox;
    {
      absl::MutexLock lock(&f->mu);
      f->stopped = true;
      sub = std::exchange(f->subscribed, {});
      mailbox = std::move(f->mailbox);
    }
    if (mailbox != nullptr) mailbox->ForgetWakes();
    if (sub.subscription != nullptr) cache_.Unsubscribe(f->ns, sub);
  }
}

}  // namespace kje::executor
