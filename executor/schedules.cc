// The schedule RPCs: recurring jobs as the operator's schedule resources (the backend's schedules
// part). The operator's controller starts the runs; the service checks what the controller
// doesn't before anything is created, and starts a run now when asked, named so the
// controller's never collide.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/strings.h"
#include "executor/error_table.h"
#include "executor/executor.h"
#include "executor/internal.h"
#include "executor/list_request.h"
#include "k8s/errors.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "spark/build_error.h"
#include "spark/names.h"
#include "spark/operators.h"
#include "spark/template_hash.h"

namespace kje::executor {

namespace asio = boost::asio;
using internal::AppsIn;

namespace {

// What every schedule RPC resolves first: the operator's collection, what reads and writes its
// schedules, and the schedule's name.
struct ScheduleRef {
  k8s::ResourceRef collection;
  const spark::ScheduleBackend* ops = nullptr;
  std::string name;

  k8s::ResourceRef Object() const {
    k8s::ResourceRef one = collection;
    one.name = name;
    return one;
  }
};

absl::StatusOr<k8s::ResourceRef> SchedulesIn(const ExecutorContext& ex, std::string_view ns) {
  std::optional<spark::ResourceKind> kind = ex.backend->ScheduleKind();
  if (!kind || ex.backend->Schedules() == nullptr) return spark::NoSchedulesError(*ex.backend);
  return k8s::CollectionRef(kind->group, kind->version, kind->plural, ns);
}

absl::StatusOr<ScheduleRef> ResolveSchedule(const ExecutorContext& ex, const std::string& ns_arg,
                                            const std::string& schedule_id) {
  const std::string ns = ns_arg.empty() ? ex.options.builder.namespace_ : ns_arg;
  if (!IsDns1123Label(ns)) {
    return absl::InvalidArgumentError(
        absl::StrCat("namespace must be a DNS-1123 label, got \"", ToAbsl(ns), "\""));
  }
  if (absl::Status allowed = ex.policy.Check(ns); !allowed.ok()) return allowed;
  absl::StatusOr<k8s::ResourceRef> collection = SchedulesIn(ex, ns);
  if (!collection.ok()) return collection.status();
  if (absl::Status valid = spark::ValidateJobId(ex.options.builder.name_prefix, schedule_id);
      !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("schedule_id: ", valid.message()));
  }
  std::string name = spark::ResourceName(ex.options.builder.name_prefix, schedule_id);
  const spark::ScheduleBackend* ops = ex.backend->Schedules();
  if (absl::Status fits = ops->CheckName(name); !fits.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("schedule_id: ", fits.message()));
  }
  return ScheduleRef{*std::move(collection), ops, std::move(name)};
}

// The built application's labels: the schedule carries them, and the controller copies them to
// every run, so runs are found like jobs.
}  // namespace

