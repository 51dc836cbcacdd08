#include "server/job_executor_service.h"

#include <atomic>
#include <deque>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/metrics.h"
#include "server/rpc_context.h"
#include "server/status_mapping.h"
#include "spark/log_tail.h"

namespace kje::server {
namespace {

namespace pb = jobexecutor::v1;

// A unary reactor whose work runs elsewhere. It lives until both gRPC is done with it (OnDone)
// and the code that started the work has attached the work's cancel handle, whichever is last:
// the work may finish, and gRPC call OnDone, before Attach runs.
class CallReactor final : public grpc::ServerUnaryReactor {
 public:
  CallReactor(grpc::CallbackServerContext* ctx, std::string_view method)
      : rpc_(ctx, method), deadline_(absl::FromChrono(ctx->deadline())) {}

  absl::Time Deadline() const { return deadline_; }

  // Hands over the work's cancel handle and gives up the starter's reference.
  void Attach(const std::shared_ptr<k8s::CallHandle>& handle) {
    bool cancel = false;
    {
      absl::MutexLock lock(&mu_);
      handle_ = handle;
      cancel = cancelled_;
    }
    if (cancel && handle) handle->Cancel();
    Release();
  }

  void Complete(const absl::Status& status) {
    grpc::Status s = ToGrpcStatus(status);
    rpc_.LogFinish(s);
    Finish(s);
  }

  void OnCancel() override {
    std::shared_ptr<k8s::CallHandle> handle;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      handle = handle_;
    }
    if (handle) handle->Cancel();
  }

  void OnDone() override { Release(); }

 private:
  void Release() {
    if (refs_.fetch_sub(1) == 1) delete this;
  }

  RpcContext rpc_;
  absl::Time deadline_;
  std::atomic<int> refs_{2};  // gRPC's (released by OnDone) and the starter's (by Attach)
  absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::shared_ptr<k8s::CallHandle> handle_ ABSL_GUARDED_BY(mu_);
};

// A server-streaming reactor fed from elsewhere: Push() queues a message from any thread and
// writes go out one at a time in order; End() finishes once the queue has drained. Lifetime as
// CallReactor's. A caller that reads too slowly makes the queue overflow: the stream then ends
// with RESOURCE_EXHAUSTED rather than buffering without bound.
template <class Msg>
class StreamReactor final : public grpc::ServerWriteReactor<Msg> {
 public:
  StreamReactor(grpc::CallbackServerContext* ctx, std::string_view method, size_t max_queued)
      : rpc_(ctx, method), deadline_(absl::FromChrono(ctx->deadline())), max_queued_(max_queued) {}

  absl::Time Deadline() const { return deadline_; }

  void Attach(const std::shared_ptr<k8s::CallHandle>& handle) {
    bool cancel = false;
    {
      absl::MutexLock lock(&mu_);
      handle_ = handle;
      cancel = cancelled_ || ended_;
    }
    if (cancel && handle) handle->Cancel();
    Release();
  }

  // False once the stream is ending (the producer may stop).
  bool Push(Msg msg) {
    const Msg* start = nullptr;
    bool overflow = false;
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return false;
      if (queue_.size() >= max_queued_) {
        overflow = true;
      } else {
        queue_.push_back(std::move(msg));
        if (!writing_) {
          writing_ = true;
          start = &queue_.front();
        }
      }
    }
    if (overflow) {
      End(absl::ResourceExhaustedError(
          "the caller reads the stream too slowly; changes piled up beyond the limit"));
      CancelWork();
      return false;
    }
    if (start) this->StartWrite(start);
    return true;
  }

  // Whether nothing is queued or being written (for producers that batch).
  size_t Queued() {
    absl::MutexLock lock(&mu_);
    return queue_.size();
  }

