// WatchStatus and FollowOutput: coroutine loops that follow the informer instead of polling, with
// one write in flight to the caller. What the informer delivers waits in the stream's own bounded
// mailbox; a caller that stops reading fills only that mailbox and then loses its stream
// (RESOURCE_EXHAUSTED), and nobody else waits for it.

#include <map>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "async/one_shot.h"
#include "async/strand_task.h"
#include "async/wakeup.h"
#include "base/log.h"
#include "base/mask.h"
#include "base/quote.h"
#include "base/strings.h"
#include "executor/error_table.h"
#include "executor/executor.h"
#include "executor/internal.h"
#include "executor/kept_record.h"
#include "executor/log_buffer.h"
#include "k8s/errors.h"
#include "spark/execution_id.h"
#include "spark/log_cursor.h"

namespace kje::executor {

namespace asio = boost::asio;

namespace {

constexpr int64_t kDefaultFollowTailLines = 100;
// Changes of one followed app that may wait while its log is being looked for.
constexpr size_t kFollowChanges = 64;

bool SameInfo(const JobResult& a, const JobResult& b) {
  return a.info.status == b.info.status && a.info.operator_state == b.info.operator_state &&
         a.info.message == b.info.message && a.info.started_at == b.info.started_at &&
         a.info.finished_at == b.info.finished_at && a.driver_pod == b.driver_pod &&
         a.details == b.details && a.waiting == b.waiting;
}

bool Newer(const spark::AppProjection& candidate, const cache::AppPtr& seen) {
  if (seen == nullptr) return true;
  if (candidate.uid() != seen->uid()) return true;  // a new application of the same name
  auto cmp = cache::CompareResourceVersions(candidate.resource_version(), seen->resource_version());
  return !cmp.has_value() ? candidate.resource_version() != seen->resource_version() : *cmp > 0;
}

absl::Status Overflowed(size_t capacity) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "the caller reads the stream too slowly: more than ", capacity,
      " changes piled up unread (the limit); re-open the watch to get the current statuses"));
}

// How a write that Send waits for ended: whichever came first of its completion and the end of
// the mailbox.
enum class Sent { kWritten, kBroken, kMailboxEnded };

// Writes one message and waits for it to be out, or for `mailbox` (when given) to end: a caller
// stuck on this write must not keep the stream alive once it has fallen too far behind.
template <class T>
asio::awaitable<absl::Status> Send(StreamWriter<T>* writer, T message,
                                   cache::Mailbox<cache::AppEvent>* mailbox) {
  auto outcome = async::OneShot<Sent>::New();
  writer->Write(std::move(message),
                [outcome](bool ok) { outcome->Set(ok ? Sent::kWritten : Sent::kBroken); });
  if (mailbox != nullptr) mailbox->OnEnd([outcome] { outcome->Set(Sent::kMailboxEnded); });
  absl::StatusOr<Sent> sent = co_await outcome->Wait();
  if (mailbox != nullptr) mailbox->ForgetWakes();
  // Without a deadline the wait ends without a value only when the call is cancelled.
  if (!sent.ok() || co_await internal::Cancelled()) {
    co_return absl::CancelledError("the call was cancelled");
  }
  switch (*sent) {
    case Sent::kWritten:
      co_return absl::OkStatus();
    case Sent::kBroken:
      co_return absl::CancelledError("the stream was broken");
    case Sent::kMailboxEnded:
      break;
  }
  if (mailbox->state() == cache::Mailbox<cache::AppEvent>::State::kOverflowed) {
    co_return Overflowed(mailbox->capacity());
  }
  co_return absl::UnavailableError("the informer cache is shutting down");
}

// Waits until `mailbox` has something (or ended), `until` passes, or the coroutine is cancelled.
asio::awaitable<bool> WaitForChanges(cache::Mailbox<cache::AppEvent>& mailbox,
                                     absl::Time until = absl::InfiniteFuture()) {
  auto wakeup = std::make_shared<async::Wakeup>();
  mailbox.OnReady(wakeup->Waker());
  co_await wakeup->Wait(until);
  mailbox.ForgetWakes();
  co_return !(co_await internal::Cancelled());
}

struct Job {
  spark::ExecutionId id;
  cache::AppPtr app;  // the newest version seen
  bool gone = false;  // deleted (app is its last version)
  bool dirty = true;  // changed since last mapped
  bool done = false;  // its last status was sent
  std::optional<JobResult> last_sent;
};

