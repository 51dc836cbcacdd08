#include "server/spark_executor.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "k8s/errors.h"
#include "rapidjson/document.h"
#include "server/spark_executor_internal.h"
#include "spark/app_projection.h"
#include "spark/driver_pod.h"
#include "spark/execution_id.h"
#include "spark/names.h"

namespace kje::server {

struct SparkExecutor::StatusCall {
  std::shared_ptr<Op> op;
  spark::ExecutionId id;
  absl::Time deadline;
  Done<JobResult> done;
  spark::AppProjection app;
  std::optional<spark::DriverPod> driver;
  bool refetched = false;  // the app was re-read after a no-status timeout
};

using executor_internal::CancelledStatus;
using executor_internal::Project;
using executor_internal::Upstream;

namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) absl::StrAppend(&out, out.empty() ? "" : ", ", n);
  return out;
}

}  // namespace

SparkExecutor::SparkExecutor(std::shared_ptr<k8s::Client> client, cache::AppCache& cache,
                             ExecutorOptions options, const Clock& clock)
    : client_(std::move(client)), cache_(cache), options_(std::move(options)), clock_(clock) {}

void SparkExecutor::ObserveReturned(const std::string& json) {
  // A delete answers with the object while it is held by finalizers and with a Status once it
  // is gone; only an object is worth remembering (the informer sees the deletion).
  if (auto app = spark::ProjectAppJson(json); app.ok()) cache_.ObserveWrite(*app);
}

absl::Time SparkExecutor::Deadline(absl::Time rpc_deadline) const {
  return std::min(rpc_deadline, absl::Now() + options_.request_timeout);
}

k8s::ResourceRef SparkExecutor::AppRef(const std::string& ns, const std::string& name) const {
  return k8s::ResourceRef{std::string(spark::kGroup),
                          std::string(spark::kVersion),
                          std::string(spark::kPlural),
                          ns,
                          name,
                          ""};
}

k8s::ResourceRef SparkExecutor::PodsRef(const std::string& ns) const {
  return k8s::ResourceRef{"", "v1", "pods", ns, "", ""};
}

// ---------------------------------------------------------------------------------------------
// Submit (§3.5)

std::shared_ptr<k8s::CallHandle> SparkExecutor::Submit(std::string job_id,
                                                       const std::string& metalake,
                                                       const spark::SparkTemplate& job,
                                                       absl::Time rpc_deadline,
                                                       Done<SubmitResult> done) {
  auto op = std::make_shared<Op>();
  absl::Time deadline = Deadline(rpc_deadline);
  auto built = spark::BuildSparkApplication(job_id, metalake, job, options_.builder);
  if (!built.ok()) {
    // Nothing was created: the template can't run as a SparkApplication.
    absl::Status error = built.status();
    if (absl::IsFailedPrecondition(error)) error = absl::InternalError(error.message());
    done(error);
    return op;
  }
  const auto& allowed = options_.allowed_namespaces;
  if (!allowed.empty() &&
      std::find(allowed.begin(), allowed.end(), built->namespace_) == allowed.end()) {
    done(absl::InvalidArgumentError(absl::StrCat(
        "namespace \"", built->namespace_,
        "\" is not allowed for jobs (server.allowedNamespaces: ", JoinNames(allowed), ")")));
    return op;
  }

  auto app = std::make_shared<spark::BuiltApplication>(*std::move(built));
  auto template_name = std::make_shared<std::string>(job.name);
  auto self = this;
  op->Step([&] {
    return client_->Create(
        AppRef(app->namespace_, ""), app->json, deadline,
        [self, op, app, template_name, job_id, deadline, done](absl::StatusOr<std::string> r) {
          std::string where = absl::StrCat(app->namespace_, "/", app->name);
          if (r.ok()) {
            self->ObserveReturned(*r);
            log::Info("submitted")
                .Kv("job_id", job_id)
                .Kv("execution_id", app->execution_id.ToString());
            done(SubmitResult{app->execution_id.ToString(), false});
            return;
          }
          int code = k8s::HttpCode(r.status());
          if (code == 400 || code == 403 || code == 404 || code == 422) {
            done(absl::InvalidArgumentError(
                absl::StrCat("Kubernetes rejected the SparkApplication ", where,
                             " of job template ", *template_name, ": ", r.status().message())));
            return;
          }
          if (code != 409) {
            // The create may or may not have happened: a retried Submit finds out through 409
            // and the job-id label, never by creating blindly.
            done(Upstream(r.status(), absl::StrCat("creating SparkApplication ", where)));
            return;
          }
          // 409: adopt the existing application only if it is this job's and not being deleted.
          bool started = op->Step([&] {
            return self->client_->Get(
                self->AppRef(app->namespace_, app->name), deadline,
                [self, app, job_id, where, done](absl::StatusOr<std::string> existing) {
                  if (!existing.ok()) {
                    if (k8s::IsK8sNotFound(existing.status())) {
                      done(absl::UnavailableError(absl::StrCat(
                          "SparkApplication ", where,
                          " existed a moment ago and is gone now; retry the submission")));
                    } else {
                      done(Upstream(existing.status(),
                                    absl::StrCat("reading SparkApplication ", where)));
                    }
                    return;
                  }
                  auto projection = Project(*existing);
                  if (!projection.ok()) {
                    done(projection.status());
                    return;
                  }
                  absl::Status adoption = spark::CheckAdoption(*projection, job_id);
                  if (!adoption.ok()) {
                    done(adoption);
                    return;
                  }
                  self->cache_.ObserveWrite(*projection);
                  log::Info("adopted an existing application")
                      .Kv("job_id", job_id)
                      .Kv("execution_id", app->execution_id.ToString());
                  done(SubmitResult{app->execution_id.ToString(), true});
                });
          });
          if (!started) done(CancelledStatus());
        });
  });
  return op;
}

