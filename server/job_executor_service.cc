#include "server/job_executor_service.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "base/tsan.h"
#include "server/job_info.h"
#include "server/metrics.h"
#include "server/rpc_context.h"
#include "server/status_mapping.h"
#include "server/status_wire.h"
#include "spark/log_tail.h"

namespace kje::server {

// What every reactor of ours shares, unary or streaming: it lives until both gRPC is done with it
// (OnDone) and the code that started the work has attached the work's cancel handle, whichever is
// last, since the work may finish, and gRPC call OnDone, before Attach runs. A cancel from gRPC
// (the caller gave up, its deadline passed, the server is shutting down) reaches the work however
// early it comes.
//
// Who may touch a reactor, and until when. The threads that do are three: the handler's (it makes
// the reactor and attaches the work), the work's completion (an io thread: StartWrite and the one
// Finish) and gRPC's (the reactions). The reactor is freed by whichever of OnDone and Attach comes
// last, and OnDone is gRPC's last reaction: gRPC runs it only after the handler has returned the
// reactor, after Finish has been called, and after every other reaction of the call has returned.
// So what must hold is that no code of ours touches the reactor after the call that lets gRPC run
// OnDone:
// - Finish (in Complete and End) is the last thing either does: the status is moved into it, the
//   line is a value of its own (RpcContext::FinishLine keeps nothing of the call's), and the
//   completion callbacks of the handlers below end with Complete or End and hold nothing else of
//   the reactor's. The admission ticket is given back before Finish.
// - StartWrite hands message_ to gRPC, which serialises it before it returns; the next Write comes
//   only after OnWriteDone has run `written` (one write in flight), and End after a write that is
//   still out is allowed (gRPC sends the status after it): message_ is not touched again.
// - A reaction (OnCancel, OnWriteDone) touches the reactor only until it returns, and OnDone comes
//   after it returns.
// - Attach's own access ends with the reference it gives up: an atomic read-modify-write, which
//   orders it before the delete by whichever thread drops the last reference.
// gRPC's ordering of Finish and the reactions before OnDone lives in its uninstrumented library,
// where ThreadSanitizer can't see it: each hand-off to gRPC (HandOff) and the end of each reaction
// (Reaction) releases the reactor's address, and each reaction acquires it first, which tells
// ThreadSanitizer the same order gRPC keeps. The stress test of tests/server runs thousands of
// calls that end while their callers cancel, under ThreadSanitizer in make test-tsan, and checks
// that every reactor made was freed once.
class RpcLifetime {
 public:
  RpcLifetime(grpc::CallbackServerContext* ctx, std::string_view method)
      : rpc_(ctx, method), deadline_(absl::FromChrono(ctx->deadline())) {
    live_.fetch_add(1, std::memory_order_relaxed);
    // The reactor goes to gRPC when the handler returns it.
    HandOff();
  }
  virtual ~RpcLifetime() { live_.fetch_sub(1, std::memory_order_relaxed); }

  // Reactors made and not yet freed, in this process.
  static int64_t Live() { return live_.load(std::memory_order_relaxed); }

  absl::Time Deadline() const { return deadline_; }

  // A field for the call's one `rpc finished` line (RpcContext::Note).
  void Note(std::string_view key, std::string value) { rpc_.Note(key, std::move(value)); }

  // The call's place under the global bounds, given back when the work has answered (before the
  // caller sees the answer, so a caller that calls again at once finds the place free).
  void Hold(Admission::Ticket ticket) { ticket_ = std::move(ticket); }

  // Hands over the work's cancel handle (null when there is no work) and gives up the starter's
  // reference.
  void Attach(const std::shared_ptr<executor::RpcHandle>& handle) {
    bool cancel = false;
    {
      absl::MutexLock lock(&mu_);
      handle_ = handle;
      cancel = cancelled_;
    }
    if (cancel && handle) handle->Cancel();
    Release();
  }

