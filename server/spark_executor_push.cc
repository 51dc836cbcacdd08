// The executor's push and listing operations: WatchStatus and FollowOutput, which follow the
// informer instead of polling, and ListJobs, served from the informer's memory.

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/names.h"
#include "k8s/errors.h"
#include "k8s/label_selector.h"
#include "server/spark_executor.h"
#include "server/spark_executor_internal.h"
#include "spark/execution_id.h"
#include "spark/names.h"

namespace kje::server {

using executor_internal::CancelledStatus;
using executor_internal::Upstream;

namespace {

constexpr size_t kMaxWatchedJobs = 100;
constexpr int64_t kDefaultPageSize = 100;
constexpr int64_t kMaxPageSize = 1000;
constexpr int64_t kDefaultFollowTailLines = 100;
// A follow without an RPC deadline still ends (the caller may re-open it): no stream is forever.
constexpr absl::Duration kMaxFollow = absl::Hours(24);
// Page tokens say where they came from: the informer's memory (the last name served) or the API
// server (its continue token).
constexpr absl::string_view kMemoryToken = "m:";
constexpr absl::string_view kApiToken = "k:";

bool IsFinal(spark::JobStatus status) {
  return status == spark::JobStatus::kSucceeded || status == spark::JobStatus::kFailed ||
         status == spark::JobStatus::kCancelled;
}

bool SameInfo(const JobResult& a, const JobResult& b) {
  return a.info.status == b.info.status && a.info.operator_state == b.info.operator_state &&
         a.info.message == b.info.message && a.info.started_at == b.info.started_at &&
         a.info.finished_at == b.info.finished_at && a.driver_pod == b.driver_pod;
}

bool Newer(const spark::AppProjection& candidate, const std::optional<spark::AppProjection>& seen) {
  if (!seen) return true;
  if (candidate.uid != seen->uid) return true;  // a new application of the same name
  auto cmp = cache::CompareResourceVersions(candidate.resource_version, seen->resource_version);
  return !cmp.has_value() ? candidate.resource_version != seen->resource_version : *cmp > 0;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// WatchStatus

// One WatchStatus call. Informer events for the watched names arrive through listeners (one per
// namespace); the first status of each job comes from a lookup. Everything is decided under mu_
// and emitted under it too, so a job's changes reach the caller in order.
class SparkExecutor::Watch final : public k8s::CallHandle,
                                   public std::enable_shared_from_this<Watch> {
 public:
  struct Job {
    spark::ExecutionId id;
    std::optional<spark::AppProjection> app;  // the newest version seen
    bool looked_up = false;                   // the first lookup answered
    bool gone = false;                        // deleted (app is its last version)
    bool finishing = false;                   // stopped: its driver is being read
    bool done = false;                        // its last status was sent
    std::optional<JobResult> last_sent;
  };

  Watch(SparkExecutor& executor, absl::Time deadline,
        std::function<void(const JobResult&)> on_change,
        const std::function<void(absl::Status)>& done)
      : executor_(executor),
        deadline_(deadline),
        on_change_(std::move(on_change)),
        done_(std::move(done)) {}

  absl::Status Init(const std::vector<std::string>& ids) {
    if (ids.empty()) return absl::InvalidArgumentError("no execution ids to watch");
    if (ids.size() > kMaxWatchedJobs) {
      return absl::InvalidArgumentError(
          absl::StrCat("at most ", kMaxWatchedJobs, " execution ids per watch, got ", ids.size()));
    }
    for (const std::string& raw : ids) {
      auto id = spark::ParseForCluster(raw, executor_.options_.builder.cluster);
      if (!id.ok()) return id.status();
      std::string key = absl::StrCat(id->namespace_, "/", id->name);
      if (jobs_.contains(key)) {
        return absl::InvalidArgumentError(absl::StrCat("execution id ", raw, " is given twice"));
      }
      Job job;
      job.id = *std::move(id);
      jobs_.emplace(key, std::move(job));
    }
    if (!executor_.cache_.enabled()) {
      return absl::FailedPreconditionError(
          "WatchStatus follows the informer cache, which is disabled (statusCacheTtlMs <= 0)");
    }
    return absl::OkStatus();
  }

  void Start() {
    std::set<std::string> namespaces;
    for (const auto& [key, job] : jobs_) namespaces.insert(job.id.namespace_);
    std::weak_ptr<Watch> weak = weak_from_this();
    for (const std::string& ns : namespaces) {
      // Subscribed before the lookups, so no change between a lookup and the listener is lost.
      auto sub = executor_.cache_.Subscribe(ns, [weak, ns](const cache::AppEvent& event) {
        if (auto self = weak.lock()) self->OnEvent(ns, event);
      });
      if (!sub) {
        End(absl::UnavailableError("the informer cache is shutting down"));
        return;
      }
      absl::MutexLock lock(&mu_);
      subscriptions_.push_back(*sub);
    }
    for (auto& [key, job] : jobs_) {
      std::string k = key;
      executor_.LookUp(op_, job.id.namespace_, job.id.name, false, executor_.Deadline(deadline_),
                       [weak, k](absl::StatusOr<spark::AppProjection> app) {
                         if (auto self = weak.lock()) self->OnLookedUp(k, std::move(app));
                       });
    }
  }

  // End() first: once ended_ is set nothing starts a call, so the op's inline cancellation
  // callbacks can't run under mu_.
  void Cancel() override { End(CancelledStatus()); }

 private:
  void OnLookedUp(const std::string& key, absl::StatusOr<spark::AppProjection> app) {
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      Job& job = jobs_.at(key);
      if (!app.ok()) {
        // Nothing has been sent yet (the first statuses go out together), so the whole call
        // fails as Status would.
        ended_ = true;
        pending_end_ = app.status();
      } else {
        if (!job.gone && Newer(*app, job.app)) job.app = *std::move(app);
        job.looked_up = true;
        if (++looked_up_ < jobs_.size()) return;
        // Every job is known: the first statuses, all together.
        for (auto& [k, j] : jobs_) {
          if (j.gone) {
            DeletedLocked(j);
          } else {
            UpdateLocked(j);
          }
        }
        if (!AllDoneLocked()) return;
        ended_ = true;
        pending_end_ = absl::OkStatus();
      }
    }
    Finish();
  }

  void OnEvent(const std::string& ns, const cache::AppEvent& event) {
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      auto it = jobs_.find(absl::StrCat(ns, "/", event.app.name));
      if (it == jobs_.end()) return;
      Job& job = it->second;
      if (job.done || job.finishing) return;
      if (event.type == cache::AppEvent::Type::kDeleted) {
        if (!job.app || event.app.uid == job.app->uid) {
          job.app = event.app;
          job.app->deleting = true;
          job.gone = true;
          if (looked_up_ == jobs_.size()) DeletedLocked(job);
        }
      } else if (Newer(event.app, job.app)) {
        job.app = event.app;
        // Before every lookup answered, the newest version waits for the first round.
        if (looked_up_ == jobs_.size()) UpdateLocked(job);
      }
      if (!AllDoneLocked()) return;
      ended_ = true;
      pending_end_ = absl::OkStatus();
    }
    Finish();
  }