// ---------------------------------------------------------------------------------------------
// Status (§3.6, §3.7)

void SparkExecutor::LookUp(const std::shared_ptr<Op>& op, const std::string& ns,
                           const std::string& name, bool fresh, absl::Time deadline,
                           std::function<void(absl::StatusOr<spark::AppProjection>)> then) {
  if (!fresh) {
    if (auto cached = cache_.Find(ns, name)) {
      then(*std::move(cached));
      return;
    }
  }
  // A miss isn't "gone": the app may be younger than the informer's snapshot.
  bool started = op->Step([&] {
    return client_->Get(
        AppRef(ns, name), deadline, [this, ns, name, then](absl::StatusOr<std::string> r) {
          if (!r.ok()) {
            if (k8s::IsK8sNotFound(r.status())) {
              cache_.ObserveGone(ns, name);
              then(absl::NotFoundError(
                  absl::StrCat("SparkApplication ", ns, "/", name, " doesn't exist")));
            } else {
              then(Upstream(r.status(), absl::StrCat("reading SparkApplication ", ns, "/", name)));
            }
            return;
          }
          auto app = Project(*r);
          if (app.ok()) cache_.ObserveWrite(*app);
          then(std::move(app));
        });
  });
  if (!started) then(CancelledStatus());
}

void SparkExecutor::FindDriver(const std::shared_ptr<Op>& op, const std::string& ns,
                               const std::string& app_name, absl::Time deadline,
                               DriverCallback then) {
  k8s::ListOptions list;
  list.label_selector = spark::DriverPodSelector(app_name);
  bool started = op->Step([&] {
    return client_->List(
        PodsRef(ns), list, deadline, [ns, app_name, then](absl::StatusOr<k8s::ListPage> page) {
          if (!page.ok()) {
            // The driver only refines times and output: carry on without it.
            log::Warn("can't list the driver pods")
                .Kv("namespace", ns)
                .Kv("app", app_name)
                .Kv("error", std::string(page.status().message()));
            then(std::nullopt, false);
            return;
          }
          std::vector<spark::DriverPod> pods;
          for (const std::string& item : page->items) {
            rapidjson::Document doc;
            doc.Parse(item.data(), item.size());
            if (doc.HasParseError()) continue;
            if (auto pod = spark::ProjectDriverPod(doc); pod.ok()) {
              pods.push_back(*std::move(pod));
            }
          }
          const spark::DriverPod* newest = spark::PickNewestDriver(pods);
          then(newest ? std::optional<spark::DriverPod>(*newest) : std::nullopt, true);
        });
  });
  if (!started) then(std::nullopt, false);
}

