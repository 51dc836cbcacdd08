#pragma once

// What the executor's translation units share: the cancellable chain of calls behind one RPC and
// the mapping of Kubernetes failures to what a caller sees. Not part of the executor's interface.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "server/spark_executor.h"
#include "spark/app_projection.h"

namespace kje::server {

// One RPC's chain of Kubernetes calls. Cancel() (any thread) cancels the call in flight and
// keeps any further one from starting: the chain then ends with CANCELLED.
class SparkExecutor::Op final : public k8s::CallHandle {
 public:
  void Cancel() override {
    std::shared_ptr<k8s::CallHandle> current;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      current = current_;
    }
    if (current) current->Cancel();
  }

  // Starts the next call unless cancelled; returns false (and starts nothing) when cancelled.
  // The client never runs a completion inline, so starting under the lock can't deadlock.
  template <typename Start>
  bool Step(Start start) {
    absl::MutexLock lock(&mu_);
    if (cancelled_) return false;
    current_ = start();
    return true;
  }

 private:
  absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::shared_ptr<k8s::CallHandle> current_ ABSL_GUARDED_BY(mu_);
};

namespace executor_internal {

inline absl::Status CancelledStatus() { return absl::CancelledError("the call was cancelled"); }

// A failed call to the API server, as the caller of an RPC sees it: its own deadline or
// cancellation as such; anything else means "the cluster can't answer now, retry".
inline absl::Status Upstream(const absl::Status& status, const std::string& what) {
  if (absl::IsCancelled(status) || absl::IsDeadlineExceeded(status)) return status;
  return absl::UnavailableError(absl::StrCat(what, ": ", status.message()));
}

inline absl::StatusOr<spark::AppProjection> Project(const std::string& json) {
  auto app = spark::ProjectAppJson(json);
  if (!app.ok()) {
    return absl::InternalError(absl::StrCat(
        "the API server returned an unreadable SparkApplication: ", app.status().message()));
  }
  return app;
}

}  // namespace executor_internal
}  // namespace kje::server