  // Maps the job's newest version and sends it if it differs from the last one sent.
  void UpdateLocked(Job& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (job.done || job.finishing || !job.app) return;
    JobResult result = ResultOf(job, nullptr);
    bool last = IsFinal(result.info.status);
    if (last && spark::IsStopped(*job.app)) {
      // The last status carries the driver container's exact times, as Status gives them.
      if (auto known = executor_.KnownDriverOf(*job.app)) {
        SendLocked(job, ResultOf(job, *known ? &**known : nullptr), true);
        return;
      }
      job.finishing = true;
      std::string key = absl::StrCat(job.id.namespace_, "/", job.id.name);
      spark::AppProjection app = *job.app;
      std::weak_ptr<Watch> weak = weak_from_this();
      SparkExecutor* executor = &executor_;
      // Started under mu_: the client never completes a call inline.
      executor_.FindDriver(
          op_, app.namespace_, app.name, executor_.Deadline(deadline_),
          [weak, executor, key, app](const std::optional<spark::DriverPod>& driver, bool listed) {
            if (listed) executor->RememberDriver(app, driver);
            if (auto self = weak.lock()) self->OnDriver(key, app, driver);
          });
      return;
    }
    SendLocked(job, std::move(result), last);
  }

  void DeletedLocked(Job& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    JobResult result = ResultOf(job, nullptr);
    if (!IsFinal(result.info.status)) {
      result.info.status =
          job.app->cancel_requested ? spark::JobStatus::kCancelled : spark::JobStatus::kFailed;
      result.info.finished_at = executor_.clock_.Now();
      result.info.message = job.app->cancel_requested
                                ? "the SparkApplication was deleted after a cancel request"
                                : "the SparkApplication was deleted before its job finished";
    }
    SendLocked(job, std::move(result), true);
  }

