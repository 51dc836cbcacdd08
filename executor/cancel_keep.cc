// Keep mode's stops: one merge patch marks the app and asks the operator to stop its run (valid
// only at the resourceVersion the stop was decided on, so of two replicas racing one writes it and
// the other finds it written), then the pods the operator leaves behind are deleted by selector.

#include "executor/cancel_keep.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "executor/error_table.h"
#include "executor/internal.h"
#include "executor/kept_record.h"
#include "k8s/errors.h"
#include "spark/deadline.h"

namespace kje::executor {

namespace asio = boost::asio;

bool DeadlineDeleteUnfinished(const spark::AppProjection& app) {
  return app.deadline_exceeded() != spark::DeadlineKind::kNone && !app.deleting() &&
         app.stop_kept_at().empty();
}

bool KeptStopOwesFinish(const spark::AppProjection& app, const spark::JobStatusInfo& info,
                        absl::Time now) {
  const std::optional<absl::Time> kept_at = spark::StopKeptAt(app);
  if (!kept_at || app.deleting() || app.stop_kept_done()) return false;
  return spark::KeptStopDone(app, info) || now >= *kept_at + kKeptStopRetry;
}

namespace coroutines {
namespace {

// Whether a stop of `app` keeps its record first: the service keeps records and nobody has yet.
bool OwesRecordBeforeStop(const ExecutorContext& ex, const spark::AppProjection& app) {
  return ex.options.keep_output && app.managed_by_us() && !app.labels().Find(kLabelOutput);
}

// Whether `app` already carries the mark `ask` would write.
bool MarkedFor(const spark::AppProjection& app, const KeptStopAsk& ask) {
  if (app.stop_kept_at().empty()) return false;
  return ask.cancel ? app.cancel_requested()
                    : app.deadline_exceeded() != spark::DeadlineKind::kNone;
}

}  // namespace

asio::awaitable<absl::Status> DeleteKeptStopPods(ExecutorContext& ex, cache::AppPtr app,
                                                 absl::Time rpc_deadline) {
  const std::string ns(app->namespace_());
  k8s::ListOptions list;
  list.label_selector = ex.backend->KeptStopPodSelector(app->name());
  auto list_pods = ex.client->List(k8s::CoreRef("pods", ns, ""), list, ex.Deadline(rpc_deadline));
  auto page = co_await std::move(list_pods);
  if (!page.ok()) {
    log::Warn("can't list the pods of a stopped job; the next look tries again")
        .Kv("app", Where(ns, app->name()))
        .Kv("error", std::string(page.status().message()));
    co_return page.status();
  }
  for (const k8s::ParsedJson& item : page->items) {
    const rapidjson::Value& pod = item.value();
    auto meta = pod.FindMember("metadata");
    if (meta == pod.MemberEnd() || !meta->value.IsObject()) continue;
    auto name = meta->value.FindMember("name");
    if (name == meta->value.MemberEnd() || !name->value.IsString()) continue;
    if (meta->value.HasMember("deletionTimestamp")) continue;  // on its way already
    auto delete_pod = ex.client->Delete(
        k8s::CoreRef("pods", ns,
                     std::string(name->value.GetString(), name->value.GetStringLength())),
        k8s::DeleteOptions{}, ex.Deadline(rpc_deadline));
    auto deleted = co_await std::move(delete_pod);
    if (!deleted.ok() && !k8s::IsK8sNotFound(deleted.status())) {
      log::Warn("can't delete a pod of a stopped job; the next look tries again")
          .Kv("app", Where(ns, app->name()))
          .Kv("error", std::string(deleted.status().message()));
      co_return deleted.status();
    }
  }
  co_return absl::OkStatus();
}

asio::awaitable<void> FinishKeptStop(ExecutorContext& ex, cache::AppPtr app,
                                     spark::JobStatusInfo info, absl::Time rpc_deadline) {
  absl::Status pods = co_await DeleteKeptStopPods(ex, app, rpc_deadline);
  if (!pods.ok() || !spark::KeptStopDone(*app, info)) co_return;
  const std::string ns(app->namespace_());
  const std::string name(app->name());
  auto patch = ex.client->Patch(AppRef(ex, ns, name), k8s::PatchType::kMerge,
                                spark::KeptStopDonePatch(), ex.Deadline(rpc_deadline));
  auto patched = co_await std::move(patch);
  if (patched.ok()) {
    ex.ObserveReturned(*patched);
  } else if (!k8s::IsK8sNotFound(patched.status())) {
    log::Warn("can't mark a kept stop done; the next look tries again")
        .Kv("app", Where(ns, name))
        .Kv("error", std::string(patched.status().message()));
  }
}

asio::awaitable<absl::StatusOr<cache::AppPtr>> KeepStop(ExecutorContext& ex, cache::AppPtr app,
                                                        KeptStopAsk ask, absl::Time rpc_deadline) {
  const std::string ns(app->namespace_());
  const std::string name(app->name());
  const Rpc rpc = ask.cancel ? Rpc::kCancel : Rpc::kStatus;
  // The driver's log and Events as they stand, read before the stop ends the driver (deleted
  // here, or by the operator once suspended) and written once the mark is: a stop that doesn't
  // happen keeps nothing.
  std::optional<KeptRecord> before_stop;
  // Each round loses only to a change made since the app was read (an operator's status update,
  // another replica's mark): a few are plenty.
  for (int round = 0; round < 5; ++round) {
    if (app->deleting() || (ex.backend->HasState(*app) && ex.backend->IsStopped(*app))) {
      co_return app;
    }
    if (MarkedFor(*app, ask)) {
      // Marked by another replica (or an earlier call cut short): its pods may still be there.
      absl::Status pods = co_await DeleteKeptStopPods(ex, app, rpc_deadline);
      if (!pods.ok() && ask.cancel) {
        co_return FromKubernetes(pods, Rpc::kCancel, "deleting the job's pods", rpc_deadline,
                                 absl::Now());
      }
      co_return app;
    }
    if (!before_stop && OwesRecordBeforeStop(ex, *app)) {
      auto capture = CaptureRecord(ex, app, rpc_deadline);
      auto captured = co_await std::move(capture);
      if (captured.ok()) {
        before_stop = *std::move(captured);
      } else {
        log::Warn("can't read a job's record before stopping it; it is kept when the job ends")
            .Kv("app", Where(ns, name))
            .Kv("error", std::string(captured.status().message()));
      }
    }
    spark::KeptStop stop;
    stop.resource_version = std::string(app->resource_version());
    stop.cancel = ask.cancel;
    stop.reason = ask.reason;
    stop.deadline = ask.deadline;
    stop.at = ex.clock.Now();
    stop.spec_patch = ex.backend->KeptStopSpecPatch();
    auto patch = ex.client->Patch(AppRef(ex, ns, name), k8s::PatchType::kMerge,
                                  spark::KeptStopPatch(stop), ex.Deadline(rpc_deadline));
    auto patched = co_await std::move(patch);
    if (patched.ok()) {
      auto marked = ex.backend->ProjectJson(*patched);
      if (!marked.ok()) {
        co_return absl::InternalError(absl::StrCat(
            "the API server returned an unreadable SparkApplication: ", marked.status().message()));
      }
      ex.ObserveReturned(*patched);
      auto kept = std::make_shared<const spark::AppProjection>(*std::move(marked));
      log::Info("stopping a job, keeping its application")
          .Kv("app", Where(ns, name))
          .Kv("why", ask.cancel ? std::string_view("cancel") : spark::DeadlineName(ask.deadline));
      if (before_stop) {
        auto write = WriteRecord(ex, kept, *before_stop, /*create=*/true, rpc_deadline);
        absl::Status written = co_await std::move(write);
        if (!written.ok()) {
          log::Warn("can't keep the record of a job being stopped; it is kept when the job ends")
              .Kv("app", Where(ns, name))
              .Kv("error", std::string(written.message()));
        }
      }
      absl::Status pods = co_await DeleteKeptStopPods(ex, kept, rpc_deadline);
      // A Cancel says when it couldn't stop the run (the next one tries again); a deadline's
      // stop is finished by a later look.
      if (!pods.ok() && ask.cancel) {
        co_return FromKubernetes(pods, Rpc::kCancel, "deleting the job's pods", rpc_deadline,
                                 absl::Now());
      }
      co_return kept;
    }
    if (k8s::IsK8sNotFound(patched.status())) {
      ex.cache.ObserveGone(ns, name);
      co_return absl::NotFoundError(
          absl::StrCat("SparkApplication ", Where(ns, name), " doesn't exist"));
    }
    if (!k8s::IsK8sConflict(patched.status())) {
      co_return FromKubernetes(patched.status(), rpc,
                               absl::StrCat("marking ", Where(ns, name), " stopped"), rpc_deadline,
                               absl::Now());
    }
    auto fetch = Fetch(ex, ns, name, rpc_deadline);
    auto fresh = co_await std::move(fetch);
    if (!fresh.ok()) co_return fresh.status();
    app = *std::move(fresh);
  }
  co_return absl::UnavailableError(absl::StrCat(
      "SparkApplication ", Where(ns, name), " kept changing while it was being stopped; retry"));
}

}  // namespace coroutines
}  // namespace kje::executor
