#pragma once

// What the gRPC edge needs of the job logic, and nothing more: one call per RPC, each answering
// through `done` exactly once, either inline before the call returns (bad input, or an answer that
// needs no I/O) or later on another thread; `done` must not block. The returned handle's Cancel()
// (any thread, idempotent) stops the work: `done` then gets CANCELLED. The edge's reactors are
// tested against a fake of this interface; Executor (executor.h) is the real one.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "async/cancellable.h"
#include "executor/list_filter.h"
#include "executor/log_request.h"
#include "k8s/event.h"
#include "spark/cancel_keep.h"
#include "spark/execution_id.h"
#include "spark/job_links.h"
#include "spark/job_status.h"
#include "spark/job_template.h"
#include "spark/log_tail.h"
#include "spark/run_details.h"
#include "spark/schedule.h"
#include "spark/waiting.h"

namespace kje::executor {

struct SubmitResult {
  std::string execution_id;
  bool adopted = false;
  // SubmitDryRun: the application (JSON) as the API server answered the dry run, or the one it
  // would adopt; sensitive values masked.
  std::string application;
};

struct JobResult {
  std::string execution_id;
  std::string namespace_;
  std::string name;
  std::string job_id;      // the job-id label; "" when absent
  std::string driver_pod;  // "" when none was looked up or found
  spark::JobStatusInfo info;
  spark::RunDetails details;
  spark::Waiting waiting;                // why it waits, once known past the grace period
  std::optional<absl::Time> created_at;  // the application's creationTimestamp
  // The deployment's link templates (the executor's, which outlive every answer); null: none.
  const spark::LinkTemplates* links = nullptr;
  // Where Output reads from, as far as the app says (executor/output_keep.h).
  spark::OutputSource output_source = spark::OutputSource::kNone;
  std::string output_note;  // why not kept, with kNotKept
  std::optional<int32_t> exit_code;
};

// A job's answer with every string borrowed: from a JobResult (ViewOf), or, for a Status the cache
// answers, from the cached application itself, so that a poller's Status copies none of them.
// Valid only while what it borrows from is.
struct JobView {
  std::string_view execution_id;
  spark::JobStatus status = spark::JobStatus::kQueued;
  std::optional<absl::Time> started_at;
  std::optional<absl::Time> finished_at;
  std::string_view operator_state;
  std::string_view message;
  std::string_view namespace_;
  std::string_view name;
  std::string_view driver_pod;
  std::string_view job_id;
  std::string_view spark_app_id;
  int64_t attempts = 0;
  std::string_view driver_ui_address;
  std::optional<absl::Time> deadline_at;
  spark::DeadlineKind deadline_exceeded = spark::DeadlineKind::kNone;
  spark::WaitingReason waiting_reason = spark::WaitingReason::kNone;
  std::string_view waiting_message;
  std::string_view queue;
  std::optional<absl::Time> created_at;
  const spark::LinkTemplates* links = nullptr;
  std::string_view cancel_reason;
  spark::OutputSource output_source = spark::OutputSource::kNone;
  std::string_view output_note;
  std::optional<int32_t> exit_code;
};

JobView ViewOf(const JobResult& result);
// What the link templates may use of a job.
spark::LinkValues LinkValuesOf(const JobView& view);
// JobInfo.links: the job's links whose values are known; none without templates.
std::vector<spark::JobLink> LinksOf(const JobView& view);
// A copy that owns its strings.
JobResult ToResult(const JobView& view);

struct JobPage {
  std::vector<JobResult> jobs;
  std::string next_page_token;  // "" on the last page
};

// Lines of a followed log, and how many were dropped before them because the caller was behind.
struct OutputBatch {
  std::vector<std::string> lines;
  int64_t dropped_lines = 0;
  // Where the batch ends in the log (spark/log_cursor.h), for a follow to resume after it.
  std::string cursor;
};

// The Kubernetes Events of a job's application and of its driver pod, oldest first.
struct JobEvents {
  std::vector<k8s::Event> events;
  // True when an object had more than the service returns of it (its oldest are returned).
  bool truncated = false;
};

// One answer of a running driver's Spark UI (see the ProxyUi RPC).
struct UiPage {
  int status_code = 0;
  std::string content_type;
  std::string body;
  std::string location;  // a redirect's target, relative to the UI's root when inside it
};

// A schedule (the operator's schedule resource) as the schedule RPCs answer it.
struct ScheduleResult {
  std::string schedule_id;  // its job-id label
  spark::Schedule schedule;
  std::vector<JobResult> runs;  // GetSchedule: the runs that exist, newest first, at most 100
  bool more_runs = false;       // GetSchedule: more runs exist than `runs` holds
  bool adopted = false;         // CreateSchedule: it existed already, made by the same request
};

struct SchedulePage {
  std::vector<ScheduleResult> schedules;  // without their runs
  std::string next_page_token;            // "" on the last page
};

struct RunNowResult {
  std::string execution_id;
  bool adopted = false;
};

// How a Cancel stops its job (CancelRequest's mode and reason).
struct CancelOptions {
  // nullopt: the deployment's cancelMode.
  std::optional<spark::CancelMode> mode;
  // As the caller gave it (checked and escaped by the executor); "" for none.
  std::string reason;
};

// Cancels one call; thread-safe, idempotent, harmless after completion.
using RpcHandle = async::Cancellable;

// Where a stream's messages go: the gRPC edge's reactor. The executor never has more than one
// write in flight: `written(ok)` (any thread, must not block) says it is out (false: the stream
// is broken), and only then does the next one start. So a caller that stops reading holds up
// nothing but its own stream.
template <class T>
class StreamWriter {
 public:
  virtual ~StreamWriter() = default;
  virtual void Write(T message, std::function<void(bool ok)> written) = 0;
};

// What StatusNow did with an id: answered at once (a cache hit that needs no request: the answer
// went to its callback), refused it (malformed or not allowed), or parsed and allowed it, for
// Status to look up: the id is parsed once either way.
struct StatusAnswered {};
using StatusLookup = std::variant<StatusAnswered, absl::Status, spark::ExecutionId>;

class JobExecutor {
 public:
  template <class T>
  using Done = std::function<void(absl::StatusOr<T>)>;