 protected:
  // For the span of one reaction (a gRPC thread): what came before the reaction happens before
  // it, and what it did happens before OnDone.
  class Reaction {
   public:
    explicit Reaction(const RpcLifetime* r) : r_(r) { KJE_TSAN_ACQUIRE(r_); }
    ~Reaction() { KJE_TSAN_RELEASE(r_); }
    Reaction(const Reaction&) = delete;
    Reaction& operator=(const Reaction&) = delete;

   private:
    const RpcLifetime* r_;
  };

  RpcContext& rpc() { return rpc_; }
  // Called once, by the one answer (the work's completion comes after Hold, on whatever thread).
  void GiveBackPlace() { ticket_ = Admission::Ticket(); }
  // Right before a call that lets gRPC run reactions on its threads (Finish, StartWrite).
  void HandOff() const { KJE_TSAN_RELEASE(this); }

  // From the reactor's OnCancel: the handle is called outside the lock.
  void CancelWork() {
    Reaction reaction(this);
    std::shared_ptr<executor::RpcHandle> handle;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      handle = handle_;
    }
    if (handle) handle->Cancel();
  }

  // From the reactor's OnDone: gRPC's reference. No Reaction: the reactor may be gone after it.
  void Done() {
    KJE_TSAN_ACQUIRE(this);
    Release();
  }

 private:
  void Release() {
    if (refs_.fetch_sub(1) == 1) delete this;
  }

  static inline std::atomic<int64_t> live_{0};

  RpcContext rpc_;
  const absl::Time deadline_;
  Admission::Ticket ticket_;
  std::atomic<int> refs_{2};  // gRPC's (released by OnDone) and the starter's (by Attach)
  absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::shared_ptr<executor::RpcHandle> handle_ ABSL_GUARDED_BY(mu_);
};

int64_t JobExecutorService::LiveReactors() { return RpcLifetime::Live(); }

namespace {

namespace pb = jobexecutor::v1;

// A unary reactor whose work runs elsewhere.
class CallReactor final : public grpc::ServerUnaryReactor, public RpcLifetime {
 public:
  CallReactor(grpc::CallbackServerContext* ctx, std::string_view method)
      : RpcLifetime(ctx, method) {}

  void Complete(const absl::Status& status) {
    GiveBackPlace();
    grpc::Status s = ToGrpcStatus(status);
    log::Event line = rpc().FinishLine(s);
    HandOff();
    Finish(std::move(s));
  }

  void OnCancel() override { CancelWork(); }
  void OnDone() override { Done(); }
};

// A server-streaming reactor driven by an executor coroutine: the coroutine writes one message
// at a time through StreamWriter (converted by `convert`), and the stream finishes from the
// coroutine's completion. Finish() may come while a write is still out (a caller that stopped
// reading and fell too far behind): gRPC sends the status after it.
template <class Msg, class In>
class StreamReactor final : public grpc::ServerWriteReactor<Msg>,
                            public executor::StreamWriter<In>,
                            public RpcLifetime {
 public:
  using Convert = void (*)(const In&, Msg*);

  StreamReactor(grpc::CallbackServerContext* ctx, std::string_view method, Convert convert)
      : RpcLifetime(ctx, method), convert_(convert) {}

  // One write at a time (the executor's contract), so message_ is ours until OnWriteDone.
  void Write(In message, std::function<void(bool)> written) override {
    message_.Clear();
    convert_(message, &message_);
    {
      absl::MutexLock lock(&write_mu_);
      written_ = std::move(written);
    }
    HandOff();
    this->StartWrite(&message_);
  }

  void End(const absl::Status& status) {
    GiveBackPlace();
    grpc::Status s = ToGrpcStatus(status);
    log::Event line = rpc().FinishLine(s);
    HandOff();
    this->Finish(std::move(s));
  }

  void OnWriteDone(bool ok) override {
    Reaction reaction(this);
    std::function<void(bool)> written;
    {
      absl::MutexLock lock(&write_mu_);
      written.swap(written_);
    }
    if (written) written(ok);
  }

  void OnCancel() override { CancelWork(); }
  void OnDone() override { Done(); }

 private:
  const Convert convert_;
  Msg message_;  // the one write in flight
  absl::Mutex write_mu_;
  std::function<void(bool)> written_ ABSL_GUARDED_BY(write_mu_);
};

absl::Status NotConfiguredStatus(const char* method) {
  return absl::UnimplementedError(
      absl::StrCat(method, " is not available: this server runs without a Kubernetes executor"));
}

// Finishes a call answered in the handler itself with gRPC's own reactor: no reactor of ours to
// allocate, and its end runs in place (a reactor of ours ends on gRPC's executor threads, one more
// thread hand-off per call, which a cached Status polled thousands of times a second notices).
grpc::ServerUnaryReactor* FinishNow(grpc::CallbackServerContext* ctx, std::string_view method,
                                    const absl::Status& status) {
  RpcContext rpc(ctx, method);
  grpc::Status s = ToGrpcStatus(status);
  log::Event line = rpc.FinishLine(s);
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  reactor->Finish(std::move(s));
  return reactor;
}

grpc::ServerUnaryReactor* NotConfigured(grpc::CallbackServerContext* ctx, const char* method) {
  return FinishNow(ctx, method, NotConfiguredStatus(method));
}

std::string ResultLabel(const absl::Status& status) {
  return GrpcCodeResult(ToGrpcStatus(status).error_code());
}

}  // namespace

