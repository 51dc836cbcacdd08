// Deadlines: a job queued or running past its deadline is stopped by whichever replica sees it
// first (a Status, a WatchStatus, or the periodic sweep of the followed namespaces), exactly once:
// the mark that says so is a patch valid only at the resourceVersion the deadline was judged on,
// so of two replicas racing one writes it and the other gets 409 and finds it written. The stop
// itself is Cancel's: the application is deleted, its pods first.

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/strings.h"
#include "executor/cancel_keep.h"
#include "executor/error_table.h"
#include "executor/executor.h"
#include "executor/internal.h"
#include "k8s/errors.h"
#include "spark/cancel_keep.h"
#include "spark/deadline.h"

namespace kje::executor {

namespace asio = boost::asio;

spark::JobStatusInfo ExecutorContext::MapStatus(const spark::AppProjection& app,
                                                const spark::DriverPod* driver) const {
  const absl::Time now = clock.Now();
  spark::JobStatusInfo info = backend->MapStatus(app, driver, now, options.no_status_timeout);
  spark::ApplyDeadlines(app, now, info);
  spark::ApplyKeptStop(app, info);
  return info;
}

namespace coroutines {

asio::awaitable<void> FinishDeadlineStop(ExecutorContext& ex, cache::AppPtr app,
                                         absl::Time rpc_deadline) {
  k8s::DeleteOptions del;
  del.propagation_policy = "Foreground";
  del.precondition_uid = app->uid();
  auto delete_app =
      ex.client->Delete(AppRef(ex, app->namespace_(), app->name()), del, ex.Deadline(rpc_deadline));
  auto deleted = co_await std::move(delete_app);
  if (deleted.ok()) {
    ex.ObserveReturned(*deleted);
  } else if (!k8s::IsK8sNotFound(deleted.status()) && !k8s::IsK8sConflict(deleted.status())) {
    log::Warn("can't delete a job stopped for its deadline; the next look tries again")
        .Kv("app", Where(app->namespace_(), app->name()))
        .Kv("error", std::string(deleted.status().message()));
  }
}

asio::awaitable<absl::StatusOr<cache::AppPtr>> StopForDeadline(ExecutorContext& ex,
                                                               cache::AppPtr app,
                                                               spark::DeadlineKind kind,
                                                               absl::Time rpc_deadline) {
  const std::string ns(app->namespace_());
  const std::string name(app->name());
  if (ex.options.cancel_mode == spark::CancelMode::kKeep) {
    // The record stays: the job is stopped as a kept Cancel stops it, FAILED by its mark.
    auto keep = KeepStop(ex, app, KeptStopAsk{false, "", kind}, rpc_deadline);
    auto kept = co_await std::move(keep);
    if (kept.ok() && (*kept)->deadline_exceeded() == kind && !(*kept)->stop_kept_at().empty() &&
        app->stop_kept_at().empty()) {
      ex.deadline_stops[static_cast<int>(kind)].fetch_add(1, std::memory_order_relaxed);
    }
    co_return kept;
  }
  auto patch = ex.client->Patch(AppRef(ex, ns, name), k8s::PatchType::kMerge,
                                spark::DeadlinePatch(kind, app->resource_version()),
                                ex.Deadline(rpc_deadline));
  auto patched = co_await std::move(patch);
  if (!patched.ok()) {
    if (k8s::IsK8sConflict(patched.status()) || k8s::IsK8sNotFound(patched.status())) {
      // Changed since it was judged (another replica's mark, the operator's move): judge again.
      auto fetch = Fetch(ex, ns, name, rpc_deadline);
      co_return co_await std::move(fetch);
    }
    co_return FromKubernetes(patched.status(), Rpc::kStatus,
                             absl::StrCat("marking ", Where(ns, name), " stopped for its ",
                                          ToAbsl(spark::DeadlineName(kind)), " deadline"),
                             rpc_deadline, absl::Now());
  }
  auto marked = ex.backend->ProjectJson(*patched);
  if (!marked.ok()) {
    co_return absl::InternalError(absl::StrCat(
        "the API server returned an unreadable SparkApplication: ", marked.status().message()));
  }
  ex.ObserveReturned(*patched);
  ex.deadline_stops[static_cast<int>(kind)].fetch_add(1, std::memory_order_relaxed);
  const spark::Deadlines deadlines = spark::DeadlinesOf(*marked);
  log::Info("stopping a job whose deadline passed")
      .Kv("app", Where(ns, name))
      .Kv("deadline", spark::DeadlineName(kind))
      .Kv("seconds", kind == spark::DeadlineKind::kQueued ? deadlines.max_queued_seconds
                                                          : deadlines.max_run_seconds);
  auto stopped = std::make_shared<const spark::AppProjection>(*std::move(marked));
  auto finish = FinishDeadlineStop(ex, stopped, rpc_deadline);
  co_await std::move(finish);
  co_return stopped;
}

// Every followed namespace's apps from memory, a page at a time, stopping those whose deadline
// has passed and finishing the stops left half done. The number of jobs this sweep stopped.
asio::awaitable<absl::StatusOr<int64_t>> SweepDeadlines(ExecutorContext& ex, absl::Time deadline) {
  constexpr size_t kPage = 500;
  int64_t stopped = 0;
  auto concerned = [](const spark::AppProjection& app) {
    // A kept stop is looked at again in case it was left unfinished (KeptStopStale).
    if (!app.stop_kept_at().empty()) return !app.deleting() && !app.stop_kept_done();
    if (app.deadline_exceeded() != spark::DeadlineKind::kNone) return DeadlineDeleteUnfinished(app);
    const spark::Deadlines d = spark::DeadlinesOf(app);
    return !app.deleting() && (d.max_queued_seconds > 0 || d.max_run_seconds > 0);
  };
  for (const auto& [ns, stats] : ex.cache.Stats()) {
    std::string after;
    for (;;) {
      std::optional<std::vector<cache::AppPtr>> page =
          ex.cache.ListAfter(ns, after, kPage, concerned);
      if (!page || page->empty()) break;
      after = std::string(page->back()->name());
      for (const cache::AppPtr& app : *page) {
        if (co_await internal::Cancelled())
          co_return absl::CancelledError("the sweep was cancelled");
        const spark::JobStatusInfo info = ex.MapStatus(*app, nullptr);
        if (info.deadline_due != spark::DeadlineKind::kNone) {
          auto stop = StopForDeadline(ex, app, info.deadline_due, deadline);
          auto done = co_await std::move(stop);
          if (done.ok() && (*done)->deadline_exceeded() != spark::DeadlineKind::kNone) ++stopped;
          if (!done.ok() && !absl::IsNotFound(done.status())) {
            log::Warn("can't stop a job whose deadline passed; the next sweep tries again")
                .Kv("app", Where(app->namespace_(), app->name()))
                .Kv("error", std::string(done.status().message()));
          }
        } else if (DeadlineDeleteUnfinished(*app)) {
          auto finish = FinishDeadlineStop(ex, app, deadline);
          co_await std::move(finish);
        } else if (KeptStopOwesFinish(*app, info, ex.clock.Now())) {
          auto finish = FinishKeptStop(ex, app, info, deadline);
          co_await std::move(finish);
        }
      }
      if (page->size() < kPage) break;
    }
  }
  co_return stopped;
}

}  // namespace coroutines

std::shared_ptr<RpcHandle> Executor::SweepDeadlines(absl::Time deadline, Done<int64_t> done) {
  if (!ctx_.cache.enabled()) {
    done(int64_t{0});
    return internal::FinishedHandle();
  }
  return internal::Spawn(
      ctx_.io, [this, deadline] { return coroutines::SweepDeadlines(ctx_, deadline); },
      std::move(done));
}

}  // namespace kje::executor