namespace coroutines {

namespace {

std::string ScheduleWhere(const ScheduleRef& ref) {
  return absl::StrCat(ToAbsl(ref.ops->KindName()), " ", ToAbsl(ref.collection.namespace_), "/",
                      ToAbsl(ref.name));
}

// The schedule as the API server returns it: NOT_FOUND when it doesn't exist.
asio::awaitable<absl::StatusOr<std::string>> GetScheduleJson(ExecutorContext& ex,
                                                             const ScheduleRef& ref,
                                                             absl::Time rpc_deadline) {
  auto get = ex.client->Get(ref.Object(), ex.Deadline(rpc_deadline));
  auto got = co_await std::move(get);
  if (got.ok()) co_return got;
  if (k8s::IsK8sNotFound(got.status())) {
    co_return absl::NotFoundError(absl::StrCat(ScheduleWhere(ref), " doesn't exist"));
  }
  co_return FromKubernetes(got.status(), Rpc::kAny, absl::StrCat("reading ", ScheduleWhere(ref)),
                           rpc_deadline, absl::Now());
}

asio::awaitable<absl::StatusOr<spark::Schedule>> FetchSchedule(ExecutorContext& ex, ScheduleRef ref,
                                                               absl::Time rpc_deadline) {
  auto get = GetScheduleJson(ex, ref, rpc_deadline);
  auto got = co_await std::move(get);
  if (!got.ok()) co_return got.status();
  auto schedule = ref.ops->ProjectJson(*got);
  if (!schedule.ok()) {
    co_return absl::InternalError(absl::StrCat("the API server returned an unreadable ",
                                               ScheduleWhere(ref), ": ",
                                               schedule.status().message()));
  }
  co_return *std::move(schedule);
}

ScheduleResult ResultOf(spark::Schedule schedule, bool adopted) {
  ScheduleResult out;
  out.schedule_id = std::string(schedule.Label(spark::kLabelJobId));
  out.schedule = std::move(schedule);
  out.adopted = adopted;
  return out;
}

// The newest runs GetSchedule shows; the others are counted in more_runs.
constexpr size_t kMaxRunsShown = 100;

struct RunList {
  std::vector<JobResult> newest;  // newest first, at most kMaxRunsShown
  bool more = false;
};

// The schedule's runs that exist, newest first, each as Status would first see it (from the
// application alone: the driver refines times only for a stopped job, on its own Status). Every
// page is read: the API server orders by name, and the newest runs (the controller's by their
// timestamp, ours after them) come last.
asio::awaitable<absl::StatusOr<RunList>> Runs(ExecutorContext& ex, const ScheduleRef& ref,
                                              absl::Time rpc_deadline) {
  const std::string& ns = ref.collection.namespace_;
  k8s::ListOptions list;
  list.label_selector = ref.ops->RunsSelector(ref.name);
  list.limit = 500;
  std::vector<std::pair<spark::EpochMillis, JobResult>> runs;
  auto newer = [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second.name > b.second.name;
  };
  bool more = false;
  do {
    auto listing = ex.client->List(AppsIn(ex, ns), list, ex.Deadline(rpc_deadline));
    auto page = co_await std::move(listing);
    if (!page.ok()) {
      co_return FromKubernetes(page.status(), Rpc::kAny,
                               absl::StrCat("listing the runs of ", ScheduleWhere(ref)),
                               rpc_deadline, absl::Now());
    }
    for (const k8s::ParsedJson& item : page->items) {
      auto app = ex.backend->Project(item.value());
      if (!app.ok()) continue;
      spark::ExecutionId id = ex.IdOf(ns, app->name());
      runs.emplace_back(app->creation_time(), ex.ResultOf(id, *app, nullptr));
    }
    // Only the newest are kept between pages.
    if (runs.size() > kMaxRunsShown) {
      std::partial_sort(runs.begin(), runs.begin() + kMaxRunsShown, runs.end(), newer);
      runs.resize(kMaxRunsShown);
      more = true;
    }
    list.continue_token = page->continue_token;
  } while (!list.continue_token.empty());
  std::stable_sort(runs.begin(), runs.end(), newer);
  RunList out;
  out.more = more;
  for (auto& [created, run] : runs) out.newest.push_back(std::move(run));
  co_return out;
}

}  // namespace

asio::awaitable<absl::StatusOr<ScheduleResult>> CreateSchedule(
    ExecutorContext& ex, ScheduleRef ref, spark::BuiltObject schedule, std::string schedule_id,
    spark::ScheduleSpec spec, std::string template_hash, absl::Time rpc_deadline) {
  auto create =
      ex.client->Create(ref.collection, std::move(schedule.json), ex.Deadline(rpc_deadline));
  auto created = co_await std::move(create);
  if (created.ok()) {
    auto projected = ref.ops->ProjectJson(*created);
    if (!projected.ok()) co_return absl::InternalError(projected.status().message());
    log::Info("schedule created").Kv("schedule_id", schedule_id).Kv("name", ref.name);
    co_return ResultOf(*std::move(projected), false);
  }
  if (!k8s::IsK8sConflict(created.status())) {
    co_return FromKubernetes(created.status(), Rpc::kCreateSchedule,
                             absl::StrCat("creating ", ScheduleWhere(ref)), rpc_deadline,
                             absl::Now());
  }
  // 409: a retry of this request finds its own schedule; another's name is ALREADY_EXISTS.
  auto fetch = FetchSchedule(ex, ref, rpc_deadline);
  auto existing = co_await std::move(fetch);
  if (absl::IsNotFound(existing.status())) {
    co_return absl::UnavailableError(absl::StrCat(
        ScheduleWhere(ref), " existed a moment ago and is gone now; retry the creation"));
  }
  if (!existing.ok()) co_return existing.status();
  if (existing->Label(spark::kLabelJobId) != schedule_id ||
      existing->Label(spark::kLabelManagedBy) != spark::kManagedByGravitino) {
    co_return absl::AlreadyExistsError(
        absl::StrCat(ScheduleWhere(ref), " exists and is not schedule ", schedule_id, "'s"));
  }
  if (existing->deleting) {
    // Deleted a moment ago (with keep_runs it lingers until the garbage collector has freed its
    // runs): adopting it would answer with a schedule about to vanish.
    co_return absl::AlreadyExistsError(
        absl::StrCat(ScheduleWhere(ref), " is being deleted and can't be used for schedule ",
                     schedule_id, " until it is gone"));
  }
  // Adopted only when it is this request's: the spec as stored (an update since counts) and the
  // template it was made from (a schedule without hashes, made before them, by its spec only).
  if (absl::Status same =
          spark::CheckSameTemplate(ScheduleWhere(ref), existing->template_hash, template_hash,
                                   spark::DifferingSpecFields(existing->spec, spec));
      !same.ok()) {
    co_return same;
  }
  co_return ResultOf(*std::move(existing), true);
}

asio::awaitable<absl::StatusOr<ScheduleResult>> GetSchedule(ExecutorContext& ex, ScheduleRef ref,
                                                            absl::Time rpc_deadline) {
  auto fetch = FetchSchedule(ex, ref, rpc_deadline);
  auto schedule = co_await std::move(fetch);
  if (!schedule.ok()) co_return schedule.status();
  auto list_runs = Runs(ex, ref, rpc_deadline);
  auto runs = co_await std::move(list_runs);
  if (!runs.ok()) co_return runs.status();
  ScheduleResult out = ResultOf(*std::move(schedule), false);
  out.runs = std::move(runs->newest);
  out.more_runs = runs->more;
  co_return out;
}

// One merge patch of the schedule (`subresource` "status" for its status), its answer's JSON or
// the table's code for `what` was being done.
asio::awaitable<absl::StatusOr<std::string>> PatchSchedule(ExecutorContext& ex,
                                                           const ScheduleRef& ref,
                                                           std::string_view subresource,
                                                           std::string patch, std::string_view what,
                                                           absl::Time rpc_deadline) {
  k8s::ResourceRef object = ref.Object();
  object.subresource = std::string(subresource);
  auto call =
      ex.client->Patch(object, k8s::PatchType::kMerge, std::move(patch), ex.Deadline(rpc_deadline));
  auto answer = co_await std::move(call);
  if (!answer.ok()) {
    co_return FromKubernetes(answer.status(), Rpc::kUpdateSchedule,
                             absl::StrCat(ToAbsl(what), " ", ScheduleWhere(ref)), rpc_deadline,
                             absl::Now());
  }
  co_return answer;
}

asio::awaitable<absl::StatusOr<ScheduleResult>> UpdateSchedule(ExecutorContext& ex, ScheduleRef ref,
                                                               spark::ScheduleUpdate update,
                                                               std::string patch,
                                                               absl::Time rpc_deadline) {
  auto get = GetScheduleJson(ex, ref, rpc_deadline);
  auto got = co_await std::move(get);
  if (!got.ok()) co_return got.status();
  auto stored = ref.ops->ProjectJson(*got);
  if (!stored.ok()) co_return absl::InternalError(stored.status().message());
  const spark::ScheduleSpec spec = spark::Merged(stored->spec, update);
  if (absl::Status valid = ref.ops->CheckSpec(spec); !valid.ok()) co_return valid;

  // The operator may keep a next run it has computed, or a refusal, whatever the spec becomes:
  // clearing them makes its next pass (which the write wakes) schedule from the new spec on its
  // own clock.
  std::optional<std::string> reschedule = ref.ops->ReschedulePatch(update, *stored);
  // A suspended schedule resumed in the same call: the controller would fire the next run the old
  // spec computed the moment it saw the resume, before the status write moved it. So the spec
  // changes while still suspended, the next run is moved, and the resume comes last.
  std::optional<std::string> resume;
  if (reschedule && stored->spec.suspended && update.suspended == false) {
    spark::ScheduleUpdate resumed;
    resumed.suspended = false;
    auto resume_patch = ref.ops->UpdatePatch(resumed);
    if (!resume_patch.ok()) co_return resume_patch.status();
    resume = *std::move(resume_patch);
    update.suspended.reset();
    if (spark::SetsAnyField(update)) {
      auto held = ref.ops->UpdatePatch(update);
      if (!held.ok()) co_return held.status();
      patch = *std::move(held);
    } else {
      patch.clear();
    }
  }

  std::string answer;
  if (!patch.empty()) {
    auto change = PatchSchedule(ex, ref, "", std::move(patch), "updating", rpc_deadline);
    auto changed = co_await std::move(change);
    if (!changed.ok()) co_return changed.status();
    answer = *std::move(changed);
  }
  if (reschedule) {
    auto reset =
        PatchSchedule(ex, ref, "status", *std::move(reschedule), "rescheduling", rpc_deadline);
    auto rescheduled = co_await std::move(reset);
    if (!rescheduled.ok()) co_return rescheduled.status();
    if (stored->refused) log::Info("schedule validated again").Kv("name", ref.name);
    answer = *std::move(rescheduled);
  }
  if (resume) {
    auto resuming = PatchSchedule(ex, ref, "", *std::move(resume), "resuming", rpc_deadline);
    auto resumed = co_await std::move(resuming);
    if (!resumed.ok()) co_return resumed.status();
    answer = *std::move(resumed);
  }
  auto projected = ref.ops->ProjectJson(answer);
  if (!projected.ok()) co_return absl::InternalError(projected.status().message());
  co_return ResultOf(*std::move(projected), false);
}

asio::awaitable<absl::StatusOr<SchedulePage>> ListSchedules(ExecutorContext& ex,
                                                            const spark::ScheduleBackend* ops,
                                                            k8s::ResourceRef collection,
                                                            k8s::ListOptions list,
                                                            absl::Time rpc_deadline) {
  auto listing = ex.client->List(collection, list, ex.Deadline(rpc_deadline));
  auto page = co_await std::move(listing);
  if (!page.ok()) {
    // An expired continue token is the caller's to restart from page one, as for ListJobs.
    co_return FromKubernetes(page.status(), Rpc::kListSchedules,
                             absl::StrCat("listing the ", ToAbsl(ops->KindName()), "s of ",
                                          ToAbsl(collection.namespace_)),
                             rpc_deadline, absl::Now());
  }
  SchedulePage out;
  for (const k8s::ParsedJson& item : page->items) {
    auto schedule = ops->Project(item.value());
    if (!schedule.ok()) continue;  // one unreadable schedule mustn't hide the others
    out.schedules.push_back(ResultOf(*std::move(schedule), false));
  }
  if (!page->continue_token.empty()) {
    out.next_page_token = PageToken::Continue(page->continue_token).Encode();
  }
  co_return out;
}

asio::awaitable<absl::StatusOr<bool>> DeleteSchedule(ExecutorContext& ex, ScheduleRef ref,
                                                     bool keep_runs, absl::Time rpc_deadline) {
  k8s::DeleteOptions del;
  // The runs name the schedule as their owner: the garbage collector deletes them with it,
  // or leaves them, ownerless, with Orphan.
  del.propagation_policy = keep_runs ? "Orphan" : "Background";
  auto remove = ex.client->Delete(ref.Object(), del, ex.Deadline(rpc_deadline));
  auto deleted = co_await std::move(remove);
  if (deleted.ok()) co_return true;
  if (k8s::IsK8sNotFound(deleted.status())) co_return false;
  co_return FromKubernetes(deleted.status(), Rpc::kDeleteSchedule,
                           absl::StrCat("deleting ", ScheduleWhere(ref)), rpc_deadline,
                           absl::Now());
}

asio::awaitable<absl::StatusOr<RunNowResult>> RunScheduleNow(ExecutorContext& ex, ScheduleRef ref,
                                                             std::string run_id,
                                                             absl::Time rpc_deadline) {
  auto get = GetScheduleJson(ex, ref, rpc_deadline);
  auto got = co_await std::move(get);
  if (!got.ok()) co_return got.status();
  auto run = ref.ops->BuildRun(*got, run_id);
  if (!run.ok()) {
    // The name was checked before: what's left is a schedule the API server returned unreadable.
    if (spark::BuildInputOf(run.status()) == spark::BuildInput::kRunId) co_return run.status();
    co_return absl::InternalError(
        absl::StrCat("can't start a run of ", ScheduleWhere(ref), ": ", run.status().message()));
  }
  spark::ExecutionId id = ex.IdOf(run->namespace_, run->name);
  auto create = ex.client->Create(AppsIn(ex, run->namespace_), std::move(run->json),
                                  ex.Deadline(rpc_deadline));
  auto created = co_await std::move(create);
  if (created.ok()) {
    ex.ObserveReturned(*created);
    log::Info("schedule run started").Kv("schedule", ref.name).Kv("run", run->name);
    co_return RunNowResult{id.ToString(), false};
  }
  if (!k8s::IsK8sConflict(created.status())) {
    co_return FromKubernetes(created.status(), Rpc::kRunScheduleNow,
                             absl::StrCat("creating the run ", Where(run->namespace_, run->name),
                                          " of ", ScheduleWhere(ref)),
                             rpc_deadline, absl::Now());
  }
  // 409: the same run id again (a retry, another replica) finds its run.
  auto look_up = LookUp(ex, run->namespace_, run->name, rpc_deadline);
  auto existing = co_await std::move(look_up);
  if (absl::IsNotFound(existing.status())) {
    co_return absl::UnavailableError(absl::StrCat("the run ", Where(run->namespace_, run->name),
                                                  " existed a moment ago and is gone now"));
  }
  if (!existing.ok()) co_return existing.status();
  if (absl::Status adoption = ref.ops->CheckRunAdoption(**existing, ref.name); !adoption.ok()) {
    co_return adoption;
  }
  if (absl::Status same =
          spark::CheckSameTemplate(absl::StrCat("the run ", Where(run->namespace_, run->name)),
                                   (*existing)->template_hash(), run->template_hash);
      !same.ok()) {
    co_return same;
  }
  co_return RunNowResult{id.ToString(), true};
}

}  // namespace coroutines

