#pragma once

// The job logic: Submit, Status, Cancel, Output, ListJobs, WatchStatus and FollowOutput as the
// Java k8s executor does them, over the Kubernetes client and the informer cache. It keeps no
// state of its own that an answer depends on: every answer comes from the Kubernetes resources,
// so any replica answers for any job.
//
// Each call is one C++20 coroutine on a strand of its own of the io_context (see executor.cc).
// This header stays free of Asio: the gRPC edge includes it.
//
// Contract of every call: `done` is called exactly once, either inline before the call returns
// (bad input, or an answer from the cache that needs no I/O) or later on an io thread; it must not
// block. The returned handle's Cancel() (any thread, idempotent) cancels the coroutine and the
// Kubernetes call it awaits: `done` then gets kCancelled.

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "cache/app_cache.h"
#include "executor/job_executor.h"
#include "executor/job_metrics.h"
#include "executor/namespace_policy.h"
#include "executor/record_outcomes.h"
#include "executor/waiting_memo.h"
#include "k8s/client.h"
#include "k8s/request_limiter.h"
#include "spark/backend.h"
#include "spark/cancel_keep.h"
#include "spark/driver_pod.h"
#include "spark/job_status.h"
#include "spark/job_template.h"
#include "spark/log_tail.h"
#include "staging/stager.h"

namespace boost::asio {
class io_context;
}  // namespace boost::asio

namespace kje::executor {

struct ExecutorOptions {
  spark::BuilderOptions builder;
  absl::Duration no_status_timeout = absl::Minutes(10);
  // The longest any Kubernetes call of one RPC may take, whatever the RPC's own deadline.
  absl::Duration request_timeout = absl::Seconds(30);
  int64_t default_max_lines = 1000;
  int64_t default_max_bytes = 262144;
  // Output requests are capped here, so a caller can't make the service hold a huge log.
  int64_t max_output_bytes = 8 << 20;
  // Changes a WatchStatus caller may fall behind by before its stream ends RESOURCE_EXHAUSTED: a
  // job has about ten states, so this is many jobs' worth of slack.
  size_t max_queued_changes = 1024;
  // Bytes of a followed log held for a slow FollowOutput caller; beyond it, lines are dropped and
  // counted in the next chunk.
  size_t max_follow_buffer_bytes = 4 << 20;
  // Execution ids one WatchStatus may follow (server.maxWatchedJobs).
  size_t max_watched_jobs = 100;
  // A follow without an RPC deadline still ends (the caller may re-open it): no stream is
  // forever (server.maxFollowSeconds).
  absl::Duration max_follow = absl::Hours(24);
  // Events returns at most this many events of each object (the application, its driver pod):
  // a real cluster keeps an hour of them, a crash-looping pod's repeats counted in one.
  size_t max_events_per_object = 1000;
  // The largest Spark UI answer ProxyUi passes on (server.maxUiProxyBytes).
  size_t max_ui_proxy_bytes = 8 << 20;
  // The stopped apps' drivers remembered for Status are swept of apps the cache no longer holds
  // when they first reach this many, then whenever they have doubled since the last sweep.
  size_t known_drivers_first_sweep = 1024;
  // A job queued this long (since its application was created) gets a waiting reason; before,
  // it is on its way (a driver being scheduled, an image pulled). waitingGraceMs.
  absl::Duration waiting_grace = absl::Seconds(10);
  // A waiting job's reason is looked up again (its driver pod and the Events listed) at most
  // this often while the app doesn't change. waitingRefreshMs.
  absl::Duration waiting_refresh = absl::Seconds(15);
  // Waiting jobs whose reason is remembered at most (WaitingMemo).
  size_t max_waiting_memo = 10000;
  // JobInfo.links' templates (links.<name>); null without any. Answers point at them (JobResult,
  // JobView), so they live as long as the executor.
  std::shared_ptr<const spark::LinkTemplates> links;
  // How Cancel and the deadlines stop a job: delete its application, or keep it as the job's
  // record (spark/cancel_keep.h). cancelMode.
  spark::CancelMode cancel_mode = spark::CancelMode::kDelete;
  // The kept record of a terminal job (executor/output_keep.h): output.keep*.
  bool keep_output = true;
  bool keep_as_secret = false;
  int64_t keep_max_lines = 1000;
  int64_t keep_max_bytes = 262144;
  size_t keep_max_events = 50;
  // Captures in flight on this replica at once, and started per second (a burst of one second's).
  size_t keep_max_in_flight = 4;
  double keep_per_second = 10;
  // Jobs waiting for a capture on one namespace's loop; beyond, the next pass finds them.
  size_t keep_max_pending = 10000;
  // How often a namespace's loop passes over the cache for jobs it missed (a full queue, a failed
  // capture, a replica that was down when the job ended).
  absl::Duration keep_sweep = absl::Minutes(1);
};

// What every RPC's coroutine works with (executor.cc, streams.cc: free functions over it): the
// cluster, the cache, the configuration and the operator's backend, plus the drivers of stopped
// apps remembered for Status. The fields are plain by design: the coroutines are this context's
// only readers, and it is never handed past the executor.
class ExecutorContext {
 public:
  ExecutorContext(boost::asio::io_context& io, std::shared_ptr<k8s::Client> client,
                  cache::AppCache& cache, NamespacePolicy policy, ExecutorOptions options,
                  const Clock& clock, std::shared_ptr<const spark::OperatorBackend> backend);