  void End(const absl::Status& status) {
    grpc::Status s = ToGrpcStatus(status);
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      ended_ = true;
      if (writing_) {
        // The queue drains first; a failure ends at once (the queued messages are dropped).
        if (s.ok()) {
          pending_ = s;
          return;
        }
        while (queue_.size() > 1) queue_.pop_back();  // the front is being written
        pending_ = s;
        return;
      }
    }
    rpc_.LogFinish(s);
    this->Finish(s);
  }

  void OnWriteDone(bool ok) override {
    const Msg* next = nullptr;
    std::optional<grpc::Status> finish;
    {
      absl::MutexLock lock(&mu_);
      if (!queue_.empty()) queue_.pop_front();
      if (!ok) {
        // The stream is broken (the caller went away): stop producing.
        queue_.clear();
        writing_ = false;
        if (!ended_) {
          ended_ = true;
          pending_ = grpc::Status(grpc::StatusCode::CANCELLED, "the stream was broken");
        }
        finish = pending_;
        pending_.reset();
      } else if (!queue_.empty()) {
        next = &queue_.front();
      } else {
        writing_ = false;
        finish = pending_;
        pending_.reset();
      }
    }
    if (next) {
      this->StartWrite(next);
      return;
    }
    if (!ok) CancelWork();
    if (finish) {
      rpc_.LogFinish(*finish);
      this->Finish(*finish);
    }
  }

  void OnCancel() override {
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
    }
    CancelWork();
  }

  void OnDone() override { Release(); }

 private:
  void CancelWork() {
    std::shared_ptr<k8s::CallHandle> handle;
    {
      absl::MutexLock lock(&mu_);
      handle = handle_;
    }
    if (handle) handle->Cancel();
  }

  void Release() {
    if (refs_.fetch_sub(1) == 1) delete this;
  }

  RpcContext rpc_;
  const absl::Time deadline_;
  const size_t max_queued_;
  std::atomic<int> refs_{2};
  absl::Mutex mu_;
  std::deque<Msg> queue_ ABSL_GUARDED_BY(mu_);  // front: being written
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<grpc::Status> pending_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<k8s::CallHandle> handle_ ABSL_GUARDED_BY(mu_);
};

absl::Status NotConfiguredStatus(const char* method) {
  return absl::UnimplementedError(
      absl::StrCat(method, " is not available: this server runs without a Kubernetes executor"));
}

grpc::ServerUnaryReactor* NotConfigured(grpc::CallbackServerContext* ctx, const char* method) {
  auto* reactor = new CallReactor(ctx, method);
  reactor->Complete(NotConfiguredStatus(method));
  reactor->Attach(nullptr);
  return reactor;
}

google::protobuf::Timestamp ToTimestamp(absl::Time t) {
  google::protobuf::Timestamp ts;
  timespec spec = absl::ToTimespec(t);
  ts.set_seconds(spec.tv_sec);
  ts.set_nanos(static_cast<int32_t>(spec.tv_nsec));
  return ts;
}