  void OnDriver(const std::string& key, const spark::AppProjection& app,
                std::optional<spark::DriverPod> driver) {
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      Job& job = jobs_.at(key);
      Job snapshot = job;
      snapshot.app = app;
      JobResult result = ResultOf(snapshot, driver ? &*driver : nullptr);
      job.finishing = false;
      SendLocked(job, std::move(result), true);
      if (!AllDoneLocked()) return;
      ended_ = true;
      pending_end_ = absl::OkStatus();
    }
    Finish();
  }

  JobResult ResultOf(const Job& job, const spark::DriverPod* driver) const {
    JobResult result;
    result.execution_id = job.id.ToString();
    result.namespace_ = job.id.namespace_;
    result.name = job.id.name;
    result.job_id = job.app->job_id;
    result.driver_pod = driver ? driver->name : "";
    result.info = spark::MapStatus(*job.app, driver, executor_.clock_.Now(),
                                   executor_.options_.no_status_timeout);
    return result;
  }

  void SendLocked(Job& job, JobResult result, bool last) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (last) job.done = true;
    if (job.last_sent && SameInfo(*job.last_sent, result)) return;
    on_change_(result);
    job.last_sent = std::move(result);
  }

  bool AllDoneLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return std::all_of(jobs_.begin(), jobs_.end(), [](const auto& kv) { return kv.second.done; });
  }

  void End(absl::Status status) {
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      ended_ = true;
      pending_end_ = std::move(status);
    }
    Finish();
  }

  // Unsubscribes (outside mu_: a listener may be waiting for it) and reports the end once.
  void Finish() {
    std::vector<cache::AppCache::Subscription> subs;
    absl::Status status;
    {
      absl::MutexLock lock(&mu_);
      if (finished_) return;
      finished_ = true;
      subs.swap(subscriptions_);
      status = pending_end_;
    }
    for (const auto& sub : subs) executor_.cache_.Unsubscribe(sub);
    op_->Cancel();
    done_(status);
  }

  SparkExecutor& executor_;
  const absl::Time deadline_;
  const std::function<void(const JobResult&)> on_change_;
  const std::function<void(absl::Status)> done_;
  const std::shared_ptr<Op> op_ = std::make_shared<Op>();

  absl::Mutex mu_;
  std::map<std::string, Job> jobs_ ABSL_GUARDED_BY(mu_);  // by "namespace/name"
  size_t looked_up_ ABSL_GUARDED_BY(mu_) = 0;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status pending_end_ ABSL_GUARDED_BY(mu_);
  std::vector<cache::AppCache::Subscription> subscriptions_ ABSL_GUARDED_BY(mu_);
};

