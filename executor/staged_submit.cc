// Submit and CreateSchedule of templates that name staged files: each reference looked up in the
// staging store (on the staging threads: the store's calls block), then the call made again with
// the references' URIs, which the operator-neutral resolution (spark/resolved_job.cc) writes in
// their place.

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/quote.h"
#include "executor/executor.h"
#include "executor/internal.h"
#include "spark/staged_reference.h"

namespace kje::executor {

namespace internal {

bool NeedsStagedLookup(const spark::SparkTemplate& job) {
  return job.staged_uris.empty() && !spark::StagedReferencesOf(job).empty();
}

}  // namespace internal

namespace {

// The handle of a call made of steps: the look-up, then the call itself. A cancel reaches
// whichever steps have started, and every step started after it.
class StepsHandle final : public RpcHandle {
 public:
  void Cancel() override {
    std::vector<std::shared_ptr<RpcHandle>> steps;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      steps = steps_;
    }
    for (auto& step : steps) step->Cancel();
  }
  void Add(std::shared_ptr<RpcHandle> step) {
    {
      absl::MutexLock lock(&mu_);
      if (!cancelled_) {
        steps_.push_back(std::move(step));
        return;
      }
    }
    step->Cancel();
  }

 private:
  absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::shared_ptr<RpcHandle>> steps_ ABSL_GUARDED_BY(mu_);
};

absl::Status NotStaging(const spark::SparkTemplate& job) {
  return absl::FailedPreconditionError(
      absl::StrCat("Job template ", QuoteBounded(job.name), " names the staged file ",
                   QuoteBounded(spark::StagedReferencesOf(job).front()),
                   ", but this deployment stages no files (staging.store is none)"));
}

// Looks the template's references up, then calls `then` (a staging thread) with the template
// carrying their URIs; `fail` gets the look-up's error.
template <class T, class Then>
std::shared_ptr<RpcHandle> WithStagedFiles(staging::Stager& stager, const spark::SparkTemplate& job,
                                           absl::Time deadline, JobExecutor::Done<T> done,
                                           Then then) {
  auto handle = std::make_shared<StepsHandle>();
  handle->Add(stager.Resolve(
      spark::StagedReferencesOf(job), deadline,
      [handle, job = spark::SparkTemplate(job), done = std::move(done),
       then = std::move(then)](absl::StatusOr<staging::ResolvedReferences> resolved) mutable {
        if (!resolved.ok()) {
          if (absl::IsInvalidArgument(resolved.status())) {
            return done(absl::InvalidArgumentError(absl::StrCat(
                "Job template ", QuoteBounded(job.name), ": ", resolved.status().message())));
          }
          return done(resolved.status());
        }
        job.staged_uris = std::move(resolved->uris);
        job.staged_conf = std::move(resolved->conf);
        handle->Add(then(job, std::move(done)));
      }));
  return handle;
}

}  // namespace

std::shared_ptr<RpcHandle> Executor::SubmitStaged(bool dry_run, std::string job_id,
                                                  const std::string& metalake,
                                                  const spark::SparkTemplate& job,
                                                  absl::Time deadline, Done<SubmitResult> done) {
  if (stager_ == nullptr) {
    done(NotStaging(job));
    return internal::FinishedHandle();
  }
  return WithStagedFiles<SubmitResult>(
      *stager_, job, deadline, std::move(done),
      [this, dry_run, job_id = std::move(job_id), metalake, deadline](
          const spark::SparkTemplate& staged, Done<SubmitResult> then) {
        return SubmitOrDryRun(dry_run, job_id, metalake, staged, deadline, std::move(then));
      });
}

std::shared_ptr<RpcHandle> Executor::CreateScheduleStaged(
    std::string schedule_id, const std::string& metalake, const spark::SparkTemplate& job,
    const spark::ScheduleSpec& spec, absl::Time deadline, Done<ScheduleResult> done) {
  if (stager_ == nullptr) {
    done(NotStaging(job));
    return internal::FinishedHandle();
  }
  return WithStagedFiles<ScheduleResult>(
      *stager_, job, deadline, std::move(done),
      [this, schedule_id = std::move(schedule_id), metalake, spec, deadline](
          const spark::SparkTemplate& staged, Done<ScheduleResult> then) {
        return CreateSchedule(schedule_id, metalake, staged, spec, deadline, std::move(then));
      });
}

}  // namespace kje::executor