absl::Status JobExecutorService::Authenticate(grpc::CallbackServerContext* ctx) const {
  if (auth_ == nullptr) return absl::OkStatus();
  std::string_view authorization;
  const auto& md = ctx->client_metadata();
  if (auto it = md.find("authorization"); it != md.end()) {
    authorization = std::string_view(it->second.data(), it->second.size());
  }
  return auth_->Check(authorization);
}

absl::Status JobExecutorService::AdmitStream(grpc::CallbackServerContext* ctx, const char* method,
                                             RpcLifetime& reactor) {
  RETURN_IF_ERROR(Authenticate(ctx));
  if (executor_ == nullptr) return NotConfiguredStatus(method);
  ASSIGN_OR_RETURN(Admission::Ticket ticket, Admit(Admission::Kind::kStream));
  reactor.Hold(std::move(ticket));
  return absl::OkStatus();
}

absl::StatusOr<Admission::Ticket> JobExecutorService::Admit(Admission::Kind kind) {
  if (admission_ == nullptr) return Admission::Ticket();
  return admission_->Admit(kind);
}

grpc::ServerUnaryReactor* JobExecutorService::Unauthenticated(grpc::CallbackServerContext* ctx,
                                                              const char* method) {
  absl::Status status = Authenticate(ctx);
  if (status.ok()) return nullptr;
  return FinishNow(ctx, method, status);
}

spark::SparkTemplate ToSparkTemplate(const pb::JobTemplate& t) {
  spark::SparkTemplate out;
  out.name = t.name();
  out.comment = t.comment();
  out.executable = t.executable();
  out.arguments.assign(t.arguments().begin(), t.arguments().end());
  out.environments.insert(t.environments().begin(), t.environments().end());
  out.custom_fields.insert(t.custom_fields().begin(), t.custom_fields().end());
  out.is_shell = t.has_shell();
  if (t.has_spark()) {
    const pb::SparkJob& s = t.spark();
    out.class_name = s.class_name();
    out.jars.assign(s.jars().begin(), s.jars().end());
    out.files.assign(s.files().begin(), s.files().end());
    out.archives.assign(s.archives().begin(), s.archives().end());
    out.configs.insert(s.configs().begin(), s.configs().end());
  }
  return out;
}