pb::JobInfo::Status ToProtoStatus(spark::JobStatus status) {
  switch (status) {
    case spark::JobStatus::kQueued:
      return pb::JobInfo::QUEUED;
    case spark::JobStatus::kStarted:
      return pb::JobInfo::STARTED;
    case spark::JobStatus::kSucceeded:
      return pb::JobInfo::SUCCEEDED;
    case spark::JobStatus::kFailed:
      return pb::JobInfo::FAILED;
    case spark::JobStatus::kCancelling:
      return pb::JobInfo::CANCELLING;
    case spark::JobStatus::kCancelled:
      return pb::JobInfo::CANCELLED;
  }
  return pb::JobInfo::STATUS_UNSPECIFIED;
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

grpc::ServerUnaryReactor* JobExecutorService::Unauthenticated(grpc::CallbackServerContext* ctx,
                                                              const char* method) {
  absl::Status status = Authenticate(ctx);
  if (status.ok()) return nullptr;
  auto* reactor = new CallReactor(ctx, method);
  reactor->Complete(status);
  reactor->Attach(nullptr);
  return reactor;
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

void ToJobInfo(const JobResult& result, pb::JobInfo* info) {
  info->set_execution_id(result.execution_id);
  info->set_status(ToProtoStatus(result.info.status));
  if (result.info.started_at) *info->mutable_started_at() = ToTimestamp(*result.info.started_at);
  if (result.info.finished_at) {
    *info->mutable_finished_at() = ToTimestamp(*result.info.finished_at);
  }
  info->set_operator_state(result.info.operator_state);
  info->set_message(result.info.message);
  info->set_namespace_(result.namespace_);
  info->set_name(result.name);
  info->set_driver_pod(result.driver_pod);
  info->set_job_id(result.job_id);
}

grpc::ServerUnaryReactor* JobExecutorService::Submit(grpc::CallbackServerContext* ctx,
                                                     const pb::SubmitRequest* request,
                                                     pb::SubmitResponse* response) {
  if (auto* denied = Unauthenticated(ctx, "Submit")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "Submit");
  auto* reactor = new CallReactor(ctx, "Submit");
  if (!request->has_template_()) {
    reactor->Complete(absl::InvalidArgumentError("template is required"));
    reactor->Attach(nullptr);
    return reactor;
  }
  if (!request->template_().has_spark() && !request->template_().has_shell()) {
    reactor->Complete(absl::InvalidArgumentError(
        "template must be a Spark job (template.spark) or a shell job (template.shell)"));
    reactor->Attach(nullptr);
    return reactor;
  }
  reactor->Attach(executor_->Submit(
      request->job_id(), request->metalake(), ToSparkTemplate(request->template_()),
      reactor->Deadline(), [this, reactor, response](absl::StatusOr<SubmitResult> r) {
        if (r.ok()) {
          response->set_execution_id(r->execution_id);
          response->set_adopted(r->adopted);
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
                                                     const pb::StatusRequest* request,
                                                     pb::JobInfo* response) {
  if (auto* denied = Unauthenticated(ctx, "Status")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "Status");
  auto* reactor = new CallReactor(ctx, "Status");
  reactor->Attach(executor_->Status(request->execution_id(), reactor->Deadline(),
                                    [reactor, response](absl::StatusOr<JobResult> r) {
                                      if (r.ok()) ToJobInfo(*r, response);
                                      reactor->Complete(r.status());
                                    }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::Cancel(grpc::CallbackServerContext* ctx,
                                                     const pb::CancelRequest* request,
                                                     pb::CancelResponse*) {
  if (auto* denied = Unauthenticated(ctx, "Cancel")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "Cancel");
  auto* reactor = new CallReactor(ctx, "Cancel");
  reactor->Attach(executor_->Cancel(
      request->execution_id(), reactor->Deadline(), [this, reactor](const absl::StatusOr<bool>& r) {
        // true: requested; false: the job had already stopped.
        if (metrics_ != nullptr) {
          metrics_->RecordCancel(r.ok() ? (*r ? "requested" : "already_stopped")
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
  auto* reactor = new CallReactor(ctx, "Output");
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

// Changes a WatchStatus caller may fall behind by: a job has about ten states, so this is many
// jobs' worth of slack, and a stalled caller can't make the server hold more.
constexpr size_t kMaxQueuedChanges = 1024;
// FollowOutput chunks in flight; when full, lines are dropped and counted instead.
constexpr size_t kMaxQueuedChunks = 64;
constexpr size_t kMaxChunkLines = 1000;

// Turns a followed log's byte chunks into OutputChunk messages, dropping (and counting) lines
// while the caller is behind, so a fast log and a slow reader can't exhaust memory.
class FollowSink {
 public:
  explicit FollowSink(StreamReactor<pb::OutputChunk>* reactor) : reactor_(reactor) {}

  void Chunk(std::string_view bytes) { Send(lines_.Feed(bytes)); }
  void Flush() { Send(lines_.Flush()); }

 private:
  void Send(std::vector<std::string> lines) {
    if (lines.empty()) return;
    if (reactor_->Queued() >= kMaxQueuedChunks - 1) {
      dropped_ += static_cast<int64_t>(lines.size());
      return;
    }
    pb::OutputChunk chunk;
    chunk.set_dropped_lines(dropped_);
    dropped_ = 0;
    for (auto& line : lines) {
      if (chunk.lines_size() == static_cast<int>(kMaxChunkLines)) {
        reactor_->Push(std::move(chunk));
        chunk = pb::OutputChunk();
      }
      chunk.add_lines(std::move(line));
    }
    reactor_->Push(std::move(chunk));
  }

  StreamReactor<pb::OutputChunk>* reactor_;
  spark::LogLines lines_;
  int64_t dropped_ = 0;
};

}  // namespace

grpc::ServerWriteReactor<pb::JobInfo>* JobExecutorService::WatchStatus(
    grpc::CallbackServerContext* ctx, const pb::WatchStatusRequest* request) {
  auto* reactor = new StreamReactor<pb::JobInfo>(ctx, "WatchStatus", kMaxQueuedChanges);
  if (absl::Status denied = Authenticate(ctx); !denied.ok() || executor_ == nullptr) {
    reactor->End(!denied.ok() ? denied : NotConfiguredStatus("WatchStatus"));
    reactor->Attach(nullptr);
    return reactor;
  }
  std::vector<std::string> ids(request->execution_ids().begin(), request->execution_ids().end());
  reactor->Attach(executor_->WatchStatus(
      ids, reactor->Deadline(),
      [reactor](const JobResult& result) {
        pb::JobInfo info;
        ToJobInfo(result, &info);
        reactor->Push(std::move(info));
      },
      [reactor](const absl::Status& status) { reactor->End(status); }));
  return reactor;
}

grpc::ServerWriteReactor<pb::OutputChunk>* JobExecutorService::FollowOutput(
    grpc::CallbackServerContext* ctx, const pb::FollowOutputRequest* request) {
  auto* reactor = new StreamReactor<pb::OutputChunk>(ctx, "FollowOutput", kMaxQueuedChunks);
  if (absl::Status denied = Authenticate(ctx); !denied.ok() || executor_ == nullptr) {
    reactor->End(!denied.ok() ? denied : NotConfiguredStatus("FollowOutput"));
    reactor->Attach(nullptr);
    return reactor;
  }
  // Chunks arrive one at a time (the executor's contract), so the sink needs no lock.
  auto sink = std::make_shared<FollowSink>(reactor);
  reactor->Attach(executor_->FollowOutput(
      request->execution_id(), request->tail_lines(), reactor->Deadline(),
      [sink](std::string_view bytes) { sink->Chunk(bytes); },
      [reactor, sink](const absl::Status& status) {
        if (status.ok()) sink->Flush();
        reactor->End(status);
      }));
  return reactor;
}

grpc::ServerUnaryReactor* JobExecutorService::ListJobs(grpc::CallbackServerContext* ctx,
                                                       const pb::ListJobsRequest* request,
                                                       pb::ListJobsResponse* response) {
  if (auto* denied = Unauthenticated(ctx, "ListJobs")) return denied;
  if (executor_ == nullptr) return NotConfigured(ctx, "ListJobs");
  auto* reactor = new CallReactor(ctx, "ListJobs");
  reactor->Attach(executor_->ListJobs(
      request->namespace_(), request->label_selector(), request->page_size(), request->page_token(),
      reactor->Deadline(), [reactor, response](absl::StatusOr<JobPage> r) {
        if (r.ok()) {
          for (const JobResult& job : r->jobs) {
            ToJobInfo(job, response->add_jobs());
          }
          response->set_next_page_token(r->next_page_token);
        }
        reactor->Complete(r.status());
      }));
  return reactor;
}

}  // namespace kje::server
