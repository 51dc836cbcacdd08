// Submit, Status, Cancel, Output and ListJobs (the Java k8s executor's behaviour), each a
// straight-line coroutine over the awaitable Kubernetes client.

#include "executor/executor.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/mask.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/strings.h"
#include "executor/cancel_keep.h"
#include "executor/error_table.h"
#include "executor/internal.h"
#include "executor/kept_record.h"
#include "executor/output_keep.h"
#include "k8s/errors.h"
#include "rapidjson/document.h"
#include "spark/execution_id.h"
#include "spark/json_util.h"
#include "spark/last_words.h"
#include "spark/names.h"
#include "spark/template_hash.h"

namespace kje::executor {

namespace asio = boost::asio;
using internal::AppsIn;
using internal::Spawn;

using internal::Answer;

// The coroutines: free functions over the executor's context, each straight-line.
namespace coroutines {

using AppResult = absl::StatusOr<cache::AppPtr>;

std::string Where(std::string_view ns, std::string_view name) {
  return absl::StrCat(ToAbsl(ns), "/", ToAbsl(name));
}

k8s::ResourceRef AppRef(const ExecutorContext& ex, std::string_view ns, std::string_view name) {
  k8s::ResourceRef ref = AppsIn(ex, ns);
  ref.name = std::string(name);
  return ref;
}

k8s::ResourceRef PodRef(std::string_view ns, std::string_view name) {
  return k8s::CoreRef("pods", ns, name);
}

// GET the application (fresh: never from the cache).
asio::awaitable<AppResult> Fetch(ExecutorContext& ex, std::string ns, std::string name,
                                 absl::Time rpc_deadline) {
  auto get = ex.client->Get(AppRef(ex, ns, name), ex.Deadline(rpc_deadline));
  auto got = co_await std::move(get);
  if (!got.ok()) {
    if (k8s::IsK8sNotFound(got.status())) {
      ex.cache.ObserveGone(ns, name);
      co_return absl::NotFoundError(
          absl::StrCat("SparkApplication ", Where(ns, name), " doesn't exist"));
    }
    // A read shared by every RPC: its 404 is answered above, and no RPC answers its other
    // outcomes differently.
    co_return FromKubernetes(got.status(), Rpc::kAny,
                             absl::StrCat("reading SparkApplication ", Where(ns, name)),
                             rpc_deadline, absl::Now());
  }
  auto app = ex.backend->ProjectJson(*got);
  if (!app.ok()) {
    co_return absl::InternalError(absl::StrCat(
        "the API server returned an unreadable SparkApplication: ", app.status().message()));
  }
  ex.cache.ObserveWrite(*app);
  co_return std::make_shared<const spark::AppProjection>(*std::move(app));
}

// Through the cache when it knows the app; a miss isn't "gone" (the app may be younger than
// the informer's snapshot).
asio::awaitable<AppResult> LookUp(ExecutorContext& ex, std::string ns, std::string name,
                                  absl::Time rpc_deadline) {
  if (auto cached = ex.cache.Find(ns, name)) co_return cached;
  co_return co_await Fetch(ex, std::move(ns), std::move(name), rpc_deadline);
}

// The driver pod of `app_name` the backend picks (the newest, or the current attempt's):
// nullopt when there is none; an error when the LIST failed (logged: the driver only refines
// times and output). `app`: the app as last seen, null when unknown (gone, unreadable).
asio::awaitable<absl::StatusOr<std::optional<spark::DriverPod>>> FindDriver(
    ExecutorContext& ex, std::string ns, std::string app_name, cache::AppPtr app,
    absl::Time rpc_deadline) {
  const std::string driver_container =
      app != nullptr ? std::string(app->driver_container()) : std::string();
  k8s::ListOptions list;
  list.label_selector = ex.backend->DriverSelector(app_name);
  auto list_pods = ex.client->List(PodRef(ns, ""), list, ex.Deadline(rpc_deadline));
  auto page = co_await std::move(list_pods);
  if (!page.ok()) {
    log::Warn("can't list the driver pods")
        .Kv("namespace", ns)
        .Kv("app", app_name)
        .Kv("error", std::string(page.status().message()));
    co_return page.status();
  }
  std::vector<spark::DriverPod> pods;
  for (const k8s::ParsedJson& item : page->items) {
    if (auto pod = spark::ProjectDriverPod(item.value(), driver_container); pod.ok()) {
      pods.push_back(*std::move(pod));
    }
  }
  const spark::DriverPod* picked = ex.backend->PickDriver(app.get(), pods);
  co_return picked ? std::optional<spark::DriverPod>(*picked) : std::nullopt;
}

// The driver of an app whose driver times the backend wants, remembered per resourceVersion;
// nullopt when unknown (the LIST failed).
asio::awaitable<std::optional<std::optional<spark::DriverPod>>> StoppedDriver(
    ExecutorContext& ex, cache::AppPtr app, absl::Time rpc_deadline) {
  if (auto known = ex.KnownDriverOf(*app)) co_return known;
  auto found = co_await FindDriver(ex, std::string(app->namespace_()), std::string(app->name()),
                                   app, rpc_deadline);
  if (!found.ok()) co_return std::nullopt;
  ex.RememberDriver(*app, *found);
  co_return *found;
}

// Status of an app looked up: the driver's times for a stopped one, and the two
// fail-safe deletions.
asio::awaitable<absl::StatusOr<JobResult>> Resolve(ExecutorContext& ex, spark::ExecutionId id,
                                                   cache::AppPtr app, absl::Time rpc_deadline) {
  bool refetched = false;
  // A deadline stop judged again when the app changed under it, a few times at most (an
  // operator writing its status meanwhile); after that the next look stops it.
  int deadline_stops_left = 3;
  for (;;) {
    std::optional<spark::DriverPod> driver;
    if (ex.backend->HasState(*app) && ex.backend->WantsDriverTimes(*app)) {
      // The driver pod's container gives the exact times (an operator records the end 10 s to
      // 2 min late, or no start at all).
      if (auto known = co_await StoppedDriver(ex, app, rpc_deadline)) driver = *known;
    }
    spark::JobStatusInfo info = ex.MapStatus(*app, driver ? &*driver : nullptr);
    if (info.deadline_due != spark::DeadlineKind::kNone && deadline_stops_left-- > 0) {
      auto stop = StopForDeadline(ex, app, info.deadline_due, rpc_deadline);
      auto stopped = co_await std::move(stop);
      if (!stopped.ok()) co_return stopped.status();
      app = *std::move(stopped);
      continue;
    }
    if (DeadlineDeleteUnfinished(*app)) {
      auto finish = FinishDeadlineStop(ex, app, rpc_deadline);
      co_await std::move(finish);
    } else if (KeptStopOwesFinish(*app, info, ex.clock.Now())) {
      auto finish = FinishKeptStop(ex, app, info, rpc_deadline);
      co_await std::move(finish);
    }
    if (info.unknown_state) {
      log::Warn("unknown operator state; it can't be told whether it is final")
          .Kv("app", Where(app->namespace_(), app->name()))
          .Kv("state", info.operator_state);
    }
    if (info.no_status_timed_out || info.start_timed_out) {
      if (!refetched) {
        // The cached copy may be stale: decide on a fresh one.
        refetched = true;
        auto fresh = co_await Fetch(ex, std::string(app->namespace_()), std::string(app->name()),
                                    rpc_deadline);
        if (absl::IsNotFound(fresh.status())) {
          co_return ex.ResultOf(id, *app, nullptr);  // gone already: FAILED, as with ours
        }
        if (!fresh.ok()) co_return fresh.status();
        app = *std::move(fresh);
        continue;
      }
      // Still no status on a fresh copy: delete it first, or the operator would still run it
      // once it comes back. The uid precondition keeps a race with a resubmission from
      // deleting a new app of the same name; 404/409 mean another replica got there first.
      if (info.start_timed_out) {
        log::Warn("the driver didn't start in time; deleting the application")
            .Kv("app", Where(app->namespace_(), app->name()));
      } else {
        log::Warn(
            "no operator status in time; deleting the application (is its namespace watched "
            "by the Spark operator?)")
            .Kv("app", Where(app->namespace_(), app->name()));
      }
      k8s::DeleteOptions del;
      del.propagation_policy = "Foreground";
      del.precondition_uid = app->uid();
      auto delete_app = ex.client->Delete(AppRef(ex, app->namespace_(), app->name()), del,
                                          ex.Deadline(rpc_deadline));
      auto deleted = co_await std::move(delete_app);
      if (!deleted.ok() && !k8s::IsK8sNotFound(deleted.status()) &&
          !k8s::IsK8sConflict(deleted.status())) {
        co_return FromKubernetes(deleted.status(), Rpc::kStatus,
                                 info.start_timed_out
                                     ? "deleting an application whose driver didn't start"
                                     : "deleting an application without status",
                                 rpc_deadline, absl::Now());
      }
      if (deleted.ok()) ex.ObserveReturned(*deleted);
      co_return ex.ResultOf(id, *app, nullptr, info);
    }
    const bool owes_waiting = ex.OwesWaiting(*app, info);
    JobResult result = ex.ResultOf(id, *app, driver ? &*driver : nullptr, info);
    if (owes_waiting) {
      auto waiting_of = WaitingOf(ex, app, result.info, rpc_deadline);
      result.waiting = co_await std::move(waiting_of);
      if (result.driver_pod.empty()) result.driver_pod = result.waiting.pod;
    }
    if (driver && spark::ShouldDeleteOrphanDriver(info, *driver, app->driver_container())) {
      // A failed job's live driver could still run the job: delete it. A failure fails this
      // query, so the next one tries again.
      log::Warn("deleting the live driver of a failed job")
          .Kv("pod", Where(app->namespace_(), driver->name));
      auto delete_pod = ex.client->Delete(PodRef(app->namespace_(), driver->name),
                                          k8s::DeleteOptions{}, ex.Deadline(rpc_deadline));
      auto deleted = co_await std::move(delete_pod);
      if (!deleted.ok() && !k8s::IsK8sNotFound(deleted.status())) {
        co_return FromKubernetes(deleted.status(), Rpc::kStatus, "deleting an orphan driver pod",
                                 rpc_deadline, absl::Now());
      }
    }
    co_return result;
  }
}

asio::awaitable<absl::StatusOr<JobResult>> Status(ExecutorContext& ex, spark::ExecutionId id,
                                                  absl::Time rpc_deadline) {
  auto app = co_await LookUp(ex, id.namespace_, id.name, rpc_deadline);
  if (!app.ok()) co_return app.status();
  co_return co_await Resolve(ex, std::move(id), *std::move(app), rpc_deadline);
}

// The uid of an object as the API server returned it ("" when unreadable).
std::string UidOf(const std::string& object) {
  rapidjson::Document doc;
  doc.Parse(object.data(), object.size());
  if (doc.HasParseError()) return "";
  return std::string(spark::json::String(spark::json::Member(doc, "metadata"), "uid").value_or(""));
}

// Whether the API server refused a request for good (so that nothing it asked for exists).
bool IsRefusal(const absl::Status& status) {
  const int code = k8s::HttpCode(status);
  return code == 400 || code == 403 || code == 404 || code == 422;
}

// What Submit's coroutine gives back: the answer, and the application the API server returned
// when it created one, for the cache to remember once the answer is on its way. (What was done is
// said by the RPC's one line, which has the job and execution ids.)
struct Submitted {
  SubmitResult result;
  std::string created;
};

asio::awaitable<absl::StatusOr<Submitted>> Submit(ExecutorContext& ex, spark::BuiltApplication app,
                                                  std::string job_id, std::string template_name,
                                                  absl::Time rpc_deadline) {
  std::string where = Where(app.namespace_, app.name);
  std::string execution_id = app.execution_id.ToString();
  const bool env_secret = !app.env_secret_name.empty();
  bool secret_created = false;
  if (env_secret) {
    // Before the application: its pods read the Secret from their start.
    auto put = co_await CreateEnvironmentSecret(ex, app, job_id, rpc_deadline);
    if (!put.ok()) co_return put.status();
    secret_created = *put;
    app.env_secret_json.clear();  // the values are needed no longer
  }
  auto create = ex.client->Create(AppRef(ex, app.namespace_, ""), std::move(app.json),
                                  ex.Deadline(rpc_deadline));
  auto created = co_await std::move(create);
  for (const std::string& warning : app.warnings) {
    log::Warn("ignored in the job's configuration").Kv("job_id", job_id).Kv("reason", warning);
  }
  Submitted submitted{SubmitResult{std::move(execution_id), false, ""}, ""};
  std::string uid;
  if (created.ok()) {
    uid = UidOf(*created);
    submitted.created = *std::move(created);
  } else if (!k8s::IsK8sConflict(created.status())) {
    // The create may or may not have happened: a retried Submit finds out through 409 and the
    // job-id label, never by creating blindly. A refusal is final: the Secret goes too.
    if (secret_created && IsRefusal(created.status())) {
      co_await DeleteEnvironmentSecret(ex, app, rpc_deadline);
    }
    co_return FromKubernetes(
        created.status(), Rpc::kSubmit,
        absl::StrCat("creating SparkApplication ", where, " of job template ", template_name),
        rpc_deadline, absl::Now());
  } else {
    // 409: adopt the existing application only if it is this job's and not being deleted.
    auto existing = co_await Fetch(ex, app.namespace_, app.name, rpc_deadline);
    if (absl::IsNotFound(existing.status())) {
      co_return absl::UnavailableError(
          absl::StrCat("SparkApplication ", where,
                       " existed a moment ago and is gone now; retry the submission"));
    }
    if (!existing.ok()) co_return existing.status();
    if (absl::Status adoption = spark::CheckAdoption(**existing, job_id); !adoption.ok()) {
      co_return adoption;
    }
    // Only the same job is adopted: an app without hashes (the Java executor's) is taken as it
    // was before them.
    if (absl::Status same =
            spark::CheckSameTemplate(absl::StrCat("SparkApplication ", where),
                                     (*existing)->template_hash(), app.template_hash);
        !same.ok()) {
      if (secret_created) co_await DeleteEnvironmentSecret(ex, app, rpc_deadline);
      co_return same;
    }
    uid = (*existing)->uid();
    submitted.result.adopted = true;
  }
  if (env_secret) {
    absl::Status owned = co_await OwnEnvironmentSecret(ex, app, std::move(uid), rpc_deadline);
    if (!owned.ok()) co_return owned;
  }
  co_return submitted;
}

asio::awaitable<absl::StatusOr<bool>> Cancel(ExecutorContext& ex, spark::ExecutionId id,
                                             spark::CancelMode mode, std::string reason,
                                             absl::Time rpc_deadline) {
  const std::string& ns = id.namespace_;
  const std::string& name = id.name;
  auto app = co_await Fetch(ex, ns, name, rpc_deadline);
  if (!app.ok()) co_return app.status();
  // Already stopped: its real outcome stays visible.
  if (ex.backend->HasState(**app) && ex.backend->IsStopped(**app)) co_return false;
  // Stopped by an earlier kept stop (a parked app isn't the operator's stopped state).
  if (!(*app)->stop_kept_at().empty() &&
      spark::KeptStopDone(**app, ex.backend->MapStatus(**app, nullptr, ex.clock.Now(),
                                                       ex.options.no_status_timeout))) {
    co_return false;
  }
  if (mode == spark::CancelMode::kKeep) {
    auto keep = KeepStop(ex, *app, KeptStopAsk{true, std::move(reason)}, rpc_deadline);
    auto kept = co_await std::move(keep);
    if (!kept.ok()) co_return kept.status();
    // Stopped meanwhile by the operator (its real outcome stays), or marked now or before.
    co_return (*kept)->cancel_requested();
  }
  // Mark first, so a status query on any replica tells a cancelled job from one deleted by
  // someone else.
  auto patch = ex.client->Patch(
      AppRef(ex, ns, name), k8s::PatchType::kMerge,
      reason.empty() ? ex.backend->CancelPatch() : spark::CancelReasonPatch(reason),
      ex.Deadline(rpc_deadline));
  auto patched = co_await std::move(patch);
  if (!patched.ok()) {
    if (k8s::IsK8sNotFound(patched.status())) {
      co_return absl::NotFoundError(
          absl::StrCat("SparkApplication ", Where(ns, name), " doesn't exist"));
    }
    co_return FromKubernetes(patched.status(), Rpc::kCancel, "marking the application cancelled",
                             rpc_deadline, absl::Now());
  }
  ex.ObserveReturned(*patched);
  // Foreground: the app stays until its pods are gone, so a status query sees it being
  // deleted rather than gone.
  k8s::DeleteOptions del;
  del.propagation_policy = "Foreground";
  del.precondition_uid = (*app)->uid();
  auto delete_app = ex.client->Delete(AppRef(ex, ns, name), del, ex.Deadline(rpc_deadline));
  auto deleted = co_await std::move(delete_app);
  if (!deleted.ok() && !k8s::IsK8sNotFound(deleted.status())) {
    co_return FromKubernetes(deleted.status(), Rpc::kCancel, "deleting the application",
                             rpc_deadline, absl::Now());
  }
  if (deleted.ok()) ex.ObserveReturned(*deleted);
  log::Info("cancel requested").Kv("app", Where(ns, name));
  co_return true;
}

asio::awaitable<absl::StatusOr<spark::LogTailResult>> Output(ExecutorContext& ex,
                                                             spark::ExecutionId id,
                                                             int64_t max_lines, int64_t max_bytes,
                                                             spark::LogTail tail, LogRequest log,
                                                             absl::Time rpc_deadline) {
  if (log.executor > 0) {
    co_return co_await ExecutorOutput(ex, std::move(id), max_lines, std::move(tail), log,
                                      rpc_deadline);
  }
  // The app names its driver container (a renamed pod-template container); without it (gone,
  // unreadable) the default one is read.
  cache::AppPtr app;
  if (auto found = co_await LookUp(ex, id.namespace_, id.name, rpc_deadline); found.ok()) {
    app = *std::move(found);
  }
  auto driver = co_await FindDriver(ex, id.namespace_, id.name, app, rpc_deadline);
  // No driver (or none to be found now): the tail kept when the job ended, if any; else nothing
  // to show, not an error.
  if (driver.ok() && !driver->has_value()) {
    if (log.previous) {
      co_return absl::FailedPreconditionError(
          absl::StrCat("no driver pod of ", Where(id.namespace_, id.name),
                       " to read a previous run of (the kept tail is of the last run only)"));
    }
    auto read = ReadKeptRecord(ex, id.namespace_, id.name, rpc_deadline);
    auto record = co_await std::move(read);
    co_return KeptOutputOf(record, max_lines, max_bytes);
  }
  if (!driver.ok()) {
    if (!log.Specific()) co_return spark::LogTailResult{};
    co_return FromKubernetes(
        driver.status(), Rpc::kOutput,
        absl::StrCat("listing the driver pods of ", Where(id.namespace_, id.name)), rpc_deadline,
        absl::Now());
  }
  co_return co_await ReadPodLog(ex, id.namespace_, **std::move(driver), max_lines, std::move(tail),
                                log, rpc_deadline);
}

}  // namespace coroutines

ExecutorContext::ExecutorContext(boost::asio::io_context& io, std::shared_ptr<k8s::Client> client,
                                 cache::AppCache& cache, NamespacePolicy policy,
                                 ExecutorOptions options, const Clock& clock,
                                 std::shared_ptr<const spark::OperatorBackend> backend)
    : io(io),
      client(std::move(client)),
      cache(cache),
      policy(std::move(policy)),
      options(std::move(options)),
      clock(clock),
      backend(std::move(backend)),
      waiting_memo(this->options.max_waiting_memo, this->options.waiting_refresh),
      keep_limiter(std::make_shared<k8s::RequestLimiter>(
          k8s::LimiterOptions{this->options.keep_per_second,
                              static_cast<int64_t>(std::max(1.0, this->options.keep_per_second)),
                              this->options.keep_max_in_flight})),
      next_driver_sweep_(this->options.known_drivers_first_sweep) {}

Executor::Executor(boost::asio::io_context& io, std::shared_ptr<k8s::Client> client,
                   cache::AppCache& cache, NamespacePolicy policy, ExecutorOptions options,
                   const Clock& clock, std::shared_ptr<const spark::OperatorBackend> backend)
    : ctx_(io, std::move(client), cache, std::move(policy), std::move(options), clock,
           std::move(backend)) {}

Executor::~Executor() = default;

spark::ExecutionId ExecutorContext::IdOf(std::string_view ns, std::string_view name) const {
  return spark::ExecutionId{options.builder.cluster, std::string(spark::kKindSparkApp),
                            std::string(ns), std::string(name)};
}

absl::Time ExecutorContext::Deadline(absl::Time rpc_deadline) const {
  return std::min(rpc_deadline, absl::Now() + options.request_timeout);
}

absl::StatusOr<spark::ExecutionIdView> ExecutorContext::ParseIdView(
    std::string_view execution_id) const {
  auto id = spark::ParseViewForCluster(execution_id, options.builder.cluster);
  if (!id.ok()) return id.status();
  if (absl::Status allowed = policy.Check(id->namespace_); !allowed.ok()) return allowed;
  return id;
}

absl::StatusOr<spark::ExecutionId> ExecutorContext::ParseId(std::string_view execution_id) const {
  auto id = ParseIdView(execution_id);
  if (!id.ok()) return id.status();
  return id->ToOwned();
}

void ExecutorContext::ObserveReturned(const std::string& json) {
  // A delete answers with the object while it is held by finalizers and with a Status once it is
  // gone; only an object is worth remembering (the informer sees the deletion).
  if (auto app = backend->ProjectJson(json); app.ok()) cache.ObserveWrite(*app);
}

namespace {

// The output's source, why it wasn't kept, the driver's exit code, and a failed job's message
// with the driver's last words: from the app's labels, refined by the driver when it was read.
void ApplyOutputState(const spark::AppProjection& app, const spark::DriverPod* driver,
                      spark::JobStatusInfo& info, spark::OutputSource& source, std::string& note,
                      std::optional<int32_t>& exit_code) {
  const OutputState state = OutputStateOf(app, info);
  source = state.source;
  note.assign(state.note);
  exit_code = state.exit_code;
  const spark::ContainerStatus* status = driver != nullptr ? driver->DriverStatus("") : nullptr;
  if (status != nullptr && status->exit_code) exit_code = status->exit_code;
  // Only a failed job's message carries the driver's last words (every cached Status of a
  // running job stops here).
  if (info.status != spark::JobStatus::kFailed) return;
  // The live driver's own words, else those kept on the app once the pod went.
  std::string words(app.last_words());
  if (status != nullptr && !status->termination_message.empty()) {
    words = spark::LastWords(MaskText(CapTerminationMessage(status->termination_message)));
  }
  info.message = spark::WithLastWords(std::move(info.message), info.status, words, exit_code);
}

}  // namespace

JobResult ExecutorContext::ResultOf(const spark::ExecutionId& id, const spark::AppProjection& app,
                                    const spark::DriverPod* driver) const {
  return ResultOf(id, app, driver, MapStatus(app, driver));
}

JobResult ExecutorContext::ResultOf(const spark::ExecutionId& id, const spark::AppProjection& app,
                                    const spark::DriverPod* driver,
                                    spark::JobStatusInfo info) const {
  JobResult result;
  result.execution_id = id.ToString();
  result.namespace_ = app.namespace_();
  result.name = app.name();
  result.job_id = app.job_id();
  result.details = backend->RunDetailsOf(app).ToDetails();
  // The pod found, else the one the operator names (a driver not yet looked up, or pending).
  result.driver_pod = driver ? driver->name : result.details.driver_pod_name;
  // Lists and streams answer the reason known without a request (Status looks it up).
  result.waiting = KnownWaiting(app, info).value_or(spark::Waiting{});
  if (result.driver_pod.empty()) result.driver_pod = result.waiting.pod;
  ApplyOutputState(app, driver, info, result.output_source, result.output_note, result.exit_code);
  result.info = std::move(info);
  result.created_at = spark::ToOptionalTime(app.creation_time());
  result.links = options.links.get();
  return result;
}

bool ExecutorContext::AnswerFromSnapshot(const spark::ExecutionIdView& id, std::string_view text,
                                         absl::FunctionRef<void(const JobView&)> answer) const {
  cache::AppPtr app = cache.Find(id.namespace_, id.name);
  if (app == nullptr) return false;
  const spark::DriverPod* driver = nullptr;
  std::optional<std::optional<spark::DriverPod>> known;
  if (backend->HasState(*app) && backend->WantsDriverTimes(*app)) {
    known = KnownDriverOf(*app);
    if (!known) return false;  // the driver's times need a pod LIST
    if (*known) driver = &**known;
  }
  spark::JobStatusInfo info = MapStatus(*app, driver);
  if (info.no_status_timed_out || info.start_timed_out || info.unknown_state) return false;
  // A deadline to enforce, or a stop to finish: that takes requests.
  if (info.deadline_due != spark::DeadlineKind::kNone || DeadlineDeleteUnfinished(*app) ||
      KeptStopOwesFinish(*app, info, clock.Now())) {
    return false;
  }
  if (driver != nullptr &&
      spark::ShouldDeleteOrphanDriver(info, *driver, app->driver_container())) {
    return false;
  }
  // A waiting job's reason: what the app says by itself, else what a lookup found and remembers.
  std::optional<spark::Waiting> known_waiting = KnownWaiting(*app, info);
  if (!known_waiting) return false;  // the pod and the Events need a look
  const spark::Waiting& waiting = *known_waiting;
  const spark::RunDetailsRef details = backend->RunDetailsOf(*app);
  // ResultOf's answer, with the app's own strings (an id's text is its parts joined by '/').
  JobView view;
  view.execution_id = text;
  view.status = info.status;
  view.started_at = info.started_at;
  view.finished_at = info.finished_at;
  view.operator_state = info.operator_state;
  view.message = info.message;
  view.namespace_ = app->namespace_();
  view.name = app->name();
  view.driver_pod = driver != nullptr ? std::string_view(driver->name) : details.driver_pod_name();
  view.job_id = app->job_id();
  view.spark_app_id = details.spark_app_id();
  view.attempts = details.attempts();
  view.driver_ui_address = details.driver_ui_address();
  if (view.driver_pod.empty()) view.driver_pod = waiting.pod;
  view.deadline_at = info.deadline_at;
  view.deadline_exceeded = info.deadline_exceeded;
  view.waiting_reason = waiting.reason;
  std::string output_note;
  ApplyOutputState(*app, driver, info, view.output_source, output_note, view.exit_code);
  view.message = info.message;
  view.output_note = output_note;
  view.waiting_message = waiting.message;
  view.queue = details.queue();
  view.created_at = spark::ToOptionalTime(app->creation_time());
  view.links = options.links.get();
  view.cancel_reason = info.cancel_reason;
  answer(view);
  return true;
}

std::optional<std::optional<spark::DriverPod>> ExecutorContext::KnownDriverOf(
    const spark::AppProjection& app) const {
  absl::MutexLock lock(&drivers_mu_);
  auto it = known_drivers_.find(ToAbsl(app.uid()));
  if (it == known_drivers_.end() || it->second.epoch != backend->DriverEpoch(app)) {
    return std::nullopt;
  }
  return it->second.driver;
}

void ExecutorContext::RememberDriver(const spark::AppProjection& app,
                                     const std::optional<spark::DriverPod>& driver) {
  // A live driver of a stopped app is about to change (or be deleted as an orphan): look again.
  // A started app's driver is worth keeping once its container has a start, which then holds
  // for the app's driver epoch.
  if (app.uid().empty()) return;
  if (backend->IsStopped(app)) {
    if (driver && driver->IsAlive(app.driver_container())) return;
  } else if (!driver || driver->DriverTimes(app.driver_container()).started == spark::kNoTime) {
    return;
  }
  {
    absl::MutexLock lock(&drivers_mu_);
    known_drivers_.insert_or_assign(
        std::string(app.uid()),
        KnownDriver{std::string(backend->DriverEpoch(app)), driver, std::string(app.namespace_()),
                    std::string(app.name())});
    if (known_drivers_.size() < next_driver_sweep_) return;
    next_driver_sweep_ = std::numeric_limits<size_t>::max();  // this caller sweeps
  }
  SweepKnownDrivers();
}

void ExecutorContext::SweepKnownDrivers() {
  struct Held {
    std::string uid;
    std::string namespace_;
    std::string name;
  };
  std::vector<Held> held;
  {
    absl::MutexLock lock(&drivers_mu_);
    held.reserve(known_drivers_.size());
    for (const auto& [uid, known] : known_drivers_) {
      held.push_back(Held{uid, known.namespace_, known.name});
    }
  }
  std::vector<std::string> gone;
  for (const Held& h : held) {
    cache::AppPtr app = cache.Find(h.namespace_, h.name);
    if (app == nullptr || app->uid() != h.uid) gone.push_back(h.uid);
  }
  absl::MutexLock lock(&drivers_mu_);
  for (const std::string& uid : gone) known_drivers_.erase(uid);
  if (known_drivers_.size() >= kMaxKnownDrivers) known_drivers_.clear();
  next_driver_sweep_ = std::max(options.known_drivers_first_sweep, 2 * known_drivers_.size());
}

std::shared_ptr<RpcHandle> Executor::Submit(std::string job_id, const std::string& metalake,
                                            const spark::SparkTemplate& job, absl::Time deadline,
                                            Done<SubmitResult> done) {
  return SubmitOrDryRun(false, std::move(job_id), metalake, job, deadline, std::move(done));
}

std::shared_ptr<RpcHandle> Executor::SubmitOrDryRun(bool dry_run, std::string job_id,
                                                    const std::string& metalake,
                                                    const spark::SparkTemplate& job,
                                                    absl::Time deadline, Done<SubmitResult> done) {
  if (internal::NeedsStagedLookup(job))
    return SubmitStaged(dry_run, std::move(job_id), metalake, job, deadline, done);
  auto built = ctx_.backend->Build(job_id, metalake, job, ctx_.options.builder);
  if (!built.ok()) {
    // Nothing was created: the template can't run as an application.
    return Answer<SubmitResult>(done, FromBuild(built.status(), Rpc::kSubmit));
  }
  if (absl::Status allowed = ctx_.policy.Check(built->namespace_); !allowed.ok()) {
    return Answer<SubmitResult>(done, allowed);
  }
  if (dry_run) {
    return Spawn(
        ctx_.io,
        [this, app = *std::move(built), job_id = std::move(job_id), name = job.name,
         deadline]() mutable {
          return coroutines::SubmitDryRun(ctx_, std::move(app), std::move(job_id), std::move(name),
                                          deadline);
        },
        std::move(done));
  }
  return Spawn(
      ctx_.io,
      [this, app = *std::move(built), job_id = std::move(job_id), name = job.name,
       deadline]() mutable {
        return coroutines::Submit(ctx_, std::move(app), std::move(job_id), std::move(name),
                                  deadline);
      },
      [this, done = std::move(done)](absl::StatusOr<coroutines::Submitted> submitted) {
        if (!submitted.ok()) return done(submitted.status());
        std::string created = std::move(submitted->created);
        done(std::move(submitted->result));
        // Parsed once the caller has its answer: a Status in between that the cache can't
        // answer reads the application from the API server instead.
        if (!created.empty()) ctx_.ObserveReturned(created);
      });
}

StatusLookup Executor::StatusNow(std::string_view execution_id,
                                 absl::FunctionRef<void(const JobView&)> answer) const {
  auto id = ctx_.ParseIdView(execution_id);
  if (!id.ok()) return id.status();
  // A cache hit that needs no request answers at once, from the immutable snapshot.
  if (ctx_.AnswerFromSnapshot(*id, execution_id, answer)) return StatusAnswered{};
  return id->ToOwned();
}

std::shared_ptr<RpcHandle> Executor::Status(spark::ExecutionId id, absl::Time deadline,
                                            Done<JobResult> done) {
  return Spawn(
      ctx_.io,
      [this, id = std::move(id), deadline]() mutable {
        return coroutines::Status(ctx_, std::move(id), deadline);
      },
      std::move(done));
}

std::shared_ptr<RpcHandle> Executor::Status(std::string_view execution_id, absl::Time deadline,
                                            Done<JobResult> done) {
  std::optional<JobResult> now;
  StatusLookup lookup =
      StatusNow(execution_id, [&now](const JobView& job) { now = ToResult(job); });
  if (now) return Answer<JobResult>(done, *std::move(now));
  if (auto* refused = std::get_if<absl::Status>(&lookup)) {
    return Answer<JobResult>(done, std::move(*refused));
  }
  return Status(std::get<spark::ExecutionId>(std::move(lookup)), deadline, std::move(done));
}

std::shared_ptr<RpcHandle> Executor::Cancel(std::string_view execution_id,
                                            const CancelOptions& options, absl::Time deadline,
                                            Done<bool> done) {
  auto id = ctx_.ParseId(execution_id);
  if (!id.ok()) return Answer<bool>(done, id.status());
  if (absl::Status reason = spark::CheckCancelReason(options.reason); !reason.ok()) {
    return Answer<bool>(done, reason);
  }
  const spark::CancelMode mode = options.mode.value_or(ctx_.options.cancel_mode);
  return Spawn(
      ctx_.io,
      [this, id = *std::move(id), mode, reason = spark::StoredCancelReason(options.reason),
       deadline]() mutable {
        return coroutines::Cancel(ctx_, std::move(id), mode, std::move(reason), deadline);
      },
      std::move(done));
}

std::shared_ptr<RpcHandle> Executor::Output(std::string_view execution_id, int64_t max_lines,
                                            int64_t max_bytes, const LogRequest& log,
                                            absl::Time deadline, Done<spark::LogTailResult> done) {
  auto id = ctx_.ParseId(execution_id);
  if (!id.ok()) return Answer<spark::LogTailResult>(done, id.status());
  if (absl::Status bad = CheckLogRequest(log, false); !bad.ok()) {
    return Answer<spark::LogTailResult>(done, bad);
  }
  if (max_lines < 0 || max_bytes < 0) {
    return Answer<spark::LogTailResult>(
        done, absl::InvalidArgumentError("max_lines and max_bytes must not be negative"));
  }
  if (max_lines == 0) max_lines = ctx_.options.default_max_lines;
  if (max_bytes == 0) max_bytes = ctx_.options.default_max_bytes;
  max_bytes = std::min(max_bytes, ctx_.options.max_output_bytes);
  auto tail = spark::LogTail::Create(max_lines, max_bytes);
  if (!tail.ok()) return Answer<spark::LogTailResult>(done, tail.status());
  return Spawn(
      ctx_.io,
      [this, id = *std::move(id), max_lines, max_bytes, tail = *std::move(tail), log,
       deadline]() mutable {
        return coroutines::Output(ctx_, std::move(id), max_lines, max_bytes, std::move(tail), log,
                                  deadline);
      },
      std::move(done));
}

}  // namespace kje::executor