namespace {

template <class T>
std::shared_ptr<RpcHandle> Refuse(const std::function<void(absl::StatusOr<T>)>& done,
                                  absl::Status status) {
  done(std::move(status));
  return internal::FinishedHandle();
}

}  // namespace

std::shared_ptr<RpcHandle> Executor::CreateSchedule(
    std::string schedule_id, const std::string& metalake, const spark::SparkTemplate& job,
    const spark::ScheduleSpec& spec, absl::Time deadline, Done<ScheduleResult> done) {
  if (internal::NeedsStagedLookup(job)) {
    return CreateScheduleStaged(std::move(schedule_id), metalake, job, spec, deadline, done);
  }
  if (auto collection = SchedulesIn(ctx_, ""); !collection.ok()) {
    return Refuse<ScheduleResult>(done, collection.status());
  }
  if (absl::Status valid = ctx_.backend->Schedules()->CheckSpec(spec); !valid.ok()) {
    return Refuse<ScheduleResult>(done, valid);
  }
  auto built = ctx_.backend->Build(schedule_id, metalake, job, ctx_.options.builder);
  if (!built.ok()) {
    return Refuse<ScheduleResult>(done, FromBuild(built.status(), Rpc::kCreateSchedule));
  }
  if (!built->env_secret_name.empty()) {
    // Each run would read the Secret for as long as the schedule lives, and no run owns it.
    return Refuse<ScheduleResult>(
        done, absl::InvalidArgumentError(absl::StrCat(
                  "Job template ", QuoteBounded(job.name),
                  " sets environment variables, which a schedule doesn't take: its runs would "
                  "need their Secret for as long as the schedule lives. Pass them as Spark "
                  "configurations instead (spark.kubernetes.driverEnv.<name>, "
                  "spark.executorEnv.<name>), or submit the job")));
  }
  auto ref = ResolveSchedule(ctx_, built->namespace_, schedule_id);
  if (!ref.ok()) return Refuse<ScheduleResult>(done, ref.status());
  spark::ScheduleMeta meta;
  meta.name = ref->name;
  meta.namespace_ = built->namespace_;
  meta.labels = built->labels;
  if (!metalake.empty()) meta.annotations[std::string(spark::kAnnotationMetalake)] = metalake;
  meta.annotations[std::string(spark::kAnnotationTemplateHash)] = built->template_hash;
  auto schedule = ref->ops->Build(meta, spec, built->json);
  if (!schedule.ok()) return Refuse<ScheduleResult>(done, schedule.status());
  return internal::Spawn(
      ctx_.io,
      [this, ref = *std::move(ref), schedule = *std::move(schedule),
       schedule_id = std::move(schedule_id), spec, template_hash = built->template_hash,
       deadline]() mutable {
        return coroutines::CreateSchedule(ctx_, std::move(ref), std::move(schedule),
                                          std::move(schedule_id), std::move(spec),
                                          std::move(template_hash), deadline);
      },
      std::move(done));
}