  boost::asio::io_context& io;
  const std::shared_ptr<k8s::Client> client;
  cache::AppCache& cache;
  const NamespacePolicy policy;
  const ExecutorOptions options;
  const Clock& clock;
  const std::shared_ptr<const spark::OperatorBackend> backend;

  // A Kubernetes call's deadline: the RPC's, within options.request_timeout.
  absl::Time Deadline(absl::Time rpc_deadline) const;
  // The execution id of the application `ns`/`name` of this cluster.
  spark::ExecutionId IdOf(std::string_view ns, std::string_view name) const;
  // The execution id parsed for this cluster, within the namespace policy.
  absl::StatusOr<spark::ExecutionId> ParseId(std::string_view execution_id) const;
  absl::StatusOr<spark::ExecutionIdView> ParseIdView(std::string_view execution_id) const;
  // An application the API server returned, for the cache.
  void ObserveReturned(const std::string& json);
  JobResult ResultOf(const spark::ExecutionId& id, const spark::AppProjection& app,
                     const spark::DriverPod* driver) const;
  // The same with the status already mapped.
  JobResult ResultOf(const spark::ExecutionId& id, const spark::AppProjection& app,
                     const spark::DriverPod* driver, spark::JobStatusInfo info) const;
  // Status straight from the cache, when it needs no request: true after `answer` had it (its
  // strings read from the cached app in place). `text` is the id's text, which `id` was parsed
  // from.
  bool AnswerFromSnapshot(const spark::ExecutionIdView& id, std::string_view text,
                          absl::FunctionRef<void(const JobView&)> answer) const;

  // The driver a stopped app had at this resourceVersion, if recorded (nullopt), or that it had
  // none.
  std::optional<std::optional<spark::DriverPod>> KnownDriverOf(
      const spark::AppProjection& app) const;
  void RememberDriver(const spark::AppProjection& app,
                      const std::optional<spark::DriverPod>& driver);

  // The backend's status of `app`, with its deadlines applied (spark/deadline.h).
  spark::JobStatusInfo MapStatus(const spark::AppProjection& app,
                                 const spark::DriverPod* driver) const;
  // Jobs stopped for a deadline by this replica, by kind (a metric).
  std::atomic<int64_t> deadline_stops[3] = {0, 0, 0};
  // Whether the job (mapped to `info`) owes a waiting reason: queued past the grace period.
  bool OwesWaiting(const spark::AppProjection& app, const spark::JobStatusInfo& info) const;
  // Why the job waits as far as is known without a request: nothing when it owes no reason,
  // what the app says by itself, or a remembered lookup; nullopt when a lookup is due.
  std::optional<spark::Waiting> KnownWaiting(const spark::AppProjection& app,
                                             const spark::JobStatusInfo& info) const;
  // What is remembered of why each waiting job waits.
  WaitingMemo waiting_memo;
  // Paces the captures of kept records across this replica's namespaces.
  std::shared_ptr<k8s::RequestLimiter> keep_limiter;
  // What became of the records this replica set out to write (a metric).
  RecordOutcomes record_outcomes;

