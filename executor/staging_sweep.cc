// The sweep of staged files: the staged paths every application and schedule of the allowed
// namespaces names (their specs hold the rewritten URIs), then the store's files that none names
// and that are older than the grace period deleted. Nothing is remembered between sweeps: what
// Kubernetes and the store hold decides, so any replica may sweep, and two at once do no harm.
// A LIST that fails deletes nothing.

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "executor/executor.h"
#include "executor/internal.h"
#include "spark/staged_reference.h"

namespace kje::executor {

namespace coroutines {
namespace {

asio::awaitable<absl::StatusOr<std::set<std::string>>> StagedPathsInUse(ExecutorContext& ex,
                                                                        absl::Time deadline) {
  // Without an allow-list jobs may be anywhere: the lists are cluster-wide ("").
  std::vector<std::string> namespaces = ex.policy.allowed();
  if (namespaces.empty()) namespaces.push_back("");
  std::vector<k8s::ResourceRef> collections;
  const std::optional<spark::ResourceKind> schedules = ex.backend->ScheduleKind();
  for (const std::string& ns : namespaces) {
    collections.push_back(internal::AppsIn(ex, ns));
    if (schedules) {
      collections.push_back(
          k8s::CollectionRef(schedules->group, schedules->version, schedules->plural, ns));
    }
  }
  std::set<std::string> in_use;
  for (const k8s::ResourceRef& collection : collections) {
    k8s::ListOptions options;
    options.limit = 500;
    do {
      if (co_await internal::Cancelled()) co_return absl::CancelledError("the sweep was cancelled");
      auto list = ex.client->List(collection, options, ex.Deadline(deadline));
      auto page = co_await std::move(list);
      if (!page.ok()) co_return page.status();
      for (const k8s::ParsedJson& item : page->items) {
        for (std::string& path : spark::StagedObjectPathsIn(item.ToString())) {
          in_use.insert(std::move(path));
        }
      }
      options.continue_token = page->continue_token;
    } while (!options.continue_token.empty());
  }
  co_return in_use;
}

}  // namespace
}  // namespace coroutines

std::shared_ptr<RpcHandle> Executor::SweepStaged(absl::Duration grace, absl::Time deadline,
                                                 Done<int64_t> done) {
  if (stager_ == nullptr) {
    done(int64_t{0});
    return internal::FinishedHandle();
  }
  // The cut-off is taken before the lists: a file uploaded and submitted while they run is
  // younger than it.
  const absl::Time older_than = ctx_.clock.Now() - grace;
  return internal::Spawn(
      ctx_.io, [this, deadline] { return coroutines::StagedPathsInUse(ctx_, deadline); },
      [this, older_than, deadline,
       done = std::move(done)](absl::StatusOr<std::set<std::string>> in_use) mutable {
        if (!in_use.ok()) return done(in_use.status());
        stager_->Sweep(*std::move(in_use), older_than, stager_->Deadline(deadline),
                       std::move(done));
      });
}

}  // namespace kje::executor