std::shared_ptr<k8s::CallHandle> SparkExecutor::Status(const std::string& execution_id,
                                                       absl::Time rpc_deadline,
                                                       Done<JobResult> done) {
  auto call = std::make_shared<StatusCall>();
  call->op = std::make_shared<Op>();
  call->deadline = Deadline(rpc_deadline);
  call->done = std::move(done);
  auto id = spark::ParseForCluster(execution_id, options_.builder.cluster);
  if (!id.ok()) {
    call->done(id.status());
    return call->op;
  }
  call->id = *std::move(id);
  LookUp(call->op, call->id.namespace_, call->id.name, false, call->deadline,
         [this, call](absl::StatusOr<spark::AppProjection> app) {
           if (!app.ok()) {
             call->done(app.status());
             return;
           }
           call->app = *std::move(app);
           MapAndFinish(call);
         });
  return call->op;
}

void SparkExecutor::MapAndFinish(const std::shared_ptr<StatusCall>& call) {
  if (!(spark::HasState(call->app) && spark::IsStopped(call->app))) {
    FinishStatus(call);
    return;
  }
  // A stopped app: the driver pod's container gives the exact times (the operator records the
  // end 10 s to 2 min late).
  if (auto known = KnownDriverOf(call->app)) {
    call->driver = *std::move(known);
    FinishStatus(call);
    return;
  }
  FindDriver(call->op, call->app.namespace_, call->app.name, call->deadline,
             [this, call](std::optional<spark::DriverPod> driver, bool listed) {
               if (listed) RememberDriver(call->app, driver);
               call->driver = std::move(driver);
               FinishStatus(call);
             });
}

std::optional<std::optional<spark::DriverPod>> SparkExecutor::KnownDriverOf(
    const spark::AppProjection& app) {
  absl::MutexLock lock(&drivers_mu_);
  auto it = known_drivers_.find(app.uid);
  if (it == known_drivers_.end() || it->second.resource_version != app.resource_version) {
    return std::nullopt;
  }
  return it->second.driver;
}

void SparkExecutor::RememberDriver(const spark::AppProjection& app,
                                   const std::optional<spark::DriverPod>& driver) {
  // A live driver of a stopped app is about to change (or be deleted as an orphan): look again.
  if (app.uid.empty() || (driver && driver->IsAlive())) return;
  absl::MutexLock lock(&drivers_mu_);
  if (known_drivers_.size() >= kMaxKnownDrivers) known_drivers_.clear();
  known_drivers_.insert_or_assign(app.uid, KnownDriver{app.resource_version, driver});
}

