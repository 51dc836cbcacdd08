// The log a request names (executor/log_request.h), read from its pod: the driver's or a Spark
// executor's, with kubectl logs' since, timestamps and previous passed to the pod log request.

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/mask.h"
#include "executor/error_table.h"
#include "executor/internal.h"
#include "k8s/errors.h"
#include "spark/pod_template.h"

namespace kje::executor::coroutines {

namespace {

k8s::ResourceRef PodOf(std::string_view ns, std::string_view name) {
  return k8s::CoreRef("pods", ns, name);
}

}  // namespace

void ApplyLogRequest(const LogRequest& log, k8s::LogOptions& options) {
  if (log.timestamps) options.timestamps = true;
  if (log.since_seconds > 0) options.since_seconds = log.since_seconds;
  options.previous = log.previous;
}

asio::awaitable<absl::StatusOr<std::optional<spark::DriverPod>>> FindExecutorPod(
    ExecutorContext& ex, std::string ns, std::string app_name, int executor_id,
    absl::Time rpc_deadline) {
  k8s::ListOptions list;
  list.label_selector = ex.backend->ExecutorSelector(app_name, executor_id);
  auto list_pods = ex.client->List(PodOf(ns, ""), list, ex.Deadline(rpc_deadline));
  auto page = co_await std::move(list_pods);
  if (!page.ok()) co_return page.status();
  std::vector<spark::DriverPod> pods;
  for (const k8s::ParsedJson& item : page->items) {
    // The projection of a driver pod serves an executor's as well: its name, uid, containers.
    auto pod = spark::ProjectDriverPod(item.value(), spark::kExecutorContainerName);
    if (pod.ok() && !pod->deleting) pods.push_back(*std::move(pod));
  }
  // A restarted attempt's executor may share its id with the previous one's, still terminating.
  const spark::DriverPod* newest = spark::PickNewestDriver(pods);
  co_return newest != nullptr ? std::optional<spark::DriverPod>(*newest) : std::nullopt;
}

asio::awaitable<absl::StatusOr<spark::LogTailResult>> ReadPodLog(
    ExecutorContext& ex, std::string ns, spark::DriverPod pod, int64_t max_lines,
    spark::LogTail tail, LogRequest log, absl::Time rpc_deadline) {
  k8s::LogOptions options;
  // One line more than wanted: if it comes, older lines exist and the answer says so.
  options.tail_lines = max_lines + 1;
  if (auto container = spark::LogContainer(pod)) options.container = *container;
  ApplyLogRequest(log, options);
  // Streamed through the bounded tail: memory stays within max_bytes however long the lines
  // are (tailLines bounds lines, not bytes). The chunks arrive one at a time, before the end.
  auto shared_tail = std::make_shared<spark::LogTail>(std::move(tail));
  // Named, and the operation built before the co_await (see k8s/client.h).
  k8s::Client::ChunkCallback feed = [shared_tail](std::string_view chunk) {
    shared_tail->Feed(chunk);
  };
  auto stream = ex.client->StreamLog(PodOf(ns, pod.name), options, ex.Deadline(rpc_deadline),
                                     std::move(feed));
  absl::Status streamed = co_await std::move(stream);
  if (!streamed.ok()) {
    // What was asked beyond the driver's current log is the caller's to know (no previous run,
    // an executor gone); the driver's own log is best effort, as all output.
    if (log.Specific()) {
      co_return FromKubernetes(streamed, Rpc::kOutput,
                               absl::StrCat("reading the log of pod ", Where(ns, pod.name)),
                               rpc_deadline, absl::Now());
    }
    log::Warn("can't read the driver log")
        .Kv("pod", Where(ns, pod.name))
        .Kv("error", std::string(streamed.message()));
    co_return spark::LogTailResult{};
  }
  spark::LogTailResult result = shared_tail->Finish();
  // A job may log its own arguments or conf: their sensitive values are masked here too.
  for (std::string& line : result.lines) line = MaskText(line);
  result.source = spark::OutputSource::kLive;
  co_return result;
}

asio::awaitable<absl::StatusOr<spark::LogTailResult>> ExecutorOutput(
    ExecutorContext& ex, spark::ExecutionId id, int64_t max_lines, spark::LogTail tail,
    LogRequest log, absl::Time rpc_deadline) {
  auto found = co_await FindExecutorPod(ex, id.namespace_, id.name, log.executor, rpc_deadline);
  if (!found.ok()) {
    co_return FromKubernetes(
        found.status(), Rpc::kOutput,
        absl::StrCat("listing the executor pods of ", Where(id.namespace_, id.name)), rpc_deadline,
        absl::Now());
  }
  if (!found->has_value()) {
    co_return absl::NotFoundError(absl::StrCat(
        "no pod of executor ", log.executor, " of ", Where(id.namespace_, id.name),
        ": executor logs come from live pods only (the job keeps its driver's tail alone)"));
  }
  co_return co_await ReadPodLog(ex, id.namespace_, **std::move(found), max_lines, std::move(tail),
                                log, rpc_deadline);
}

}  // namespace kje::executor::coroutines