 private:
  // The driver pods of stopped applications by app uid, valid while the app keeps the recorded
  // resourceVersion: a stopped app's terminated driver no longer changes until the app does (the
  // operator records the pod's removal on the app), so Status of a finished job needs no pod LIST.
  // An entry outlives its app only until the next sweep: when the map has doubled since the
  // last one, the entries of apps the cache no longer holds (deleted, or not followed) go, so it
  // stays within twice the stopped apps the cache holds (and small when the cache is off).
  struct KnownDriver {
    std::string epoch;  // the backend's DriverEpoch of the app when its driver was looked up
    std::optional<spark::DriverPod> driver;
    std::string namespace_;
    std::string name;
  };
  static constexpr size_t kMaxKnownDrivers = 200000;
  // Drops the entries whose app the cache no longer holds; asks the cache without the lock.
  void SweepKnownDrivers();
  mutable absl::Mutex drivers_mu_;
  absl::flat_hash_map<std::string, KnownDriver> known_drivers_ ABSL_GUARDED_BY(drivers_mu_);
  size_t next_driver_sweep_ ABSL_GUARDED_BY(drivers_mu_);
};

class Executor final : public JobExecutor {
 public:
  // `io` runs every coroutine; `client`, `cache`, `clock` and `io` must outlive the executor
  // and every call it started.
  Executor(boost::asio::io_context& io, std::shared_ptr<k8s::Client> client, cache::AppCache& cache,
           NamespacePolicy policy, ExecutorOptions options, const Clock& clock,
           std::shared_ptr<const spark::OperatorBackend> backend);
  ~Executor() override;

  std::shared_ptr<RpcHandle> Submit(std::string job_id, const std::string& metalake,
                                    const spark::SparkTemplate& job, absl::Time deadline,
                                    Done<SubmitResult> done) override;
  std::shared_ptr<RpcHandle> SubmitDryRun(std::string job_id, const std::string& metalake,
                                          const spark::SparkTemplate& job, absl::Time deadline,
                                          Done<SubmitResult> done) override;
  StatusLookup StatusNow(std::string_view execution_id,
                         absl::FunctionRef<void(const JobView&)> answer) const override;
  std::shared_ptr<RpcHandle> Status(spark::ExecutionId id, absl::Time deadline,
                                    Done<JobResult> done) override;
  // StatusNow, then Status when it needs a lookup.
  std::shared_ptr<RpcHandle> Status(std::string_view execution_id, absl::Time deadline,
                                    Done<JobResult> done);
  std::shared_ptr<RpcHandle> Cancel(std::string_view execution_id, const CancelOptions& options,
                                    absl::Time deadline, Done<bool> done) override;
  std::shared_ptr<RpcHandle> Output(std::string_view execution_id, int64_t max_lines,
                                    int64_t max_bytes, const LogRequest& log, absl::Time deadline,
                                    Done<spark::LogTailResult> done) override;
  std::shared_ptr<RpcHandle> ListJobs(const std::string& namespace_,
                                      const std::string& label_selector, int64_t page_size,
                                      const std::string& page_token, const ListFilter& filter,
                                      absl::Time deadline, Done<JobPage> done) override;
  std::shared_ptr<RpcHandle> ListAllNamespaces(const std::string& label_selector, int64_t page_size,
                                               const std::string& page_token,
                                               const ListFilter& filter, absl::Time deadline,
                                               Done<JobPage> done) override;
  // `done` after the last job stopped, or RESOURCE_EXHAUSTED past max_queued_changes.
  std::shared_ptr<RpcHandle> WatchStatus(const std::vector<std::string>& execution_ids,
                                         absl::Time deadline, StreamWriter<JobResult>* writer,
                                         std::function<void(absl::Status)> done) override;
  std::shared_ptr<RpcHandle> FollowOutput(std::string_view execution_id, int64_t tail_lines,
                                          std::string_view resume, const LogRequest& log,
                                          absl::Time deadline, StreamWriter<OutputBatch>* writer,
                                          std::function<void(absl::Status)> done) override;

  std::shared_ptr<RpcHandle> Events(std::string_view execution_id, absl::Time deadline,
                                    Done<JobEvents> done) override;
  std::shared_ptr<RpcHandle> ProxyUi(std::string_view execution_id, std::string path,
                                     absl::Time deadline, Done<UiPage> done) override;