void SparkExecutor::FinishStatus(const std::shared_ptr<StatusCall>& call) {
  spark::JobStatusInfo info = spark::MapStatus(call->app, call->driver ? &*call->driver : nullptr,
                                               clock_.Now(), options_.no_status_timeout);
  if (info.unknown_state) {
    log::Warn("unknown operator state; it can't be told whether it is final")
        .Kv("app", absl::StrCat(call->app.namespace_, "/", call->app.name))
        .Kv("state", info.operator_state);
  }

  if (info.no_status_timed_out) {
    if (!call->refetched) {
      // The cached copy may be stale: decide on a fresh one.
      call->refetched = true;
      LookUp(call->op, call->app.namespace_, call->app.name, true, call->deadline,
             [this, call](absl::StatusOr<spark::AppProjection> fresh) {
               if (!fresh.ok()) {
                 if (absl::IsNotFound(fresh.status())) {
                   // Gone already: FAILED, as with the app we had.
                   JobResult result;
                   result.execution_id = call->id.ToString();
                   result.namespace_ = call->id.namespace_;
                   result.name = call->id.name;
                   result.job_id = call->app.job_id;
                   result.info = spark::MapStatus(call->app, nullptr, clock_.Now(),
                                                  options_.no_status_timeout);
                   call->done(std::move(result));
                 } else {
                   call->done(fresh.status());
                 }
                 return;
               }
               call->app = *std::move(fresh);
               MapAndFinish(call);
             });
      return;
    }
    // Still no status on a fresh copy: delete it first, or the operator would still run it
    // once it comes back. The uid precondition keeps a race with a resubmission from deleting
    // a new app of the same name; a 404 means another replica got there first.
    log::Warn(
        "no operator status in time; deleting the application (is its namespace watched "
        "by the Spark operator?)")
        .Kv("app", absl::StrCat(call->app.namespace_, "/", call->app.name));
    k8s::DeleteOptions del;
    del.propagation_policy = "Foreground";
    del.precondition_uid = call->app.uid;
    bool started = call->op->Step([&] {
      return client_->Delete(
          AppRef(call->app.namespace_, call->app.name), del, call->deadline,
          [this, call, info](absl::StatusOr<std::string> r) {
            if (!r.ok() && !k8s::IsK8sNotFound(r.status()) && !k8s::IsK8sConflict(r.status())) {
              call->done(Upstream(r.status(), "deleting an application without status"));
              return;
            }
            if (r.ok()) ObserveReturned(*r);
            JobResult result;
            result.execution_id = call->id.ToString();
            result.namespace_ = call->app.namespace_;
            result.name = call->app.name;
            result.job_id = call->app.job_id;
            result.info = info;
            call->done(std::move(result));
          });
    });
    if (!started) call->done(CancelledStatus());
    return;
  }

  JobResult result;
  result.execution_id = call->id.ToString();
  result.namespace_ = call->app.namespace_;
  result.name = call->app.name;
  result.job_id = call->app.job_id;
  result.driver_pod = call->driver ? call->driver->name : "";
  result.info = info;

  if (call->driver && spark::ShouldDeleteOrphanDriver(info, *call->driver)) {
    // A failed job's live driver could still run the job: delete it. A failure fails this query,
    // so the next one tries again.
    log::Warn("deleting the live driver of a failed job")
        .Kv("pod", absl::StrCat(call->app.namespace_, "/", call->driver->name));
    k8s::ResourceRef pod = PodsRef(call->app.namespace_);
    pod.name = call->driver->name;
    bool started = call->op->Step([&] {
      return client_->Delete(pod, k8s::DeleteOptions{}, call->deadline,
                             [call, result](const absl::StatusOr<std::string>& r) {
                               if (!r.ok() && !k8s::IsK8sNotFound(r.status())) {
                                 call->done(Upstream(r.status(), "deleting an orphan driver pod"));
                                 return;
                               }
                               call->done(result);
                             });
    });
    if (!started) call->done(CancelledStatus());
    return;
  }
  call->done(std::move(result));
}

// ---------------------------------------------------------------------------------------------
// Cancel (§3.8)