std::shared_ptr<RpcHandle> Executor::GetSchedule(const std::string& ns,
                                                 const std::string& schedule_id,
                                                 absl::Time deadline, Done<ScheduleResult> done) {
  auto ref = ResolveSchedule(ctx_, ns, schedule_id);
  if (!ref.ok()) return Refuse<ScheduleResult>(done, ref.status());
  return internal::Spawn(
      ctx_.io,
      [this, ref = *std::move(ref), deadline]() mutable {
        return coroutines::GetSchedule(ctx_, std::move(ref), deadline);
      },
      std::move(done));
}

std::shared_ptr<RpcHandle> Executor::ListSchedules(const std::string& ns,
                                                   const std::string& label_selector,
                                                   int64_t page_size, const std::string& page_token,
                                                   absl::Time deadline, Done<SchedulePage> done) {
  absl::StatusOr<ListRequest> request =
      ParseListRequest(ns, ctx_.options.builder.namespace_, label_selector, page_size, page_token);
  if (!request.ok()) return Refuse<SchedulePage>(done, request.status());
  if (request->page_token.kind == PageToken::Kind::kMemory) {
    return Refuse<SchedulePage>(
        done,
        absl::InvalidArgumentError("page_token is a ListJobs token, not a ListSchedules one"));
  }
  if (absl::Status allowed = ctx_.policy.Check(request->namespace_); !allowed.ok()) {
    return Refuse<SchedulePage>(done, allowed);
  }
  auto collection = SchedulesIn(ctx_, request->namespace_);
  if (!collection.ok()) return Refuse<SchedulePage>(done, collection.status());
  k8s::ListOptions list;
  list.label_selector = spark::ManagedAppSelector();
  if (!request->selector.empty()) absl::StrAppend(&list.label_selector, ",", label_selector);
  list.limit = request->page_size;
  if (request->page_token.kind == PageToken::Kind::kApi) {
    list.continue_token = request->page_token.value;
  }
  return internal::Spawn(
      ctx_.io,
      [this, collection = *std::move(collection), list = std::move(list), deadline]() mutable {
        return coroutines::ListSchedules(ctx_, ctx_.backend->Schedules(), std::move(collection),
                                         std::move(list), deadline);
      },
      std::move(done));
}