grpc::ServerUnaryReactor* JobExecutorService::Submit(grpc::CallbackServerContext* ctx,
                                                     const pb::SubmitRequest* request,
                                                     pb::SubmitResponse* response) {
  if (auto* denied = Unauthenticated(ctx, "Submit")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "Submit");
  if (!request->has_template_()) {
    return FinishNow(ctx, "Submit", absl::InvalidArgumentError("template is required"));
  }
  if (!request->template_().has_spark() && !request->template_().has_shell()) {
    return FinishNow(
        ctx, "Submit",
        absl::InvalidArgumentError(
            "template must be a Spark job (template.spark) or a shell job (template.shell)"));
  }
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return FinishNow(ctx, "Submit", ticket.status());
  auto* reactor = new CallReactor(ctx, "Submit");
  reactor->Hold(*std::move(ticket));
  // The call's line says which job it was for, and what it became: one line per Submit.
  reactor->Note("job_id", request->job_id());
  reactor->Attach(executor_->Submit(
      request->job_id(), request->metalake(), ToSparkTemplate(request->template_()),
      reactor->Deadline(), [this, reactor, response](absl::StatusOr<SubmitResult> r) {
        if (r.ok()) {
          response->set_execution_id(r->execution_id);
          response->set_adopted(r->adopted);
          reactor->Note("execution_id", r->execution_id);
          reactor->Note("adopted", r->adopted ? "true" : "false");
        }
        if (metrics_ != nullptr) {
          metrics_->RecordSubmit(r.ok() ? (r->adopted ? "adopted" : "created")
                                        : ResultLabel(r.status()));
        }
        reactor->Complete(r.status());
      }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::Status(grpc::CallbackServerContext* ctx,
                                                     const grpc::ByteBuffer* request,
                                                     grpc::ByteBuffer* response) {
  if (auto* denied = Unauthenticated(ctx, "Status")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "Status");
  grpc::Slice slice;
  std::string parsed;
  absl::StatusOr<std::string_view> id = StatusRequestId(*request, &slice, &parsed);
  if (!id.ok()) return FinishNow(ctx, "Status", id.status());
  executor::StatusLookup lookup = executor_->StatusNow(
      *id, [response](const executor::JobView& job) { WriteJobInfoWire(job, response); });
  if (std::holds_alternative<executor::StatusAnswered>(lookup)) {
    return FinishNow(ctx, "Status", absl::OkStatus());
  }
  if (auto* refused = std::get_if<absl::Status>(&lookup)) return FinishNow(ctx, "Status", *refused);
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return FinishNow(ctx, "Status", ticket.status());
  auto* reactor = new CallReactor(ctx, "Status");
  reactor->Hold(*std::move(ticket));
  reactor->Attach(executor_->Status(std::get<spark::ExecutionId>(std::move(lookup)),
                                    reactor->Deadline(),
                                    [reactor, response](absl::StatusOr<JobResult> r) {
                                      if (!r.ok()) return reactor->Complete(r.status());
                                      WriteJobInfoWire(executor::ViewOf(*r), response);
                                      reactor->Complete(absl::OkStatus());
                                    }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::Cancel(grpc::CallbackServerContext* ctx,
                                                     const pb::CancelRequest* request,
                                                     pb::CancelResponse* response) {
  if (auto* denied = Unauthenticated(ctx, "Cancel")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "Cancel");
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return FinishNow(ctx, "Cancel", ticket.status());
  auto* reactor = new CallReactor(ctx, "Cancel");
  reactor->Hold(*std::move(ticket));
  reactor->Attach(executor_->Cancel(request->execution_id(), reactor->Deadline(),
                                    [this, reactor, response](const absl::StatusOr<bool>& r) {
                                      // true: requested; false: the job had already stopped.
                                      if (r.ok()) response->set_already_stopped(!*r);
                                      if (metrics_ != nullptr) {
                                        metrics_->RecordCancel(
                                            r.ok() ? (*r ? "requested" : "already_stopped")
                                                   : ResultLabel(r.status()));
                                      }
                                      reactor->Complete(r.status());
                                    }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::Output(grpc::CallbackServerContext* ctx,
                                                     const pb::OutputRequest* request,
                                                     pb::OutputResponse* response) {
  if (auto* denied = Unauthenticated(ctx, "Output")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "Output");
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return FinishNow(ctx, "Output", ticket.status());
  auto* reactor = new CallReactor(ctx, "Output");
  reactor->Hold(*std::move(ticket));
  reactor->Attach(executor_->Output(request->execution_id(), request->max_lines(),
                                    request->max_bytes(), reactor->Deadline(),
                                    [reactor, response](absl::StatusOr<spark::LogTailResult> r) {
                                      if (r.ok()) {
                                        for (auto& line : r->lines) {
                                          response->add_lines(std::move(line));
                                        }
                                        response->set_truncated(r->truncated);
                                      }
                                      reactor->Complete(r.status());
                                    }));
  return reactor;
}

namespace {

void ToOutputChunk(const executor::OutputBatch& batch, pb::OutputChunk* chunk) {
  chunk->set_dropped_lines(batch.dropped_lines);
  for (const auto& line : batch.lines) chunk->add_lines(line);
}

void ToJobInfoMessage(const JobResult& result, pb::JobInfo* info) { ToJobInfo(result, info); }

}  // namespace

grpc::ServerWriteReactor<pb::JobInfo>* JobExecutorService::WatchStatus(
    grpc::CallbackServerContext* ctx, const pb::WatchStatusRequest* request) {
  auto* reactor = new StreamReactor<pb::JobInfo, JobResult>(ctx, "WatchStatus", ToJobInfoMessage);
  if (absl::Status admitted = AdmitStream(ctx, "WatchStatus", *reactor); !admitted.ok()) {
    reactor->End(admitted);
    reactor->Attach(nullptr);
    return reactor;
  }
  std::vector<std::string> ids(request->execution_ids().begin(), request->execution_ids().end());
  reactor->Attach(executor_->WatchStatus(ids, reactor->Deadline(), reactor,
                                         [reactor](const absl::Status& s) { reactor->End(s); }));
  return reactor;
}

grpc::ServerWriteReactor<pb::OutputChunk>* JobExecutorService::FollowOutput(
    grpc::CallbackServerContext* ctx, const pb::FollowOutputRequest* request) {
  auto* reactor =
      new StreamReactor<pb::OutputChunk, executor::OutputBatch>(ctx, "FollowOutput", ToOutputChunk);
  if (absl::Status admitted = AdmitStream(ctx, "FollowOutput", *reactor); !admitted.ok()) {
    reactor->End(admitted);
    reactor->Attach(nullptr);
    return reactor;
  }
  reactor->Attach(executor_->FollowOutput(request->execution_id(), request->tail_lines(),
                                          reactor->Deadline(), reactor,
                                          [reactor](const absl::Status& s) { reactor->End(s); }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::ListJobs(grpc::CallbackServerContext* ctx,
                                                       const pb::ListJobsRequest* request,
                                                       pb::ListJobsResponse* response) {
  if (auto* denied = Unauthenticated(ctx, "ListJobs")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "ListJobs");
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return FinishNow(ctx, "ListJobs", ticket.status());
  auto* reactor = new CallReactor(ctx, "ListJobs");
  reactor->Hold(*std::move(ticket));
  reactor->Attach(executor_->ListJobs(
      request->namespace_(), request->label_selector(), request->page_size(), request->page_token(),
      reactor->Deadline(), [reactor, response](absl::StatusOr<JobPage> r) {
        if (r.ok()) {
          for (JobResult& job : r->jobs) ToJobInfo(std::move(job), response->add_jobs());
          response->set_next_page_token(r->next_page_token);
        }
        reactor->Complete(r.status());
      }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::Events(grpc::CallbackServerContext* ctx,
                                                     const pb::EventsRequest* request,
                                                     pb::EventsResponse* response) {
  if (auto* denied = Unauthenticated(ctx, "Events")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "Events");
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return FinishNow(ctx, "Events", ticket.status());
  auto* reactor = new CallReactor(ctx, "Events");
  reactor->Hold(*std::move(ticket));
  reactor->Attach(executor_->Events(request->execution_id(), reactor->Deadline(),
                                    [reactor, response](absl::StatusOr<executor::JobEvents> r) {
                                      if (r.ok()) {
                                        for (k8s::Event& e : r->events) {
                                          pb::JobEvent* out = response->add_events();
                                          out->set_object_kind(std::move(e.object_kind));
                                          out->set_object_name(std::move(e.object_name));
                                          out->set_reason(std::move(e.reason));
                                          out->set_type(std::move(e.type));
                                          out->set_message(std::move(e.message));
                                          out->set_count(e.count);
                                          out->set_source(std::move(e.source));
                                          if (e.first_seen) {
                                            *out->mutable_first_seen() = ToTimestamp(*e.first_seen);
                                          }
                                          if (e.last_seen) {
                                            *out->mutable_last_seen() = ToTimestamp(*e.last_seen);
                                          }
                                        }
                                        response->set_truncated(r->truncated);
                                      }
                                      reactor->Complete(r.status());
                                    }));
  return reactor;
}

namespace {

spark::ScheduleSpec FromProto(const pb::ScheduleSpec& in) {
  spark::ScheduleSpec out;
  out.cron = in.schedule();
  out.time_zone = in.time_zone();
  switch (in.concurrency_policy()) {
    case pb::ScheduleSpec::FORBID:
      out.concurrency_policy = spark::ConcurrencyPolicy::kForbid;
      break;
    case pb::ScheduleSpec::REPLACE:
      out.concurrency_policy = spark::ConcurrencyPolicy::kReplace;
      break;
    case pb::ScheduleSpec::ALLOW:
    case pb::ScheduleSpec::CONCURRENCY_POLICY_UNSPECIFIED:
      out.concurrency_policy = spark::ConcurrencyPolicy::kAllow;
      break;
    default:  // a number no enum value has: refused by CheckScheduleSpec
      out.concurrency_policy = spark::ConcurrencyPolicy::kUnrecognized;
      break;
  }
  if (in.has_successful_run_history_limit()) {
    out.successful_run_history_limit = in.successful_run_history_limit();
  }
  if (in.has_failed_run_history_limit()) {
    out.failed_run_history_limit = in.failed_run_history_limit();
  }
  out.suspended = in.suspend();
  return out;
}

pb::ScheduleSpec::ConcurrencyPolicy ToProto(spark::ConcurrencyPolicy policy) {
  switch (policy) {
    case spark::ConcurrencyPolicy::kAllow:
      return pb::ScheduleSpec::ALLOW;
    case spark::ConcurrencyPolicy::kForbid:
      return pb::ScheduleSpec::FORBID;
    case spark::ConcurrencyPolicy::kReplace:
      return pb::ScheduleSpec::REPLACE;
    case spark::ConcurrencyPolicy::kUnset:
    case spark::ConcurrencyPolicy::kUnrecognized:
      break;
  }
  return pb::ScheduleSpec::CONCURRENCY_POLICY_UNSPECIFIED;
}

void ToScheduleInfo(executor::ScheduleResult result, pb::ScheduleInfo* info) {
  spark::Schedule& s = result.schedule;
  info->set_schedule_id(std::move(result.schedule_id));
  info->set_namespace_(std::move(s.namespace_));
  info->set_name(std::move(s.name));
  pb::ScheduleSpec* spec = info->mutable_spec();
  spec->set_schedule(std::move(s.spec.cron));
  spec->set_time_zone(std::move(s.spec.time_zone));
  spec->set_concurrency_policy(ToProto(s.spec.concurrency_policy));
  spec->set_successful_run_history_limit(s.spec.successful_run_history_limit);
  spec->set_failed_run_history_limit(s.spec.failed_run_history_limit);
  spec->set_suspend(s.spec.suspended);
  info->set_schedule_state(std::move(s.state));
  info->set_reason(std::move(s.reason));
  if (auto t = spark::ToOptionalTime(s.last_run)) *info->mutable_last_run() = ToTimestamp(*t);
  info->set_last_run_name(std::move(s.last_run_name));
  if (auto t = spark::ToOptionalTime(s.next_run)) *info->mutable_next_run() = ToTimestamp(*t);
  for (JobResult& run : result.runs) ToJobInfo(std::move(run), info->add_runs());
  info->set_more_runs(result.more_runs);
  info->set_adopted(result.adopted);
}

// The update the mask names, or INVALID_ARGUMENT naming the path that isn't a field.
absl::StatusOr<spark::ScheduleUpdate> UpdateFromProto(const pb::UpdateScheduleRequest& request) {
  if (request.update_mask().paths().empty()) {
    return absl::InvalidArgumentError("update_mask names no field");
  }
  const spark::ScheduleSpec spec = FromProto(request.spec());
  spark::ScheduleUpdate update;
  for (const std::string& path : request.update_mask().paths()) {
    if (path == "schedule") {
      update.cron = spec.cron;
    } else if (path == "time_zone") {
      update.time_zone = spec.time_zone;
    } else if (path == "concurrency_policy") {
      update.concurrency_policy = spec.concurrency_policy;
    } else if (path == "successful_run_history_limit") {
      update.successful_run_history_limit = spec.successful_run_history_limit;
    } else if (path == "failed_run_history_limit") {
      update.failed_run_history_limit = spec.failed_run_history_limit;
    } else if (path == "suspend") {
      update.suspended = spec.suspended;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "update_mask: \"", path.substr(0, 128),
          "\" is not a field of ScheduleSpec (schedule, time_zone, concurrency_policy, "
          "successful_run_history_limit, failed_run_history_limit, suspend)"));
    }
  }
  return update;
}

}  // namespace

grpc::ServerUnaryReactor* JobExecutorService::ListSchedules(grpc::CallbackServerContext* ctx,
                                                            const pb::ListSchedulesRequest* request,
                                                            pb::ListSchedulesResponse* response) {
  if (auto* denied = Unauthenticated(ctx, "ListSchedules")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "ListSchedules");
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return FinishNow(ctx, "ListSchedules", ticket.status());
  auto* reactor = new CallReactor(ctx, "ListSchedules");
  reactor->Hold(*std::move(ticket));
  reactor->Attach(executor_->ListSchedules(
      request->namespace_(), request->label_selector(), request->page_size(), request->page_token(),
      reactor->Deadline(), [reactor, response](absl::StatusOr<executor::SchedulePage> r) {
        if (r.ok()) {
          for (executor::ScheduleResult& s : r->schedules) {
            ToScheduleInfo(std::move(s), response->add_schedules());
          }
          response->set_next_page_token(r->next_page_token);
        }
        reactor->Complete(r.status());
      }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::UpdateSchedule(
    grpc::CallbackServerContext* ctx, const pb::UpdateScheduleRequest* request,
    pb::ScheduleInfo* response) {
  if (auto* denied = Unauthenticated(ctx, "UpdateSchedule")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "UpdateSchedule");
  auto update = UpdateFromProto(*request);
  if (!update.ok()) return FinishNow(ctx, "UpdateSchedule", update.status());
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return FinishNow(ctx, "UpdateSchedule", ticket.status());
  auto* reactor = new CallReactor(ctx, "UpdateSchedule");
  reactor->Hold(*std::move(ticket));
  reactor->Attach(executor_->UpdateSchedule(
      request->namespace_(), request->schedule_id(), *update, reactor->Deadline(),
      [reactor, response](absl::StatusOr<executor::ScheduleResult> r) {
        if (!r.ok()) return reactor->Complete(r.status());
        ToScheduleInfo(*std::move(r), response);
        reactor->Complete(absl::OkStatus());
      }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::CreateSchedule(
    grpc::CallbackServerContext* ctx, const pb::CreateScheduleRequest* request,
    pb::ScheduleInfo* response) {
  if (auto* denied = Unauthenticated(ctx, "CreateSchedule")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "CreateSchedule");
  if (!request->has_template_() || !request->template_().has_spark()) {
    return FinishNow(ctx, "CreateSchedule",
                     absl::InvalidArgumentError("template must be a Spark job (template.spark)"));
  }
  if (!request->has_spec() || request->spec().schedule().empty()) {
    return FinishNow(ctx, "CreateSchedule",
                     absl::InvalidArgumentError("spec.schedule is required (a cron line)"));
  }
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return FinishNow(ctx, "CreateSchedule", ticket.status());
  auto* reactor = new CallReactor(ctx, "CreateSchedule");
  reactor->Hold(*std::move(ticket));
  reactor->Attach(executor_->CreateSchedule(
      request->schedule_id(), request->metalake(), ToSparkTemplate(request->template_()),
      FromProto(request->spec()), reactor->Deadline(),
      [reactor, response](absl::StatusOr<executor::ScheduleResult> r) {
        if (!r.ok()) return reactor->Complete(r.status());
        ToScheduleInfo(*std::move(r), response);
        reactor->Complete(absl::OkStatus());
      }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::GetSchedule(grpc::CallbackServerContext* ctx,
                                                          const pb::GetScheduleRequest* request,
                                                          pb::ScheduleInfo* response) {
  if (auto* denied = Unauthenticated(ctx, "GetSchedule")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "GetSchedule");
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return FinishNow(ctx, "GetSchedule", ticket.status());
  auto* reactor = new CallReactor(ctx, "GetSchedule");
  reactor->Hold(*std::move(ticket));
  reactor->Attach(
      executor_->GetSchedule(request->namespace_(), request->schedule_id(), reactor->Deadline(),
                             [reactor, response](absl::StatusOr<executor::ScheduleResult> r) {
                               if (!r.ok()) return reactor->Complete(r.status());
                               ToScheduleInfo(*std::move(r), response);
                               reactor->Complete(absl::OkStatus());
                             }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::DeleteSchedule(
    grpc::CallbackServerContext* ctx, const pb::DeleteScheduleRequest* request,
    pb::DeleteScheduleResponse* response) {
  if (auto* denied = Unauthenticated(ctx, "DeleteSchedule")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "DeleteSchedule");
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return FinishNow(ctx, "DeleteSchedule", ticket.status());
  auto* reactor = new CallReactor(ctx, "DeleteSchedule");
  reactor->Hold(*std::move(ticket));
  // true: deleted; false: there was none, which is no error (a retry finds it gone), and the
  // answer says so for a caller that must tell a typo from a deletion.
  reactor->Attach(executor_->DeleteSchedule(request->namespace_(), request->schedule_id(),
                                            request->keep_runs(), reactor->Deadline(),
                                            [reactor, response](const absl::StatusOr<bool>& r) {
                                              if (r.ok()) response->set_existed(*r);
                                              reactor->Complete(r.status());
                                            }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::RunScheduleNow(
    grpc::CallbackServerContext* ctx, const pb::RunScheduleNowRequest* request,
    pb::RunScheduleNowResponse* response) {
  if (auto* denied = Unauthenticated(ctx, "RunScheduleNow")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "RunScheduleNow");
  auto ticket = Admit(Admission::Kind::kUnary);
  if (!ticket.ok()) return FinishNow(ctx, "RunScheduleNow", ticket.status());
  auto* reactor = new CallReactor(ctx, "RunScheduleNow");
  reactor->Hold(*std::move(ticket));
  reactor->Attach(executor_->RunScheduleNow(
      request->namespace_(), request->schedule_id(), request->run_id(), reactor->Deadline(),
      [reactor, response](absl::StatusOr<executor::RunNowResult> r) {
        if (r.ok()) {
          response->set_execution_id(r->execution_id);
          response->set_adopted(r->adopted);
        }
        reactor->Complete(r.status());
      }));
  return reactor;
}

}  // namespace kje::server