  std::shared_ptr<RpcHandle> CreateSchedule(std::string schedule_id, const std::string& metalake,
                                            const spark::SparkTemplate& job,
                                            const spark::ScheduleSpec& spec, absl::Time deadline,
                                            Done<ScheduleResult> done) override;
  std::shared_ptr<RpcHandle> GetSchedule(const std::string& ns, const std::string& schedule_id,
                                         absl::Time deadline, Done<ScheduleResult> done) override;
  std::shared_ptr<RpcHandle> ListSchedules(const std::string& ns, const std::string& label_selector,
                                           int64_t page_size, const std::string& page_token,
                                           absl::Time deadline, Done<SchedulePage> done) override;
  std::shared_ptr<RpcHandle> UpdateSchedule(const std::string& ns, const std::string& schedule_id,
                                            const spark::ScheduleUpdate& update,
                                            absl::Time deadline,
                                            Done<ScheduleResult> done) override;
  std::shared_ptr<RpcHandle> DeleteSchedule(const std::string& ns, const std::string& schedule_id,
                                            bool keep_runs, absl::Time deadline,
                                            Done<bool> done) override;
  std::shared_ptr<RpcHandle> RunScheduleNow(const std::string& ns, const std::string& schedule_id,
                                            const std::string& run_id, absl::Time deadline,
                                            Done<RunNowResult> done) override;

  // Stops the jobs of the followed namespaces whose deadline has passed (without anyone asking
  // for their status), and finishes stops left half done; `done` gets how many it stopped.
  std::shared_ptr<RpcHandle> SweepDeadlines(absl::Time deadline, Done<int64_t> done);
  // Keeps the records of the jobs of `ns` as they end (executor/output_keep.h), until cancelled
  // (`done` then gets CANCELLED) or the cache stops.
  std::shared_ptr<RpcHandle> KeepRecords(const std::string& ns,
                                         std::function<void(absl::Status)> done);
  // The waiting jobs this replica looked up recently, by reason.
  std::vector<std::pair<spark::WaitingReason, int64_t>> RecentlyWaiting() const {
    return ctx_.waiting_memo.CountRecent(ctx_.clock.Now());
  }
  std::string_view BackendName() const { return ctx_.backend->Name(); }
  // The kept records this replica set out to write, by outcome (executor/record_outcomes.h).
  int64_t RecordOutcomeCount(RecordOutcome outcome) const {
    return ctx_.record_outcomes.Count(outcome);
  }
  // Jobs stopped for a deadline by this replica: [queued, run].
  std::array<int64_t, 2> DeadlineStops() const {
    return {ctx_.deadline_stops[1].load(std::memory_order_relaxed),
            ctx_.deadline_stops[2].load(std::memory_order_relaxed)};
  }

  const ExecutorOptions& options() const { return ctx_.options; }
  // How the job metrics read an application's status: as Status and ListJobs do (without a
  // driver pod). It points at this executor, which must outlive its use.
  JobMetrics::MapStatus JobStatusMapper() const {
    return [this](const spark::AppProjection& app) { return ctx_.MapStatus(app, nullptr); };
  }
  const NamespacePolicy& policy() const { return ctx_.policy; }

  // Where templates' staged references are looked up (not owned; must outlive every call);
  // without one, a template naming a staged file is refused (staged_submit.cc).
  void EnableStaging(staging::Stager* stager) { stager_ = stager; }
  // Deletes the staged files that no application or schedule of the allowed namespaces names
  // and that are older than `grace` (staging_sweep.cc); `done` gets how many went. Idempotent:
  // replicas may sweep at once.
  std::shared_ptr<RpcHandle> SweepStaged(absl::Duration grace, absl::Time deadline,
                                         Done<int64_t> done);

 private:
  // Submit, or its dry run (dry_run.cc): the same build and checks either way.
  std::shared_ptr<RpcHandle> SubmitOrDryRun(bool dry_run, std::string job_id,
                                            const std::string& metalake,
                                            const spark::SparkTemplate& job, absl::Time deadline,
                                            Done<SubmitResult> done);
  // Submit and CreateSchedule of a template that names staged files: the files looked up in
  // the store first, then the call again with their URIs.
  std::shared_ptr<RpcHandle> SubmitStaged(bool dry_run, std::string job_id,
                                          const std::string& metalake,
                                          const spark::SparkTemplate& job, absl::Time deadline,
                                          Done<SubmitResult> done);
  std::shared_ptr<RpcHandle> CreateScheduleStaged(std::string schedule_id,
                                                  const std::string& metalake,
                                                  const spark::SparkTemplate& job,
                                                  const spark::ScheduleSpec& spec,
                                                  absl::Time deadline, Done<ScheduleResult> done);

  ExecutorContext ctx_;
  staging::Stager* stager_ = nullptr;
};

}  // namespace kje::executor