  virtual ~JobExecutor() = default;

  virtual std::shared_ptr<RpcHandle> Submit(std::string job_id, const std::string& metalake,
                                            const spark::SparkTemplate& job, absl::Time deadline,
                                            Done<SubmitResult> done) = 0;
  // Submit's every check and the API server's (a dryRun=All create), creating nothing: the
  // application it would create in `application`, or, as Submit would, ALREADY_EXISTS or the
  // existing application of the same job and template (`adopted`).
  virtual std::shared_ptr<RpcHandle> SubmitDryRun(std::string job_id, const std::string& metalake,
                                                  const spark::SparkTemplate& job,
                                                  absl::Time deadline, Done<SubmitResult> done) = 0;
  // Never blocks (the answer comes from the cache's immutable snapshot, if at all). `answer` is
  // called before StatusNow returns, only for StatusAnswered; its view is valid during the call.
  virtual StatusLookup StatusNow(std::string_view execution_id,
                                 absl::FunctionRef<void(const JobView&)> answer) const = 0;
  // The status of an id StatusNow returned.
  virtual std::shared_ptr<RpcHandle> Status(spark::ExecutionId id, absl::Time deadline,
                                            Done<JobResult> done) = 0;
  // true: cancellation was requested; false: the job had already stopped.
  // INVALID_ARGUMENT for a reason over spark::kMaxCancelReasonBytes.
  virtual std::shared_ptr<RpcHandle> Cancel(std::string_view execution_id,
                                            const CancelOptions& options, absl::Time deadline,
                                            Done<bool> done) = 0;
  // max_lines / max_bytes: 0 means the default; negative is INVALID_ARGUMENT. `log`: whose log
  // and which lines (see LogRequest).
  virtual std::shared_ptr<RpcHandle> Output(std::string_view execution_id, int64_t max_lines,
                                            int64_t max_bytes, const LogRequest& log,
                                            absl::Time deadline,
                                            Done<spark::LogTailResult> done) = 0;
  // A page of a namespace's jobs (see the ListJobs RPC).
  virtual std::shared_ptr<RpcHandle> ListJobs(const std::string& namespace_,
                                              const std::string& label_selector, int64_t page_size,
                                              const std::string& page_token,
                                              const ListFilter& filter, absl::Time deadline,
                                              Done<JobPage> done) = 0;
  // A page of the jobs of every namespace the server serves (ListJobs' all_namespaces): the
  // allow-list's namespaces one after another, or without one the whole cluster's.
  virtual std::shared_ptr<RpcHandle> ListAllNamespaces(const std::string& label_selector,
                                                       int64_t page_size,
                                                       const std::string& page_token,
                                                       const ListFilter& filter,
                                                       absl::Time deadline, Done<JobPage> done) = 0;
  // The events of a job (see the Events RPC).
  virtual std::shared_ptr<RpcHandle> Events(std::string_view execution_id, absl::Time deadline,
                                            Done<JobEvents> done) = 0;
  // One GET of the job's running driver's Spark UI (see the ProxyUi RPC); `path` with its
  // query, "" meaning "/".
  virtual std::shared_ptr<RpcHandle> ProxyUi(std::string_view execution_id, std::string path,
                                             absl::Time deadline, Done<UiPage> done) = 0;
  // Schedules (see the schedule RPCs); `ns` "" is the server's namespace. On an operator without
  // schedules each answers FAILED_PRECONDITION naming the operator.
  virtual std::shared_ptr<RpcHandle> CreateSchedule(
      std::string schedule_id, const std::string& metalake, const spark::SparkTemplate& job,
      const spark::ScheduleSpec& spec, absl::Time deadline, Done<ScheduleResult> done) = 0;
  virtual std::shared_ptr<RpcHandle> GetSchedule(const std::string& ns,
                                                 const std::string& schedule_id,
                                                 absl::Time deadline,
                                                 Done<ScheduleResult> done) = 0;
  // A page of a namespace's schedules that this service made, by name (see ListSchedules).
  virtual std::shared_ptr<RpcHandle> ListSchedules(const std::string& ns,
                                                   const std::string& label_selector,
                                                   int64_t page_size, const std::string& page_token,
                                                   absl::Time deadline,
                                                   Done<SchedulePage> done) = 0;
  // The fields `update` sets; a changed cron or time zone also clears status.nextRun for the
  // controller to compute again, and a schedule in FailedValidation has its state cleared to be
  // validated again (the same schedule, its runs kept).
  virtual std::shared_ptr<RpcHandle> UpdateSchedule(const std::string& ns,
                                                    const std::string& schedule_id,
                                                    const spark::ScheduleUpdate& update,
                                                    absl::Time deadline,
                                                    Done<ScheduleResult> done) = 0;
  // true: deleted; false: there was none.
  virtual std::shared_ptr<RpcHandle> DeleteSchedule(const std::string& ns,
                                                    const std::string& schedule_id, bool keep_runs,
                                                    absl::Time deadline, Done<bool> done) = 0;
  virtual std::shared_ptr<RpcHandle> RunScheduleNow(const std::string& ns,
                                                    const std::string& schedule_id,
                                                    const std::string& run_id, absl::Time deadline,
                                                    Done<RunNowResult> done) = 0;
  // First the current status of every job, then every change, to `writer` (see the WatchStatus
  // RPC). `done`: OK after the last job stopped, RESOURCE_EXHAUSTED when the caller fell too far
  // behind, or the error that ended it. `writer` must stay valid until `done` has been called.
  virtual std::shared_ptr<RpcHandle> WatchStatus(const std::vector<std::string>& execution_ids,
                                                 absl::Time deadline,
                                                 StreamWriter<JobResult>* writer,
                                                 std::function<void(absl::Status)> done) = 0;
  // The driver log as it grows, in batches of lines (see the FollowOutput RPC); `done` once, OK
  // when the log ended. `resume`: a batch's cursor, to continue after it ("" for none).
  virtual std::shared_ptr<RpcHandle> FollowOutput(std::string_view execution_id, int64_t tail_lines,
                                                  std::string_view resume, const LogRequest& log,
                                                  absl::Time deadline,
                                                  StreamWriter<OutputBatch>* writer,
                                                  std::function<void(absl::Status)> done) = 0;
};

}  // namespace kje::executor