asio::awaitable<absl::Status> WatchLoop(ExecutorContext& ex, std::vector<spark::ExecutionId> ids,
                                        absl::Time deadline, StreamWriter<JobResult>* writer);
asio::awaitable<absl::Status> FollowLoop(ExecutorContext& ex, spark::ExecutionId id,
                                         int64_t tail_lines,
                                         std::optional<spark::LogPosition> position, LogRequest log,
                                         absl::Time deadline, StreamWriter<OutputBatch>* writer);

}  // namespace

std::shared_ptr<RpcHandle> Executor::WatchStatus(const std::vector<std::string>& execution_ids,
                                                 absl::Time deadline,
                                                 StreamWriter<JobResult>* writer,
                                                 std::function<void(absl::Status)> done) {
  auto fail = [&](absl::Status status) -> std::shared_ptr<RpcHandle> {
    done(std::move(status));
    return internal::FinishedHandle();
  };
  if (execution_ids.empty()) return fail(absl::InvalidArgumentError("no execution ids to watch"));
  if (execution_ids.size() > ctx_.options.max_watched_jobs) {
    return fail(absl::InvalidArgumentError(absl::StrCat(
        "at most ", ctx_.options.max_watched_jobs,
        " execution ids per watch (server.maxWatchedJobs), got ", execution_ids.size())));
  }
  std::vector<spark::ExecutionId> ids;
  for (const std::string& raw : execution_ids) {
    auto id = ctx_.ParseId(raw);
    if (!id.ok()) return fail(id.status());
    for (const auto& seen : ids) {
      if (seen.namespace_ == id->namespace_ && seen.name == id->name) {
        return fail(absl::InvalidArgumentError(
            absl::StrCat("execution id ", QuoteBounded(raw), " is given twice")));
      }
    }
    ids.push_back(*std::move(id));
  }
  if (!ctx_.cache.enabled()) {
    return fail(absl::FailedPreconditionError(
        "WatchStatus follows the informer cache, which is disabled (statusCacheTtlMs <= 0)"));
  }
  return internal::Spawn(
      ctx_.io,
      [this, ids = std::move(ids), deadline, writer]() mutable {
        return WatchLoop(ctx_, std::move(ids), deadline, writer);
      },
      std::move(done));
}

std::shared_ptr<RpcHandle> Executor::FollowOutput(std::string_view execution_id, int64_t tail_lines,
                                                  std::string_view resume, const LogRequest& log,
                                                  absl::Time deadline,
                                                  StreamWriter<OutputBatch>* writer,
                                                  std::function<void(absl::Status)> done) {
  auto id = ctx_.ParseId(execution_id);
  if (!id.ok()) {
    done(id.status());
    return internal::FinishedHandle();
  }
  if (tail_lines < 0) {
    done(absl::InvalidArgumentError("tail_lines must not be negative"));
    return internal::FinishedHandle();
  }
  if (absl::Status bad = CheckLogRequest(log, true); !bad.ok()) {
    done(bad);
    return internal::FinishedHandle();
  }
  std::optional<spark::LogPosition> position;
  if (!resume.empty()) {
    auto decoded = spark::DecodeCursor(resume);
    if (!decoded.ok()) {
      done(decoded.status());
      return internal::FinishedHandle();
    }
    position = *std::move(decoded);
  }
  if (tail_lines == 0) tail_lines = kDefaultFollowTailLines;
  deadline = std::min(deadline, absl::Now() + ctx_.options.max_follow);
  return internal::Spawn(
      ctx_.io,
      [this, id = *std::move(id), tail_lines, position = std::move(position), log, deadline,
       writer]() mutable {
        return FollowLoop(ctx_, std::move(id), tail_lines, std::move(position), log, deadline,
                          writer);
      },
      std::move(done));
}

