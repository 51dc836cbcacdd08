// ListJobs: a page of one namespace's jobs, from the informer when it has synced, else a LIST
// passed through to the API server; and a listing of every namespace the server serves (the
// allow-list's one after another, or the whole cluster's through the API server).

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "executor/error_table.h"
#include "executor/executor.h"
#include "executor/internal.h"
#include "executor/list_request.h"
#include "k8s/label_selector.h"

namespace kje::executor {

namespace asio = boost::asio;
using internal::Answer;
using internal::Spawn;

namespace coroutines {
namespace {

// One page of a LIST: `ns` "" is every namespace (a cluster-scope LIST).
asio::awaitable<absl::StatusOr<JobPage>> ListFromApi(ExecutorContext& ex, std::string ns,
                                                     k8s::ListOptions list, ListFilter filter,
                                                     absl::Time rpc_deadline) {
  auto list_apps = ex.client->List(AppRef(ex, ns, ""), list, ex.Deadline(rpc_deadline));
  auto page = co_await std::move(list_apps);
  if (!page.ok()) {
    co_return FromKubernetes(page.status(), Rpc::kListJobs,
                             ns.empty() ? std::string("listing the SparkApplications of every "
                                                      "namespace (at the cluster scope)")
                                        : absl::StrCat("listing the SparkApplications of ", ns),
                             rpc_deadline, absl::Now());
  }
  JobPage out;
  for (const k8s::ParsedJson& item : page->items) {
    auto app = ex.backend->Project(item.value());
    if (!app.ok()) continue;
    spark::ExecutionId id = ex.IdOf(app->namespace_(), app->name());
    JobResult result = ex.ResultOf(id, *app, nullptr);
    // Filtered after the API server's page: the page may be shorter, its token still good.
    if (!filter.Matches(result.info, result.created_at)) continue;
    out.jobs.push_back(std::move(result));
  }
  if (!page->continue_token.empty()) {
    out.next_page_token = PageToken::Continue(page->continue_token).Encode();
  }
  co_return out;
}

}  // namespace
}  // namespace coroutines

namespace {

// A page of `request.namespace_` ("" the whole cluster, never from the informer), the namespace
// policy already judged.
std::shared_ptr<RpcHandle> ListNamespace(ExecutorContext& ctx, ListRequest request,
                                         const ListFilter& filter, absl::Time deadline,
                                         JobExecutor::Done<JobPage> done) {
  const std::string& ns = request.namespace_;
  const size_t limit = static_cast<size_t>(request.page_size);
  if (request.page_token.kind != PageToken::Kind::kApi && !ns.empty()) {
    auto apps = ctx.cache.ListAfter(
        ns, request.page_token.value, limit + 1, [&](const spark::AppProjection& app) {
          if (!request.selector.Matches(
                  [&](std::string_view key) { return app.labels().Find(key); })) {
            return false;
          }
          // The status a page shows (ResultOf's), judged before the page is cut: a filtered
          // page is as full as an unfiltered one, and its token names the last job served.
          return filter.empty() || filter.Matches(ctx.MapStatus(app, nullptr),
                                                  spark::ToOptionalTime(app.creation_time()));
        });
    if (apps) {
      JobPage page;
      if (apps->size() > limit) {
        apps->resize(limit);
        page.next_page_token = PageToken::AfterName(std::string(apps->back()->name())).Encode();
      }
      for (const auto& app : *apps) {
        spark::ExecutionId id = ctx.IdOf(app->namespace_(), app->name());
        page.jobs.push_back(ctx.ResultOf(id, *app, nullptr));
      }
      return Answer<JobPage>(done, std::move(page));
    }
  }
  if (request.page_token.kind == PageToken::Kind::kMemory) {
    // The page before came from another replica's memory, and this one can't continue by name
    // (a cluster-wide listing never hands out such a token).
    return Answer<JobPage>(
        done,
        ns.empty()
            ? absl::InvalidArgumentError("page_token is not one of a listing of every namespace")
            : absl::UnavailableError(absl::StrCat("this replica's cache of namespace ", ns,
                                                  " is still syncing; retry the page")));
  }
  // Straight to the API server: the informer can't answer, or the cache is off.
  k8s::ListOptions list;
  list.label_selector = ctx.backend->ManagedSelector();
  if (!request.selector.empty()) absl::StrAppend(&list.label_selector, ",", request.selector_text);
  list.limit = request.page_size;
  if (request.page_token.kind == PageToken::Kind::kApi) {
    list.continue_token = request.page_token.value;
  }
  return Spawn(
      ctx.io,
      [&ctx, ns = request.namespace_, list = std::move(list), filter, deadline]() mutable {
        return coroutines::ListFromApi(ctx, std::move(ns), std::move(list), filter, deadline);
      },
      std::move(done));
}

}  // namespace

std::shared_ptr<RpcHandle> Executor::ListJobs(const std::string& namespace_arg,
                                              const std::string& label_selector, int64_t page_size,
                                              const std::string& page_token,
                                              const ListFilter& filter, absl::Time deadline,
                                              JobExecutor::Done<JobPage> done) {
  absl::StatusOr<ListRequest> request = ParseListRequest(
      namespace_arg, ctx_.options.builder.namespace_, label_selector, page_size, page_token);
  if (!request.ok()) return Answer<JobPage>(done, request.status());
  if (absl::Status bad = CheckListFilter(filter); !bad.ok()) return Answer<JobPage>(done, bad);
  if (absl::Status allowed = ctx_.policy.Check(request->namespace_); !allowed.ok()) {
    return Answer<JobPage>(done, allowed);
  }
  return ListNamespace(ctx_, *std::move(request), filter, deadline, std::move(done));
}

std::shared_ptr<RpcHandle> Executor::ListAllNamespaces(const std::string& label_selector,
                                                       int64_t page_size,
                                                       const std::string& page_token,
                                                       const ListFilter& filter,
                                                       absl::Time deadline, Done<JobPage> done) {
  // The token is judged below, by the listing it belongs to.
  absl::StatusOr<ListRequest> request = ParseListRequest(
      "", ctx_.options.builder.namespace_, label_selector, page_size, /*page_token=*/"");
  if (!request.ok()) return Answer<JobPage>(done, request.status());
  if (absl::Status bad = CheckListFilter(filter); !bad.ok()) return Answer<JobPage>(done, bad);
  // The policy's, which lives as long as the executor.
  const std::vector<std::string>& namespaces = ctx_.policy.allowed_in_order();
  if (namespaces.empty()) {
    // Any namespace may be asked about, so every one is listed: the API server's, cluster-wide.
    absl::StatusOr<PageToken> token = ParsePageToken(page_token);
    if (!token.ok()) return Answer<JobPage>(done, token.status());
    request->namespace_.clear();
    request->page_token = *std::move(token);
    return ListNamespace(ctx_, *std::move(request), filter, deadline, std::move(done));
  }
  absl::StatusOr<NamespacesCursor> cursor = ParseNamespacesToken(page_token, namespaces);
  if (!cursor.ok()) return Answer<JobPage>(done, cursor.status());
  request->namespace_ = cursor->namespace_;
  request->page_token = std::move(cursor->token);
  std::string ns = request->namespace_;
  return ListNamespace(
      ctx_, *std::move(request), filter, deadline,
      [done = std::move(done), ns = std::move(ns), &namespaces](absl::StatusOr<JobPage> page) {
        if (page.ok()) {
          page->next_page_token = NextNamespacesToken(ns, page->next_page_token, namespaces);
        }
        done(std::move(page));
      });
}

}  // namespace kje::executor