std::shared_ptr<k8s::CallHandle> SparkExecutor::WatchStatus(
    const std::vector<std::string>& execution_ids, absl::Time deadline,
    std::function<void(const JobResult&)> on_change,
    const std::function<void(absl::Status)>& done) {
  auto watch = std::make_shared<Watch>(*this, deadline, std::move(on_change), done);
  if (absl::Status s = watch->Init(execution_ids); !s.ok()) {
    done(s);
    return std::make_shared<Op>();
  }
  watch->Start();
  return watch;
}

// ---------------------------------------------------------------------------------------------
// FollowOutput

// One FollowOutput call: find the driver (waiting for the app to change while there is none),
// then stream its log. A container not yet started answers 400: wait for the next change.
class SparkExecutor::Follow final : public k8s::CallHandle,
                                    public std::enable_shared_from_this<Follow> {
 public:
  Follow(SparkExecutor& executor, spark::ExecutionId id, int64_t tail_lines, absl::Time deadline,
         std::function<void(std::string_view)> on_chunk, std::function<void(absl::Status)> done)
      : executor_(executor),
        id_(std::move(id)),
        tail_lines_(tail_lines),
        deadline_(std::min(deadline, absl::Now() + kMaxFollow)),
        on_chunk_(std::move(on_chunk)),
        done_(std::move(done)) {}

  void Start() {
    std::weak_ptr<Follow> weak = weak_from_this();
    executor_.LookUp(op_, id_.namespace_, id_.name, false, executor_.Deadline(deadline_),
                     [weak](absl::StatusOr<spark::AppProjection> app) {
                       auto self = weak.lock();
                       if (!self) return;
                       if (!app.ok()) {
                         self->End(app.status());
                         return;
                       }
                       self->TryDriver(*std::move(app));
                     });
  }

  void Cancel() override { End(CancelledStatus()); }

 private:
  // Looks for the driver of this version of the app, unless a look is already under way.
  void TryDriver(spark::AppProjection app) {
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      if (searching_) {
        retry_with_ = std::move(app);  // looked at once the current search ends
        return;
      }
      searching_ = true;
    }
    std::weak_ptr<Follow> weak = weak_from_this();
    executor_.FindDriver(op_, id_.namespace_, id_.name, executor_.Deadline(deadline_),
                         [weak, app](std::optional<spark::DriverPod> driver, bool listed) {
                           if (auto self = weak.lock()) {
                             self->OnDriver(app, std::move(driver), listed);
                           }
                         });
  }

  void OnDriver(const spark::AppProjection& app, std::optional<spark::DriverPod> driver,
                bool listed) {
    if (driver) {
      Stream(*driver);
      return;
    }
    if (!listed) {
      End(absl::UnavailableError(
          absl::StrCat("can't list the driver pods of ", id_.namespace_, "/", id_.name)));
      return;
    }
    if (spark::IsStopped(app) || app.deleting) {
      End(absl::OkStatus());  // it stopped without a driver left to read
      return;
    }
    Wait();
  }

  // No driver yet: the next change of the app may bring one.
  void Wait() {
    std::optional<spark::AppProjection> again;
    bool subscribe = false;
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      searching_ = false;
      again.swap(retry_with_);
      subscribe = !again && !subscribed_;
      subscribed_ = subscribed_ || subscribe;
    }
    if (again) {
      TryDriver(*std::move(again));
      return;
    }
    if (!subscribe) return;
    // Outside mu_: the informer calls listeners holding its own lock, and they take mu_.
    std::weak_ptr<Follow> weak = weak_from_this();
    std::string name = id_.name;
    auto sub =
        executor_.cache_.Subscribe(id_.namespace_, [weak, name](const cache::AppEvent& event) {
          if (event.app.name != name) return;
          auto self = weak.lock();
          if (!self) return;
          if (event.type == cache::AppEvent::Type::kDeleted) {
            self->End(absl::OkStatus());
          } else {
            self->TryDriver(event.app);
          }
        });
    if (!sub) {
      End(absl::FailedPreconditionError(
          "the job has no driver yet, and without the informer cache (statusCacheTtlMs <= 0) "
          "there is no way to wait for one"));
      return;
    }
    bool stale = false;
    {
      absl::MutexLock lock(&mu_);
      stale = finished_;
      if (!stale) subscription_ = *sub;
    }
    if (stale) executor_.cache_.Unsubscribe(*sub);
  }

  void Stream(const spark::DriverPod& driver) {
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
    }
    // The subscription stays: a container that hasn't started yet (400) sends us back to waiting.
    k8s::ResourceRef pod = executor_.PodsRef(id_.namespace_);
    pod.name = driver.name;
    k8s::LogOptions options;
    options.tail_lines = tail_lines_;
    if (auto container = spark::LogContainer(driver)) options.container = *container;
    std::weak_ptr<Follow> weak = weak_from_this();
    auto received = std::make_shared<std::atomic<bool>>(false);
    bool started = op_->Step([&] {
      return executor_.client_->FollowLog(
          pod, options, deadline_,
          [weak, received](std::string_view chunk) {
            received->store(true);
            if (auto self = weak.lock()) self->on_chunk_(chunk);
          },
          [weak, received, driver](const absl::Status& status) {
            auto self = weak.lock();
            if (!self) return;
            if (k8s::HttpCode(status) == 400 && !received->load()) {
              // The container hasn't started: wait for the app to move on.
              self->Wait();
              return;
            }
            self->End(status.ok()
                          ? status
                          : Upstream(status, absl::StrCat("following the log of ",
                                                          self->id_.namespace_, "/", driver.name)));
          });
    });
    if (!started) End(CancelledStatus());
  }

  void End(absl::Status status) {
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      ended_ = true;
      pending_end_ = std::move(status);
    }
    Finish();
  }

  void Finish() {
    std::optional<cache::AppCache::Subscription> sub;
    absl::Status status;
    {
      absl::MutexLock lock(&mu_);
      if (!ended_ || finished_) return;
      finished_ = true;
      sub.swap(subscription_);
      status = pending_end_;
    }
    if (sub) executor_.cache_.Unsubscribe(*sub);
    op_->Cancel();
    done_(status);
  }

  SparkExecutor& executor_;
  const spark::ExecutionId id_;
  const int64_t tail_lines_;
  const absl::Time deadline_;
  const std::function<void(std::string_view)> on_chunk_;
  const std::function<void(absl::Status)> done_;
  const std::shared_ptr<Op> op_ = std::make_shared<Op>();

  absl::Mutex mu_;
  bool searching_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<spark::AppProjection> retry_with_ ABSL_GUARDED_BY(mu_);
  bool subscribed_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<cache::AppCache::Subscription> subscription_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status pending_end_ ABSL_GUARDED_BY(mu_);
};

