#pragma once

// The SparkApplication executor behind the gRPC API: Submit, Status, Cancel and Output as the
// Java k8s executor does them (reference/gravitino-k8s-executor.md §3.5–§3.9), over the
// asynchronous Kubernetes client and the informer cache. It keeps no state of its own: every
// answer comes from the Kubernetes resources, so any replica answers for any job.
//
// Every operation is asynchronous: it returns a handle that cancels it (the RPC was cancelled)
// and calls `done` exactly once, on an io_context thread.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "cache/app_cache.h"
#include "k8s/client.h"
#include "spark/app_builder.h"
#include "spark/log_tail.h"
#include "spark/status_mapping.h"

namespace kje::server {

struct ExecutorOptions {
  spark::BuilderOptions builder;
  absl::Duration no_status_timeout = absl::Minutes(10);
  // Submit refuses other namespaces; empty: any.
  std::vector<std::string> allowed_namespaces;
  // The longest any Kubernetes call of one RPC may take, whatever the RPC's own deadline.
  absl::Duration request_timeout = absl::Seconds(30);
  int64_t default_max_lines = 1000;
  int64_t default_max_bytes = 262144;
  // Output requests are capped here, so a caller can't make the service hold a huge log.
  int64_t max_output_bytes = 8 << 20;
};

struct SubmitResult {
  std::string execution_id;
  bool adopted = false;
};

struct JobResult {
  std::string execution_id;
  std::string namespace_;
  std::string name;
  std::string driver_pod;  // "" when none was looked up or found
  spark::JobStatusInfo info;
};

class SparkExecutor {
 public:
  template <class T>
  using Done = std::function<void(absl::StatusOr<T>)>;

  SparkExecutor(std::shared_ptr<k8s::Client> client, cache::AppCache& cache,
                ExecutorOptions options, const Clock& clock);

  const ExecutorOptions& options() const { return options_; }

  std::shared_ptr<k8s::CallHandle> Submit(std::string job_id, const std::string& metalake,
                                          const spark::SparkTemplate& job, absl::Time deadline,
                                          Done<SubmitResult> done);
  std::shared_ptr<k8s::CallHandle> Status(const std::string& execution_id, absl::Time deadline,
                                          Done<JobResult> done);
  // OK (a monostate) when cancellation was requested or the job had already stopped.
  std::shared_ptr<k8s::CallHandle> Cancel(const std::string& execution_id, absl::Time deadline,
                                          Done<bool> done);
  // max_lines / max_bytes: 0 means the default; negative is INVALID_ARGUMENT.
  std::shared_ptr<k8s::CallHandle> Output(const std::string& execution_id, int64_t max_lines,
                                          int64_t max_bytes, absl::Time deadline,
                                          Done<spark::LogTailResult> done);

 private:
  class Op;
  struct StatusCall;

  absl::Time Deadline(absl::Time rpc_deadline) const;
  // What the API server returned for a write of ours, if it is an application, becomes visible to
  // the next read on this replica.
  void ObserveReturned(const std::string& json);
  k8s::ResourceRef AppRef(const std::string& ns, const std::string& name) const;
  k8s::ResourceRef PodsRef(const std::string& ns) const;

  // GET the application, through the cache when it knows it.
  void LookUp(const std::shared_ptr<Op>& op, const std::string& ns, const std::string& name,
              bool fresh, absl::Time deadline,
              std::function<void(absl::StatusOr<spark::AppProjection>)> then);
  // The newest driver pod of `app_name`, or nullopt (none, or the LIST failed: logged).
  void FindDriver(const std::shared_ptr<Op>& op, const std::string& ns, const std::string& app_name,
                  absl::Time deadline, std::function<void(std::optional<spark::DriverPod>)> then);
  void MapAndFinish(const std::shared_ptr<StatusCall>& call);
  void FinishStatus(const std::shared_ptr<StatusCall>& call);

  const std::shared_ptr<k8s::Client> client_;
  cache::AppCache& cache_;
  const ExecutorOptions options_;
  const Clock& clock_;
};

}  // namespace kje::server