namespace {

// What a caller sees of a job whose application was deleted.
JobResult DeletedResult(ExecutorContext& ex, const Job& job) {
  JobResult result = ex.ResultOf(job.id, *job.app, nullptr);
  if (!spark::IsTerminal(result.info.status)) {
    bool cancelled = job.app->cancel_requested();
    result.info.status = cancelled ? spark::JobStatus::kCancelled : spark::JobStatus::kFailed;
    result.info.finished_at = ex.clock.Now();
    result.info.message = cancelled ? "the SparkApplication was deleted after a cancel request"
                                    : "the SparkApplication was deleted before its job finished";
  }
  return result;
}

// When a queued job's waiting reason is next worth a look: at the end of its grace period, then
// once each refresh interval.
absl::Time NextWaitingLook(const ExecutorContext& ex, const spark::AppProjection& app,
                           const spark::JobStatusInfo& info) {
  const absl::Time now = ex.clock.Now();
  // A started job's executors: only the end of its grace period (the operator's status, which
  // the informer delivers, says the rest).
  if (info.status == spark::JobStatus::kStarted) {
    if (info.executors_pending.empty() || !info.started_at) return absl::InfiniteFuture();
    const absl::Time grace_ends = *info.started_at + ex.options.waiting_grace;
    return grace_ends > now ? grace_ends : absl::InfiniteFuture();
  }
  if (app.creation_time() != spark::kNoTime) {
    const absl::Time grace_ends =
        absl::FromUnixMillis(app.creation_time()) + ex.options.waiting_grace;
    if (grace_ends > now) return grace_ends;
  }
  return now + ex.options.waiting_refresh;
}

void Apply(std::map<std::string, Job>& jobs, const cache::AppEvent& event) {
  auto it =
      jobs.find(absl::StrCat(ToAbsl(event.app->namespace_()), "/", ToAbsl(event.app->name())));
  if (it == jobs.end() || it->second.done || it->second.gone) return;
  Job& job = it->second;
  if (event.type == cache::AppEvent::Type::kDeleted) {
    if (job.app == nullptr || event.app->uid() == job.app->uid()) {
      spark::AppFields last = event.app->ToFields();
      last.deleting = true;
      job.app = std::make_shared<const spark::AppProjection>(last);
      job.gone = true;
      job.dirty = true;
    }
  } else if (Newer(*event.app, job.app)) {
    job.app = event.app;
    job.dirty = true;
  }
}

asio::awaitable<absl::Status> WatchLoop(ExecutorContext& ex, std::vector<spark::ExecutionId> ids,
                                        absl::Time deadline, StreamWriter<JobResult>* writer) {
  cache::AppCache& cache = ex.cache;
  auto mailbox = std::make_shared<cache::Mailbox<cache::AppEvent>>(ex.options.max_queued_changes);
  std::map<std::string, std::vector<std::string>> names_by_ns;
  std::map<std::string, Job> jobs;  // by "namespace/name"
  for (auto& id : ids) {
    names_by_ns[id.namespace_].push_back(id.name);
    std::string key = absl::StrCat(id.namespace_, "/", id.name);
    Job job;
    job.id = std::move(id);
    jobs.emplace(std::move(key), std::move(job));
  }
  // Subscribed before the lookups, so no change between a lookup and the subscription is lost.
  std::vector<std::pair<std::string, cache::AppCache::Subscribed>> subscriptions;
  absl::Cleanup unsubscribe = [&] {
    for (const auto& [ns, sub] : subscriptions) cache.Unsubscribe(ns, sub);
  };
  for (auto& [ns, names] : names_by_ns) {
    auto sub = cache.Subscribe(ns, names, mailbox);
    if (!sub.ok()) co_return sub.status();
    subscriptions.emplace_back(ns, *std::move(sub));
  }
  for (auto& [key, job] : jobs) {
    auto app = co_await coroutines::LookUp(ex, job.id.namespace_, job.id.name, deadline);
    // Nothing has been sent yet (the first statuses go out together), so the whole call fails
    // as Status would.
    if (!app.ok()) co_return app.status();
    if (Newer(**app, job.app)) job.app = *std::move(app);
  }
  for (;;) {
    for (const cache::AppEvent& event : mailbox->Drain()) Apply(jobs, event);
    // A queued job's waiting reason can change while its app doesn't (a pod that can't pull its
    // image, then can't be scheduled): it is looked at again when its grace period ends, then
    // every refresh interval, whatever the informer delivers.
    absl::Time next_look = absl::InfiniteFuture();
    for (auto& [key, job] : jobs) {
      if (job.done || !job.dirty) continue;
      job.dirty = false;
      JobResult result;
      if (job.gone) {
        result = DeletedResult(ex, job);
        job.done = true;
      } else {
        result = ex.ResultOf(job.id, *job.app, nullptr);
        if (result.info.deadline_due != spark::DeadlineKind::kNone) {
          auto stop = coroutines::StopForDeadline(ex, job.app, result.info.deadline_due, deadline);
          auto stopped = co_await std::move(stop);
          if (!stopped.ok() && !absl::IsNotFound(stopped.status())) co_return stopped.status();
          // Gone: the informer's deletion ends the job; marked: judged again now.
          if (stopped.ok() && Newer(**stopped, job.app)) job.app = *std::move(stopped);
          job.dirty = true;
          continue;
        }
        if (result.info.deadline_at) next_look = std::min(next_look, *result.info.deadline_at);
        if (ex.OwesWaiting(*job.app, result.info)) {
          auto waiting_of = coroutines::WaitingOf(ex, job.app, result.info, deadline);
          result.waiting = co_await std::move(waiting_of);
          if (result.driver_pod.empty()) result.driver_pod = result.waiting.pod;
        }
        if ((result.info.status == spark::JobStatus::kQueued ||
             result.info.status == spark::JobStatus::kStarted) &&
            !result.info.deleting) {
          next_look = std::min(next_look, NextWaitingLook(ex, *job.app, result.info));
        }
        if (spark::IsTerminal(result.info.status)) {
          job.done = true;
          if (ex.backend->IsStopped(*job.app)) {
            // The last status carries the driver container's exact times, as Status gives them.
            cache::AppPtr app = job.app;
            auto driver = co_await coroutines::StoppedDriver(ex, app, deadline);
            const spark::DriverPod* pod = driver && *driver ? &**driver : nullptr;
            result = ex.ResultOf(job.id, *app, pod);
          }
        }
      }
      if (job.last_sent && SameInfo(*job.last_sent, result)) continue;
      job.last_sent = result;
      if (absl::Status sent = co_await Send(writer, std::move(result), mailbox.get()); !sent.ok()) {
        co_return sent;
      }
    }
    bool all_done = true;
    for (const auto& [key, job] : jobs) all_done = all_done && job.done;
    if (all_done) co_return absl::OkStatus();
    switch (mailbox->state()) {
      case cache::Mailbox<cache::AppEvent>::State::kOverflowed:
        co_return Overflowed(mailbox->capacity());
      case cache::Mailbox<cache::AppEvent>::State::kClosed:
        co_return absl::UnavailableError("the informer cache is shutting down");
      case cache::Mailbox<cache::AppEvent>::State::kOpen:
        break;
    }
    if (mailbox->size() > 0) continue;
    bool redo = false;  // a job stopped for its deadline is mapped again at once
    for (const auto& [key, job] : jobs) redo = redo || (job.dirty && !job.done);
    if (redo) continue;
    // The wait's time on the process clock: the executor's clock may be a test's.
    const absl::Time until = next_look == absl::InfiniteFuture()
                                 ? next_look
                                 : absl::Now() + (next_look - ex.clock.Now());
    if (!co_await WaitForChanges(*mailbox, until)) {
      co_return absl::CancelledError("the call was cancelled");
    }
    if (next_look != absl::InfiniteFuture() && ex.clock.Now() >= next_look) {
      for (auto& [key, job] : jobs) job.dirty = job.dirty || (!job.done && !job.gone);
    }
  }
}

// Streams the driver's log until it ends. nullopt: the container hasn't started yet (the API
// server answered 400 before sending anything), so the caller waits for the app to move on.
// Drops the lines of `batch` at or before the tracker's resume point and their stamps, and sets
// the batch's cursor. A line without a stamp is a piece of the one before (cut for its length)
// and goes with it.
void Position(spark::LogPositionTracker& tracker, OutputBatch& batch, bool keep_stamps) {
  std::vector<std::string> kept;
  kept.reserve(batch.lines.size());
  bool deliver = true;
  for (std::string& line : batch.lines) {
    if (auto stamped = spark::SplitStamp(line)) {
      deliver = tracker.Accept(stamped->unix_nanos);
      if (deliver && keep_stamps) {
        kept.push_back(std::move(line));
      } else if (deliver) {
        kept.emplace_back(stamped->text);
      }
    } else if (deliver) {
      kept.push_back(std::move(line));
    }
  }
  batch.lines = std::move(kept);
  const spark::LogPosition at = tracker.position();
  if (at.at_stamp > 0) batch.cursor = spark::EncodeCursor(at);
}

// Streams the driver's log until it ends, from after `position` when it is this pod's (the
// position moves on as batches go out). nullopt: the container hasn't started yet (the API
// server answered 400 before sending anything), so the caller waits for the app to move on.
asio::awaitable<std::optional<absl::Status>> StreamLog(
    ExecutorContext& ex, const spark::ExecutionId& id, const spark::DriverPod& driver,
    int64_t tail_lines, std::optional<spark::LogPosition>& position, const LogRequest& log,
    absl::Time deadline, StreamWriter<OutputBatch>* writer) {
  k8s::ResourceRef pod = k8s::CoreRef("pods", id.namespace_, driver.name);
  k8s::LogOptions options;
  // The kubelet's stamps make the cursor; the lines go out without them unless asked for.
  options.timestamps = true;
  spark::LogPositionTracker tracker(driver.uid, position);
  if (position && position->pod_uid == driver.uid) {
    options.since_time = spark::ResumeSinceTime(*position);
  } else if (!position) {
    options.tail_lines = tail_lines;
    // The API server takes one of sinceTime and sinceSeconds: a resumed follow has its own.
    if (log.since_seconds > 0) options.since_seconds = log.since_seconds;
  }  // else a new driver since the cursor: all of its log is new
  options.follow = true;
  if (auto container = spark::LogContainer(driver)) options.container = *container;
  auto buffer = std::make_shared<LogBuffer>(ex.options.max_follow_buffer_bytes);
  // The log is read beside this loop, on the same strand, so that a caller slow to take the
  // lines never stalls the reading (the buffer's bound decides what is kept). The loop ends the
  // reading when it leaves.
  auto reading = ex.client->StreamLog(pod, options, deadline,
                                      [buffer](std::string_view chunk) { buffer->Chunk(chunk); });
  asio::any_io_executor strand = co_await asio::this_coro::executor;
  auto reader = async::StrandTask::Spawn(strand, std::move(reading), [buffer](absl::Status status) {
    buffer->End(std::move(status));
  });
  absl::Cleanup end_reading = [reader] { reader->Cancel(); };
  for (;;) {
    LogBuffer::Taken taken = buffer->Take();
    if (!taken.batch.lines.empty() || taken.batch.dropped_lines > 0) {
      Position(tracker, taken.batch, log.timestamps);
      if (tracker.started()) position = tracker.position();
      if (taken.batch.lines.empty() && taken.batch.dropped_lines == 0) continue;
      // As Output does: a job's own log may quote its sensitive conf or arguments.
      for (std::string& line : taken.batch.lines) line = MaskText(line);
      if (absl::Status sent = co_await Send(writer, std::move(taken.batch),
                                            static_cast<cache::Mailbox<cache::AppEvent>*>(nullptr));
          !sent.ok()) {
        co_return sent;
      }
      continue;
    }
    if (taken.ended) {
      if (k8s::HttpCode(taken.end) == 400 && !taken.received) co_return std::nullopt;
      if (taken.end.ok()) co_return absl::OkStatus();
      co_return FromKubernetes(
          taken.end, Rpc::kFollowOutput,
          absl::StrCat("following the log of ", id.namespace_, "/", driver.name), deadline,
          absl::Now());
    }
    auto wakeup = std::make_shared<async::Wakeup>();
    buffer->OnReady(wakeup->Waker());
    co_await wakeup->Wait();
    if (co_await internal::Cancelled()) co_return absl::CancelledError("the call was cancelled");
  }
}

// What a follow sends once the driver pod is gone: the kept tail after `position` (its last
// `tail_lines` without one), in batches with their cursors.
asio::awaitable<absl::Status> SendKept(ExecutorContext& ex, const spark::ExecutionId& id,
                                       int64_t tail_lines,
                                       const std::optional<spark::LogPosition>& position,
                                       bool keep_stamps, absl::Time deadline,
                                       StreamWriter<OutputBatch>* writer) {
  auto read = coroutines::ReadKeptRecord(ex, id.namespace_, id.name, deadline);
  auto record = co_await std::move(read);
  if (!record.ok() || !record->has_value() || (*record)->stamped_lines.empty()) {
    co_return absl::OkStatus();  // nothing kept: the log ended with its pod
  }
  const KeptRecord& kept = **record;
  spark::LogPositionTracker tracker(kept.pod_uid, position);
  size_t first = 0;
  if (!position && kept.stamped_lines.size() > static_cast<size_t>(tail_lines)) {
    first = kept.stamped_lines.size() - static_cast<size_t>(tail_lines);
    // The lines before the tail still count toward the lines that share a stamp.
    for (size_t i = 0; i < first; ++i) {
      if (auto stamped = spark::SplitStamp(kept.stamped_lines[i])) {
        tracker.Accept(stamped->unix_nanos);
      }
    }
  }
  for (size_t at = first; at < kept.stamped_lines.size();) {
    OutputBatch batch;
    const size_t end = std::min(kept.stamped_lines.size(), at + LogBuffer::kMaxBatchLines);
    batch.lines.assign(kept.stamped_lines.begin() + static_cast<long>(at),
                       kept.stamped_lines.begin() + static_cast<long>(end));
    at = end;
    Position(tracker, batch, keep_stamps);
    if (batch.lines.empty()) continue;
    if (absl::Status sent = co_await Send(writer, std::move(batch),
                                          static_cast<cache::Mailbox<cache::AppEvent>*>(nullptr));
        !sent.ok()) {
      co_return sent;
    }
  }
  co_return absl::OkStatus();
}

asio::awaitable<absl::Status> FollowLoop(ExecutorContext& ex, spark::ExecutionId id,
                                         int64_t tail_lines,
                                         std::optional<spark::LogPosition> position, LogRequest log,
                                         absl::Time deadline, StreamWriter<OutputBatch>* writer) {
  auto app = co_await coroutines::LookUp(ex, id.namespace_, id.name, deadline);
  if (!app.ok()) co_return app.status();
  cache::AppPtr current = *std::move(app);
  cache::AppCache& cache = ex.cache;
  std::optional<cache::AppCache::Subscribed> subscribed;
  auto mailbox = std::make_shared<cache::Mailbox<cache::AppEvent>>(kFollowChanges);
  absl::Cleanup unsubscribe = [&] {
    if (subscribed) cache.Unsubscribe(id.namespace_, *subscribed);
  };
  for (;;) {
    // The driver's pod, or the executor's the request names: either is followed alike.
    // Not a conditional expression: GCC's coroutines mishandle a co_await in one.
    absl::StatusOr<std::optional<spark::DriverPod>> driver;
    if (log.executor > 0) {
      driver =
          co_await coroutines::FindExecutorPod(ex, id.namespace_, id.name, log.executor, deadline);
    } else {
      driver = co_await coroutines::FindDriver(ex, id.namespace_, id.name, current, deadline);
    }
    if (!driver.ok()) {
      co_return FromKubernetes(driver.status(), Rpc::kFollowOutput,
                               absl::StrCat("listing the pods of ", id.namespace_, "/", id.name),
                               deadline, absl::Now());
    }
    if (driver->has_value()) {
      auto streamed =
          co_await StreamLog(ex, id, **driver, tail_lines, position, log, deadline, writer);
      if (streamed) co_return *streamed;
    } else if (ex.backend->IsStopped(*current) || current->deleting()) {
      // It stopped without a pod left to read: what was kept of the driver's log, if anything
      // (an executor's log is kept nowhere).
      if (log.executor > 0) co_return absl::OkStatus();
      co_return co_await SendKept(ex, id, tail_lines, position, log.timestamps, deadline, writer);
    }
    // No driver yet, or it hasn't started: the next change of the app may bring one.
    if (!subscribed) {
      auto sub = cache.Subscribe(id.namespace_, {id.name}, mailbox);
      if (!sub.ok()) {
        co_return absl::FailedPreconditionError(
            absl::StrCat("the job has no running driver yet, and there is no way to wait for one: ",
                         sub.status().message()));
      }
      subscribed = *std::move(sub);
      continue;  // look once more: the change may have come before the subscription
    }
    if (mailbox->size() == 0 && !co_await WaitForChanges(*mailbox)) {
      co_return absl::CancelledError("the call was cancelled");
    }
    if (mailbox->state() == cache::Mailbox<cache::AppEvent>::State::kClosed) {
      co_return absl::UnavailableError("the informer cache is shutting down");
    }
    for (const cache::AppEvent& event : mailbox->Drain()) {
      if (event.type == cache::AppEvent::Type::kDeleted) co_return absl::OkStatus();
      if (Newer(*event.app, current)) current = event.app;
    }
    if (mailbox->state() == cache::Mailbox<cache::AppEvent>::State::kOverflowed) {
      // Only this app's changes go here, so a pile-up means a long search: start over fresh.
      mailbox = std::make_shared<cache::Mailbox<cache::AppEvent>>(kFollowChanges);
      cache.Unsubscribe(id.namespace_, *subscribed);
      subscribed.reset();
    }
  }
}

}  // namespace
}  // namespace kje::executor