std::shared_ptr<k8s::CallHandle> SparkExecutor::Cancel(const std::string& execution_id,
                                                       absl::Time rpc_deadline, Done<bool> done) {
  auto op = std::make_shared<Op>();
  absl::Time deadline = Deadline(rpc_deadline);
  auto id = spark::ParseForCluster(execution_id, options_.builder.cluster);
  if (!id.ok()) {
    done(id.status());
    return op;
  }
  std::string ns = id->namespace_;
  std::string name = id->name;
  LookUp(op, ns, name, true, deadline,
         [this, op, ns, name, deadline, done](absl::StatusOr<spark::AppProjection> app) {
           if (!app.ok()) {
             done(app.status());
             return;
           }
           if (spark::HasState(*app) && spark::IsStopped(*app)) {
             // Already stopped: its real outcome stays visible.
             done(false);
             return;
           }
           std::string uid = app->uid;
           // Mark first, so a status query on any replica tells a cancelled job from one deleted
           // by someone else.
           bool started = op->Step([&] {
             return client_->Patch(
                 AppRef(ns, name), k8s::PatchType::kMerge, spark::CancelRequestPatch(), deadline,
                 [this, op, ns, name, uid, deadline, done](absl::StatusOr<std::string> patched) {
                   if (!patched.ok()) {
                     if (k8s::IsK8sNotFound(patched.status())) {
                       done(absl::NotFoundError(
                           absl::StrCat("SparkApplication ", ns, "/", name, " doesn't exist")));
                     } else {
                       done(Upstream(patched.status(), "marking the application cancelled"));
                     }
                     return;
                   }
                   ObserveReturned(*patched);
                   // Foreground: the app stays until its pods are gone, so a status query sees
                   // it being deleted rather than gone.
                   k8s::DeleteOptions del;
                   del.propagation_policy = "Foreground";
                   del.precondition_uid = uid;
                   bool started = op->Step([&] {
                     return client_->Delete(
                         AppRef(ns, name), del, deadline,
                         [this, ns, name, done](absl::StatusOr<std::string> deleted) {
                           if (!deleted.ok() && !k8s::IsK8sNotFound(deleted.status())) {
                             done(Upstream(deleted.status(), "deleting the application"));
                             return;
                           }
                           if (deleted.ok()) ObserveReturned(*deleted);
                           log::Info("cancel requested").Kv("app", absl::StrCat(ns, "/", name));
                           done(true);
                         });
                   });
                   if (!started) done(CancelledStatus());
                 });
           });
           if (!started) done(CancelledStatus());
         });
  return op;
}

// ---------------------------------------------------------------------------------------------
// Output (§3.9)

std::shared_ptr<k8s::CallHandle> SparkExecutor::Output(const std::string& execution_id,
                                                       int64_t max_lines, int64_t max_bytes,
                                                       absl::Time rpc_deadline,
                                                       Done<spark::LogTailResult> done) {
  auto op = std::make_shared<Op>();
  absl::Time deadline = Deadline(rpc_deadline);
  auto id = spark::ParseForCluster(execution_id, options_.builder.cluster);
  if (!id.ok()) {
    done(id.status());
    return op;
  }
  if (max_lines < 0 || max_bytes < 0) {
    done(absl::InvalidArgumentError("max_lines and max_bytes must not be negative"));
    return op;
  }
  if (max_lines == 0) max_lines = options_.default_max_lines;
  if (max_bytes == 0) max_bytes = options_.default_max_bytes;
  max_bytes = std::min(max_bytes, options_.max_output_bytes);
  auto tail = spark::LogTail::Create(max_lines, max_bytes);
  if (!tail.ok()) {
    done(tail.status());
    return op;
  }
  auto shared_tail = std::make_shared<spark::LogTail>(*std::move(tail));
  std::string ns = id->namespace_;
  std::string name = id->name;
  FindDriver(op, ns, name, deadline,
             [this, op, ns, name, max_lines, shared_tail, deadline, done](
                 std::optional<spark::DriverPod> driver, bool /*listed*/) {
               if (!driver) {
                 done(spark::LogTailResult{});  // no driver: nothing to show, not an error
                 return;
               }
               k8s::ResourceRef pod = PodsRef(ns);
               pod.name = driver->name;
               k8s::LogOptions log_options;
               // One line more than wanted: if it comes, older lines exist and the answer says
               // it is truncated.
               log_options.tail_lines = max_lines + 1;
               if (auto container = spark::LogContainer(*driver)) {
                 log_options.container = *container;
               }
               // Streamed through the bounded tail: memory stays within max_bytes however long
               // the lines are (tailLines bounds lines, not bytes).
               bool started = op->Step([&] {
                 return client_->StreamLog(
                     pod, log_options, deadline,
                     [shared_tail](std::string_view chunk) { shared_tail->Feed(chunk); },
                     [ns, pod, shared_tail, done](const absl::Status& status) {
                       if (!status.ok()) {
                         // Best effort: output must never fail the caller.
                         log::Warn("can't read the driver log")
                             .Kv("pod", absl::StrCat(ns, "/", pod.name))
                             .Kv("error", std::string(status.message()));
                         done(spark::LogTailResult{});
                         return;
                       }
                       done(shared_tail->Finish());
                     });
               });
               if (!started) done(CancelledStatus());
             });
  return op;
}

}  // namespace kje::server
