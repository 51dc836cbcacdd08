#pragma once

// What the executor's coroutines share: how a call becomes a coroutine on a strand, and whether
// it was cancelled. Asio-heavy; the executor's .cc files only.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <functional>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "async/strand_task.h"
#include "executor/executor.h"
#include "executor/kept_record.h"

namespace kje::executor::internal {

namespace asio = boost::asio;

// Runs `make()` (which returns the coroutine, an awaitable of absl::Status or absl::StatusOr<T>)
// on a new strand; `done` gets its result there.
template <class Make, class Done>
std::shared_ptr<RpcHandle> Spawn(asio::io_context& io, Make make, Done done) {
  return async::StrandTask::Spawn(asio::make_strand(io), make(), std::move(done));
}

// The operator's applications in `ns` (every one: no name).
inline k8s::ResourceRef AppsIn(const ExecutorContext& ex, std::string_view ns) {
  const spark::ResourceKind kind = ex.backend->Applications();
  return k8s::CollectionRef(kind.group, kind.version, kind.plural, ns);
}

// A handle for a call that finished inline.
class Finished final : public RpcHandle {
 public:
  void Cancel() override {}
};

// One handle serves every call answered inline: there is nothing to cancel.
inline std::shared_ptr<RpcHandle> FinishedHandle() {
  static const auto* const kFinished = new std::shared_ptr<RpcHandle>(std::make_shared<Finished>());
  return *kFinished;
}

using async::Cancelled;

// Answers a call inline: `done` before the call returns.
template <class T>
std::shared_ptr<RpcHandle> Answer(const std::function<void(absl::StatusOr<T>)>& done,
                                  absl::StatusOr<T> result) {
  done(std::move(result));
  return FinishedHandle();
}

// Whether a template names staged files whose URIs aren't looked up yet (staged_submit.cc).
bool NeedsStagedLookup(const spark::SparkTemplate& job);

}  // namespace kje::executor::internal