std::shared_ptr<RpcHandle> Executor::UpdateSchedule(const std::string& ns,
                                                    const std::string& schedule_id,
                                                    const spark::ScheduleUpdate& update,
                                                    absl::Time deadline,
                                                    Done<ScheduleResult> done) {
  auto ref = ResolveSchedule(ctx_, ns, schedule_id);
  if (!ref.ok()) return Refuse<ScheduleResult>(done, ref.status());
  auto patch = ref->ops->UpdatePatch(update);
  if (!patch.ok()) return Refuse<ScheduleResult>(done, patch.status());
  return internal::Spawn(
      ctx_.io,
      [this, ref = *std::move(ref), update, patch = *std::move(patch), deadline]() mutable {
        return coroutines::UpdateSchedule(ctx_, std::move(ref), std::move(update), std::move(patch),
                                          deadline);
      },
      std::move(done));
}

std::shared_ptr<RpcHandle> Executor::DeleteSchedule(const std::string& ns,
                                                    const std::string& schedule_id, bool keep_runs,
                                                    absl::Time deadline, Done<bool> done) {
  auto ref = ResolveSchedule(ctx_, ns, schedule_id);
  if (!ref.ok()) return Refuse<bool>(done, ref.status());
  return internal::Spawn(
      ctx_.io,
      [this, ref = *std::move(ref), keep_runs, deadline]() mutable {
        return coroutines::DeleteSchedule(ctx_, std::move(ref), keep_runs, deadline);
      },
      std::move(done));
}

std::shared_ptr<RpcHandle> Executor::RunScheduleNow(const std::string& ns,
                                                    const std::string& schedule_id,
                                                    const std::string& run_id, absl::Time deadline,
                                                    Done<RunNowResult> done) {
  auto ref = ResolveSchedule(ctx_, ns, schedule_id);
  if (!ref.ok()) return Refuse<RunNowResult>(done, ref.status());
  // Checked before any request: the same name rule the run is built with.
  if (auto name = ref->ops->RunName(ref->name, run_id); !name.ok()) {
    return Refuse<RunNowResult>(done, name.status());
  }
  return internal::Spawn(
      ctx_.io,
      [this, ref = *std::move(ref), run_id, deadline]() mutable {
        return coroutines::RunScheduleNow(ctx_, std::move(ref), std::move(run_id), deadline);
      },
      std::move(done));
}

}  // namespace kje::executor
