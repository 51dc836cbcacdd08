#pragma once

// Keep mode's stops (spark/cancel_keep.h) as the executor's coroutines: mark the application
// with the resourceVersion the stop was decided on, then delete the pods the operator leaves to
// us. Asio-heavy; the executor's .cc files only.

#include <boost/asio/awaitable.hpp>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cache/app_cache.h"
#include "executor/executor.h"
#include "spark/cancel_keep.h"

namespace kje::executor {

// A kept stop whose pods still run this long after its mark is finished again by whoever looks
// (the replica that marked it may have died before deleting them); the Apache operator takes up to
// 75 s to see a deleted driver.
inline constexpr absl::Duration kKeptStopRetry = absl::Minutes(2);

// A deadline stop in delete mode whose deletion hasn't happened yet.
bool DeadlineDeleteUnfinished(const spark::AppProjection& app);
// A kept stop (of `app` mapped to `info`) that owes a finish: the operator has stopped the run
// (the pods it leaves behind, e.g. executors a driver made again while it was being stopped, are
// then deleted once, and the app marked done), or it has been unfinished for longer than
// kKeptStopRetry (the replica that marked it may have died before deleting its pods).
bool KeptStopOwesFinish(const spark::AppProjection& app, const spark::JobStatusInfo& info,
                        absl::Time now);

namespace coroutines {

// What a kept stop is for: a Cancel (with its reason, checked and escaped) or a deadline.
struct KeptStopAsk {
  bool cancel = false;
  std::string reason;
  spark::DeadlineKind deadline = spark::DeadlineKind::kNone;
};

// Marks `app` (as last seen) for a kept stop and stops its run. The app as marked, or as it is
// when the job turned out stopped already or marked by someone else (judge it again); NOT_FOUND
// when it is gone. `rpc` names the RPC whose codes a Kubernetes error takes.
boost::asio::awaitable<absl::StatusOr<cache::AppPtr>> KeepStop(ExecutorContext& ex,
                                                               cache::AppPtr app, KeptStopAsk ask,
                                                               absl::Time rpc_deadline);
// Finishes a stop KeptStopOwesFinish names: its pods deleted, and the app marked done once the
// operator has stopped the run. Errors are logged, never returned (the next look tries again).
boost::asio::awaitable<void> FinishKeptStop(ExecutorContext& ex, cache::AppPtr app,
                                            spark::JobStatusInfo info, absl::Time rpc_deadline);
// Deletes the pods the backend names for a kept stop of `app`; errors are logged and returned.
boost::asio::awaitable<absl::Status> DeleteKeptStopPods(ExecutorContext& ex, cache::AppPtr app,
                                                        absl::Time rpc_deadline);

}  // namespace coroutines
}  // namespace kje::executor
