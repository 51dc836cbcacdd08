// Why a queued job waits: what its application says by itself, else its driver pod's state and
// the Events of the pod and the application, looked up once per application version and at
// most once per refresh interval, and remembered (WaitingMemo). A lookup that fails leaves the
// reason to what the application says: a Status never fails for want of one.

#include "spark/waiting.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/strings.h"
#include "executor/executor.h"
#include "executor/internal.h"
#include "k8s/resource.h"

namespace kje::executor {

namespace asio = boost::asio;

bool ExecutorContext::OwesWaiting(const spark::AppProjection& app,
                                  const spark::JobStatusInfo& info) const {
  if (info.deleting) return false;
  if (info.status == spark::JobStatus::kStarted) {
    // Executors take a moment to come once the driver runs: the grace counts from its start.
    return !info.executors_pending.empty() && info.started_at &&
           clock.Now() - *info.started_at >= options.waiting_grace;
  }
  if (info.status != spark::JobStatus::kQueued) return false;
  if (app.creation_time() == spark::kNoTime) return true;
  return clock.Now() - absl::FromUnixMillis(app.creation_time()) >= options.waiting_grace;
}

namespace {

// The operator's status says it all (no status yet; executors not all running): no lookup.
bool NeedsNoLookup(const spark::Waiting& from_app) {
  return from_app.reason == spark::WaitingReason::kNoOperator ||
         from_app.reason == spark::WaitingReason::kExecutorsPending;
}

}  // namespace

std::optional<spark::Waiting> ExecutorContext::KnownWaiting(
    const spark::AppProjection& app, const spark::JobStatusInfo& info) const {
  if (!OwesWaiting(app, info)) return spark::Waiting{};
  spark::Waiting from_app = spark::AppWaiting(app, info, backend->HasState(app));
  if (NeedsNoLookup(from_app)) return from_app;
  return waiting_memo.Fresh(app.uid(), app.resource_version(), clock.Now());
}

namespace coroutines {
namespace {

std::vector<spark::WaitingEvent> ToWaitingEvents(std::vector<k8s::Event> events) {
  std::vector<spark::WaitingEvent> out;
  out.reserve(events.size());
  for (k8s::Event& event : events) {
    out.push_back(spark::WaitingEvent{std::move(event.object_kind), std::move(event.reason),
                                      std::move(event.type), std::move(event.message),
                                      event.last_seen});
  }
  return out;
}

// What Kueue's Workload of a queued job says while it isn't admitted; nullopt when there is none
// or it can't be read (logged: the reason stands without it).
asio::awaitable<std::optional<std::string>> KueueMessage(ExecutorContext& ex,
                                                         const spark::AppProjection& app,
                                                         absl::Time rpc_deadline) {
  k8s::ListOptions list;
  list.label_selector = absl::StrCat(ToAbsl(spark::kLabelKueueJobUid), "=", ToAbsl(app.uid()));
  list.limit = 10;
  auto listing = ex.client->List(
      k8s::CollectionRef("kueue.x-k8s.io", "v1beta1", "workloads", app.namespace_()), list,
      ex.Deadline(rpc_deadline));
  auto page = co_await std::move(listing);
  if (!page.ok()) {
    log::Warn("can't list the Kueue workload of a queued job")
        .Kv("app", Where(app.namespace_(), app.name()))
        .Kv("error", std::string(page.status().message()));
    co_return std::nullopt;
  }
  for (const k8s::ParsedJson& item : page->items) {
    if (auto message = spark::KueuePendingMessage(item.value())) co_return message;
  }
  co_return std::nullopt;
}

// The lookup itself: the driver (when the operator has made one) and the Events.
asio::awaitable<spark::Waiting> LookUpWaiting(ExecutorContext& ex, cache::AppPtr app,
                                              spark::Waiting from_app, absl::Time rpc_deadline) {
  const std::string ns(app->namespace_());
  const std::string name(app->name());
  std::optional<spark::DriverPod> driver;
  if (ex.backend->HasState(*app)) {
    auto find_driver = FindDriver(ex, ns, name, app, rpc_deadline);
    auto found = co_await std::move(find_driver);
    if (!found.ok()) co_return from_app;  // FindDriver logged it
    driver = *std::move(found);
  }
  JobEvents events;
  auto app_events = ListObjectEvents(ex, ns, "SparkApplication", name, rpc_deadline, events);
  absl::Status listed = co_await std::move(app_events);
  if (listed.ok() && driver) {
    auto pod_events = ListObjectEvents(ex, ns, "Pod", driver->name, rpc_deadline, events);
    listed = co_await std::move(pod_events);
  }
  if (!listed.ok()) {
    log::Warn("can't list the events of a waiting job")
        .Kv("app", Where(app->namespace_(), app->name()))
        .Kv("error", std::string(listed.message()));
    co_return from_app;
  }
  const std::vector<spark::WaitingEvent> waiting_events = ToWaitingEvents(std::move(events.events));
  spark::WaitingInputs inputs;
  inputs.driver = driver ? &*driver : nullptr;
  inputs.events = &waiting_events;
  inputs.operator_reason = ex.backend->WaitingEventReasons();
  // Kueue's own verdict on a job held for it, where the deployment reads Workloads (queues on
  // with Kueue: the chart grants it).
  std::optional<std::string> kueue_message;
  if (from_app.reason == spark::WaitingReason::kQueueAdmission &&
      ex.options.builder.queue_scheduler == spark::QueueScheduler::kKueue) {
    auto kueue = KueueMessage(ex, *app, rpc_deadline);
    kueue_message = co_await std::move(kueue);
  }
  inputs.app = std::move(from_app);
  spark::Waiting waiting = spark::ReadWaiting(inputs);
  if (waiting.reason == spark::WaitingReason::kQueueAdmission && kueue_message) {
    waiting.message = *std::move(kueue_message);
  }
  if (driver) waiting.pod = driver->name;
  co_return waiting;
}

}  // namespace

asio::awaitable<spark::Waiting> WaitingOf(ExecutorContext& ex, cache::AppPtr app,
                                          spark::JobStatusInfo info, absl::Time rpc_deadline) {
  spark::Waiting from_app = spark::AppWaiting(*app, info, ex.backend->HasState(*app));
  if (NeedsNoLookup(from_app)) {
    // Remembered for the metric only: nothing was looked up.
    ex.waiting_memo.Remember(app->uid(), app->resource_version(), ex.clock.Now(), from_app);
    co_return from_app;
  }
  if (auto known = ex.waiting_memo.Fresh(app->uid(), app->resource_version(), ex.clock.Now())) {
    co_return *std::move(known);
  }
  auto look_up = LookUpWaiting(ex, app, std::move(from_app), rpc_deadline);
  spark::Waiting waiting = co_await std::move(look_up);
  ex.waiting_memo.Remember(app->uid(), app->resource_version(), ex.clock.Now(), waiting);
  co_return waiting;
}

}  // namespace coroutines

}  // namespace kje::executor