std::shared_ptr<k8s::CallHandle> SparkExecutor::FollowOutput(
    const std::string& execution_id, int64_t tail_lines, absl::Time deadline,
    std::function<void(std::string_view)> on_chunk, std::function<void(absl::Status)> done) {
  auto id = spark::ParseForCluster(execution_id, options_.builder.cluster);
  if (!id.ok()) {
    done(id.status());
    return std::make_shared<Op>();
  }
  if (tail_lines < 0) {
    done(absl::InvalidArgumentError("tail_lines must not be negative"));
    return std::make_shared<Op>();
  }
  if (tail_lines == 0) tail_lines = kDefaultFollowTailLines;
  auto follow = std::make_shared<Follow>(*this, *std::move(id), tail_lines, deadline,
                                         std::move(on_chunk), std::move(done));
  follow->Start();
  return follow;
}

// ---------------------------------------------------------------------------------------------
// ListJobs

std::shared_ptr<k8s::CallHandle> SparkExecutor::ListJobs(
    const std::string& namespace_arg, const std::string& label_selector, int64_t page_size,
    const std::string& page_token, absl::Time rpc_deadline, Done<JobPage> done) {
  auto op = std::make_shared<Op>();
  std::string ns = namespace_arg.empty() ? options_.builder.namespace_ : namespace_arg;
  if (!IsDns1123Label(ns)) {
    done(absl::InvalidArgumentError(absl::StrCat("\"", ns, "\" is not a valid namespace")));
    return op;
  }
  auto selector = k8s::LabelSelector::Parse(label_selector);
  if (!selector.ok()) {
    done(selector.status());
    return op;
  }
  if (page_size == 0) page_size = kDefaultPageSize;
  if (page_size < 0 || page_size > kMaxPageSize) {
    done(absl::InvalidArgumentError(
        absl::StrCat("page_size must be between 0 and ", kMaxPageSize, ", got ", page_size)));
    return op;
  }
  bool from_memory = page_token.empty() || absl::StartsWith(page_token, kMemoryToken);
  if (!from_memory && !absl::StartsWith(page_token, kApiToken)) {
    done(absl::InvalidArgumentError("page_token is not one this service handed out"));
    return op;
  }
  auto to_result = [this](const spark::AppProjection& app) {
    JobResult r;
    r.execution_id = spark::ExecutionId{options_.builder.cluster, std::string(spark::kKindSparkApp),
                                        app.namespace_, app.name}
                         .ToString();
    r.namespace_ = app.namespace_;
    r.name = app.name;
    r.job_id = app.job_id;
    r.info = spark::MapStatus(app, nullptr, clock_.Now(), options_.no_status_timeout);
    return r;
  };

  if (from_memory) {
    std::string after = page_token.empty() ? "" : page_token.substr(kMemoryToken.size());
    auto apps = cache_.ListAfter(
        ns, after, static_cast<size_t>(page_size) + 1,
        [&](const spark::AppProjection& app) { return selector->Matches(app.labels); });
    if (apps) {
      JobPage page;
      if (apps->size() > static_cast<size_t>(page_size)) {
        apps->resize(static_cast<size_t>(page_size));
        page.next_page_token = absl::StrCat(kMemoryToken, apps->back().name);
      }
      for (const auto& app : *apps) page.jobs.push_back(to_result(app));
      done(std::move(page));
      return op;
    }
    if (!page_token.empty()) {
      // The page before came from another replica's memory, and this one can't continue by name.
      done(absl::UnavailableError(absl::StrCat("this replica's cache of namespace ", ns,
                                               " is still syncing; retry the page")));
      return op;
    }
  }

  // Straight to the API server: the informer can't answer yet, or the cache is off.
  k8s::ListOptions list;
  list.label_selector = std::string(spark::ManagedAppSelector());
  if (!selector->empty()) absl::StrAppend(&list.label_selector, ",", label_selector);
  list.limit = page_size;
  if (!from_memory) list.continue_token = page_token.substr(kApiToken.size());
  k8s::ResourceRef collection = AppRef(ns, "");
  bool started = op->Step([&] {
    return client_->List(collection, list, Deadline(rpc_deadline),
                         [ns, to_result, done](absl::StatusOr<k8s::ListPage> r) {
                           if (!r.ok()) {
                             if (k8s::IsK8sGone(r.status())) {
                               done(absl::InvalidArgumentError(
                                   "the page token expired; list again from the first page"));
                             } else {
                               done(Upstream(r.status(), absl::StrCat("listing the "
                                                                      "SparkApplications of ",
                                                                      ns)));
                             }
                             return;
                           }
                           JobPage page;
                           for (const std::string& item : r->items) {
                             auto app = spark::ProjectAppJson(item);
                             if (app.ok()) page.jobs.push_back(to_result(*app));
                           }
                           if (!r->continue_token.empty()) {
                             page.next_page_token = absl::StrCat(kApiToken, r->continue_token);
                           }
                           done(std::move(page));
                         });
  });
  if (!started) done(CancelledStatus());
  return op;
}

}  // namespace kje::server
