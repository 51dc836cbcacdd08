// Events: what Kubernetes recorded about a job's application and its driver pod (scheduling,
// image pulls, the operator's state changes), for a caller who asks why a job is where it is.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/mask.h"
#include "base/strings.h"
#include "executor/error_table.h"
#include "executor/executor.h"
#include "executor/internal.h"
#include "k8s/event.h"
#include "k8s/resource.h"

namespace kje::executor {

namespace asio = boost::asio;

namespace coroutines {
namespace {

k8s::ResourceRef EventsRef(std::string_view ns) { return k8s::CoreRef("events", ns); }

}  // namespace

asio::awaitable<absl::Status> ListObjectEvents(ExecutorContext& ex, std::string ns,
                                               std::string kind, std::string name,
                                               absl::Time rpc_deadline, JobEvents& out) {
  const size_t max = ex.options.max_events_per_object;
  k8s::ListOptions list;
  list.field_selector =
      absl::StrCat("involvedObject.kind=", ToAbsl(kind), ",involvedObject.name=", ToAbsl(name));
  size_t taken = 0;
  do {
    list.limit = static_cast<int64_t>(std::min<size_t>(500, max - taken));
    auto listing = ex.client->List(EventsRef(ns), list, ex.Deadline(rpc_deadline));
    auto page = co_await std::move(listing);
    if (!page.ok()) co_return page.status();
    for (const k8s::ParsedJson& item : page->items) {
      auto event = k8s::ProjectEvent(item.value());
      if (!event.ok()) continue;  // one unreadable event mustn't hide the others
      // An operator's event may quote the job's conf or arguments (a failed spark-submit).
      event->message = MaskText(event->message);
      out.events.push_back(*std::move(event));
      ++taken;
    }
    list.continue_token = page->continue_token;
  } while (!list.continue_token.empty() && taken < max);
  if (!list.continue_token.empty()) out.truncated = true;
  co_return absl::OkStatus();
}

namespace {

// ListObjectEvents, its failure as the Events RPC reports it.
asio::awaitable<absl::Status> ObjectEvents(ExecutorContext& ex, std::string ns, std::string kind,
                                           std::string name, absl::Time rpc_deadline,
                                           JobEvents& out) {
  auto listing = ListObjectEvents(ex, ns, kind, name, rpc_deadline, out);
  absl::Status listed = co_await std::move(listing);
  if (listed.ok()) co_return listed;
  co_return FromKubernetes(
      listed, Rpc::kEvents,
      absl::StrCat("listing the events of ", ToAbsl(kind), " ", ToAbsl(ns), "/", ToAbsl(name)),
      rpc_deadline, absl::Now());
}

// The kept Events that the cluster no longer has (its own expire after an hour), by name.
void MergeKeptEvents(const std::vector<k8s::Event>& kept, JobEvents& out) {
  absl::flat_hash_set<std::string> seen;
  for (const k8s::Event& e : out.events) seen.insert(e.name);
  for (const k8s::Event& e : kept) {
    if (!seen.contains(e.name)) out.events.push_back(e);
  }
}

}  // namespace

// The application's events, then its driver pod's (the one Status and Output read). Once the
// driver is gone, its Events still in the cluster and those its kept record holds; once the
// application is gone too (its record went with it), the Events left of its drivers, found by
// the names the operator gives them. NOT_FOUND only when nothing at all is left.
asio::awaitable<absl::StatusOr<JobEvents>> Events(ExecutorContext& ex, spark::ExecutionId id,
                                                  absl::Time rpc_deadline) {
  // Each operation built in its own statement (see k8s/client.h).
  auto look_up = LookUp(ex, id.namespace_, id.name, rpc_deadline);
  auto app = co_await std::move(look_up);
  if (!app.ok() && !absl::IsNotFound(app.status())) co_return app.status();
  cache::AppPtr current = app.ok() ? *app : nullptr;
  JobEvents out;
  auto app_events = ObjectEvents(ex, id.namespace_, "SparkApplication", id.name, rpc_deadline, out);
  absl::Status listed = co_await std::move(app_events);
  if (!listed.ok()) co_return listed;
  // Set when the driver's Events are still to be found by its name.
  bool by_name = current == nullptr;
  std::optional<KeptRecord> kept;
  if (current != nullptr) {
    auto find_driver = FindDriver(ex, id.namespace_, id.name, current, rpc_deadline);
    auto driver = co_await std::move(find_driver);
    if (driver.ok() && driver->has_value()) {
      auto pod_events = ObjectEvents(ex, id.namespace_, "Pod", (*driver)->name, rpc_deadline, out);
      listed = co_await std::move(pod_events);
      if (!listed.ok()) co_return listed;
    } else if (driver.ok()) {
      // The driver is gone: its Events as the record kept them, and those still in the cluster.
      auto read = ReadKeptRecord(ex, id.namespace_, id.name, rpc_deadline);
      auto record = co_await std::move(read);
      if (record.ok()) kept = *std::move(record);
      if (kept && !kept->pod_name.empty()) {
        auto pod_events = ObjectEvents(ex, id.namespace_, "Pod", kept->pod_name, rpc_deadline, out);
        listed = co_await std::move(pod_events);
        if (!listed.ok()) co_return listed;
      } else {
        // A stopped job without a record, or with one that saw no pod (gone before any replica
        // looked). One that hasn't stopped has no driver yet, or between attempts.
        by_name = ex.backend->HasState(*current) && ex.backend->IsStopped(*current);
      }
    }
  }
  if (by_name) {
    auto named = NamedDriverEvents(ex, id.namespace_, id.name, rpc_deadline, out);
    listed = co_await std::move(named);
    if (!listed.ok()) co_return listed;
  }
  if (kept) MergeKeptEvents(kept->events, out);
  if (current == nullptr && out.events.empty()) co_return app.status();
  k8s::SortOldestFirst(out.events);
  co_return out;
}

}  // namespace coroutines

std::shared_ptr<RpcHandle> Executor::Events(std::string_view execution_id, absl::Time deadline,
                                            Done<JobEvents> done) {
  auto id = ctx_.ParseId(execution_id);
  if (!id.ok()) {
    done(id.status());
    return internal::FinishedHandle();
  }
  return internal::Spawn(
      ctx_.io,
      [this, id = *std::move(id), deadline]() mutable {
        return coroutines::Events(ctx_, std::move(id), deadline);
      },
      std::move(done));
}

}  // namespace kje::executor