namespace kje::executor {

namespace asio = boost::asio;

// The coroutines the stream loops (streams.cc) share with the unary RPCs (executor.cc).
namespace coroutines {

// "namespace/name", as logs and messages name an object.
std::string Where(std::string_view ns, std::string_view name);
// The application `ns`/`name` of the operator.
k8s::ResourceRef AppRef(const ExecutorContext& ex, std::string_view ns, std::string_view name);
// GET the application (fresh: never from the cache); NOT_FOUND when it doesn't exist.
asio::awaitable<absl::StatusOr<cache::AppPtr>> Fetch(ExecutorContext& ex, std::string ns,
                                                     std::string name, absl::Time rpc_deadline);
// Stops the job of `app` for the deadline `kind` that has passed: marks it, valid only at the
// app's resourceVersion so that one replica decides, and deletes it as Cancel does. The app as it
// is afterwards: marked, or as whoever changed it first left it (judge it again); NOT_FOUND when
// it is gone.
asio::awaitable<absl::StatusOr<cache::AppPtr>> StopForDeadline(ExecutorContext& ex,
                                                               cache::AppPtr app,
                                                               spark::DeadlineKind kind,
                                                               absl::Time rpc_deadline);
// Deletes an app the service stopped for a deadline (a stop whose deletion failed or was cut
// short is finished by whoever sees the mark next); errors are logged, never returned.
asio::awaitable<void> FinishDeadlineStop(ExecutorContext& ex, cache::AppPtr app,
                                         absl::Time rpc_deadline);
// The app through the cache when it knows it, else a GET.
asio::awaitable<absl::StatusOr<cache::AppPtr>> LookUp(ExecutorContext& ex, std::string ns,
                                                      std::string name, absl::Time rpc_deadline);
// Creates the Secret of a job's environment variables (`app.env_secret_*`), or adopts the one a
// previous attempt of the same job created (409 and the same job-id label): true when this call
// created it. The values are in the request only; no error or log line carries them.
asio::awaitable<absl::StatusOr<bool>> CreateEnvironmentSecret(ExecutorContext& ex,
                                                              const spark::BuiltApplication& app,
                                                              std::string_view job_id,
                                                              absl::Time rpc_deadline);
// Makes the application (`uid`) the Secret's owner, so that the garbage collector removes the
// Secret with it.
asio::awaitable<absl::Status> OwnEnvironmentSecret(ExecutorContext& ex,
                                                   const spark::BuiltApplication& app,
                                                   std::string uid, absl::Time rpc_deadline);
// Deletes the Secret a refused application would have read (best effort: logged, not returned).
asio::awaitable<void> DeleteEnvironmentSecret(ExecutorContext& ex,
                                              const spark::BuiltApplication& app,
                                              absl::Time rpc_deadline);
// Submit's dry run of a built application (dry_run.cc).
asio::awaitable<absl::StatusOr<SubmitResult>> SubmitDryRun(ExecutorContext& ex,
                                                           spark::BuiltApplication app,
                                                           std::string job_id,
                                                           std::string template_name,
                                                           absl::Time rpc_deadline);
// The driver pod the backend picks among the app's (`app` as last seen, null when unknown):
// nullopt when there is none, an error when the LIST failed.
asio::awaitable<absl::StatusOr<std::optional<spark::DriverPod>>> FindDriver(
    ExecutorContext& ex, std::string ns, std::string app_name, cache::AppPtr app,
    absl::Time rpc_deadline);
// The Events whose involved object is `kind` `name`, appended to `out` in the API server's order,
// at most options.max_events_per_object of them (`out.truncated` when there were more); the
// Kubernetes error as it came.
asio::awaitable<absl::Status> ListObjectEvents(ExecutorContext& ex, std::string ns,
                                               std::string kind, std::string name,
                                               absl::Time rpc_deadline, JobEvents& out);
// NamedDriverEvents looks at the drivers of at most this many attempts.
inline constexpr int64_t kMaxDriverAttemptsProbed = 10;
// The Events of application `app_name`'s driver pods, found by the names the backend gives each
// attempt's driver (the pods and the application may be gone), appended to `out`: attempt 0's,
// then each next attempt's while its driver had Events, at most kMaxDriverAttemptsProbed. The
// Events RPC's error when a LIST fails.
asio::awaitable<absl::Status> NamedDriverEvents(ExecutorContext& ex, std::string ns,
                                                std::string app_name, absl::Time rpc_deadline,
                                                JobEvents& out);
// Why the job of `app` (mapped to `info`) waits: remembered, or looked up and remembered.
asio::awaitable<spark::Waiting> WaitingOf(ExecutorContext& ex, cache::AppPtr app,
                                          spark::JobStatusInfo info, absl::Time rpc_deadline);
// The kept record of application `ns`/`name`: nullopt when there is none (404); the error
// otherwise.
asio::awaitable<absl::StatusOr<std::optional<KeptRecord>>> ReadKeptRecord(ExecutorContext& ex,
                                                                          std::string ns,
                                                                          std::string name,
                                                                          absl::Time rpc_deadline);
// The record of `app`'s job as it stands: its driver's log tail and end, the last Events; an
// error when the driver or the Events can't be listed.
asio::awaitable<absl::StatusOr<KeptRecord>> CaptureRecord(ExecutorContext& ex, cache::AppPtr app,
                                                          absl::Time deadline);
// Writes `record` as `app`'s (`create`; a 409 is another replica's, which labels the app) and
// labels the app with what it holds.
asio::awaitable<absl::Status> WriteRecord(ExecutorContext& ex, cache::AppPtr app,
                                          const KeptRecord& record, bool create,
                                          absl::Time deadline);
// What Output answers from a record read (ReadKeptRecord): its tail, or that none was kept;
// nothing when there is no record or it couldn't be read (best effort, as all output).
spark::LogTailResult KeptOutputOf(const absl::StatusOr<std::optional<KeptRecord>>& record,
                                  int64_t max_lines, int64_t max_bytes);
// executor/pod_log.cc: kubectl logs' options a request asks for, on a pod log request.
void ApplyLogRequest(const LogRequest& log, k8s::LogOptions& options);
// The newest live pod of Spark executor `executor_id` of app `ns`/`app_name`; nullopt when none.
asio::awaitable<absl::StatusOr<std::optional<spark::DriverPod>>> FindExecutorPod(
    ExecutorContext& ex, std::string ns, std::string app_name, int executor_id,
    absl::Time rpc_deadline);
// The tail of `pod`'s log as `log` asks, masked. A failed read is an empty answer for the
// driver's current log (best effort), the Kubernetes error otherwise (log.Specific()).
asio::awaitable<absl::StatusOr<spark::LogTailResult>> ReadPodLog(
    ExecutorContext& ex, std::string ns, spark::DriverPod pod, int64_t max_lines,
    spark::LogTail tail, LogRequest log, absl::Time rpc_deadline);
// Output of an executor's pod (log.executor >= 1): NOT_FOUND when it has no live pod.
asio::awaitable<absl::StatusOr<spark::LogTailResult>> ExecutorOutput(
    ExecutorContext& ex, spark::ExecutionId id, int64_t max_lines, spark::LogTail tail,
    LogRequest log, absl::Time rpc_deadline);
// The driver of a stopped app, remembered per resourceVersion; nullopt when unknown.
asio::awaitable<std::optional<std::optional<spark::DriverPod>>> StoppedDriver(
    ExecutorContext& ex, cache::AppPtr app, absl::Time rpc_deadline);

}  // namespace coroutines

}  // namespace kje::executor
