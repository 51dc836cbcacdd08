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
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "cache/app_cache.h"
#include "k8s/client.h"
#include "spark/app_builder.h"
#include "spark/driver_pod.h"
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
  std::string job_id;      // the job-id label; "" when absent
  std::string driver_pod;  // "" when none was looked up or found
  spark::JobStatusInfo info;
};

struct JobPage {
  std::vector<JobResult> jobs;
  std::string next_page_token;  // "" on the last page
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

  // Pushes each change of the jobs' statuses to `on_change` (see the WatchStatus RPC): first the
  // current status of every job, then every change, from the informer. `on_change` is called one
  // at a time, in order, possibly on different threads, and must not block or call back into the
  // executor. `done` is called once: OK after the last job stopped, or the error that ended it.
  std::shared_ptr<k8s::CallHandle> WatchStatus(const std::vector<std::string>& execution_ids,
                                               absl::Time deadline,
                                               std::function<void(const JobResult&)> on_change,
                                               const std::function<void(absl::Status)>& done);

  // The driver log as it grows (see the FollowOutput RPC): chunks of bytes, not lines, to
  // `on_chunk` (one at a time, must not block); `done` once, OK when the log ended.
  std::shared_ptr<k8s::CallHandle> FollowOutput(const std::string& execution_id, int64_t tail_lines,
                                                absl::Time deadline,
                                                std::function<void(std::string_view)> on_chunk,
                                                std::function<void(absl::Status)> done);

  // A page of a namespace's jobs (see the ListJobs RPC).
  std::shared_ptr<k8s::CallHandle> ListJobs(const std::string& namespace_,
                                            const std::string& label_selector, int64_t page_size,
                                            const std::string& page_token, absl::Time deadline,
                                            Done<JobPage> done);

 private:
  class Op;
  class Watch;
  class Follow;
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
  // The newest driver pod of `app_name`, or nullopt: none (listed = true), or the LIST failed
  // (logged) or was cancelled (listed = false). Called inline when `op` is cancelled.
  using DriverCallback = std::function<void(std::optional<spark::DriverPod>, bool listed)>;
  void FindDriver(const std::shared_ptr<Op>& op, const std::string& ns, const std::string& app_name,
                  absl::Time deadline, DriverCallback then);
  void MapAndFinish(const std::shared_ptr<StatusCall>& call);
  void FinishStatus(const std::shared_ptr<StatusCall>& call);

  // The driver a stopped app had when it was at this resourceVersion, if recorded (nullopt), or
  // that it had none.
  std::optional<std::optional<spark::DriverPod>> KnownDriverOf(const spark::AppProjection& app);
  void RememberDriver(const spark::AppProjection& app,
                      const std::optional<spark::DriverPod>& driver);

  const std::shared_ptr<k8s::Client> client_;
  cache::AppCache& cache_;
  const ExecutorOptions options_;
  const Clock& clock_;

  // The driver pods of stopped applications by app uid, valid while the app keeps the recorded
  // resourceVersion: a stopped app's terminated driver no longer changes until the app does (the
  // pod's removal moves it to ResourceReleased), so Status of a finished job needs no pod LIST.
  struct KnownDriver {
    std::string resource_version;
    std::optional<spark::DriverPod> driver;
  };
  static constexpr size_t kMaxKnownDrivers = 200000;
  absl::Mutex drivers_mu_;
  absl::flat_hash_map<std::string, KnownDriver> known_drivers_ ABSL_GUARDED_BY(drivers_mu_);
};

}  // namespace kje::server
