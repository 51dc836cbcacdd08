#pragma once

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "executor/job_executor.h"
#include "jobexecutor/v1/job_executor.grpc.pb.h"
#include "server/admission.h"
#include "server/arena_allocator.h"
#include "server/caller_auth.h"
#include "server/metrics.h"
#include "staging/stager.h"

namespace kje::server {

using executor::JobPage;
using executor::JobResult;
using executor::SubmitResult;

// The lifetime every reactor of the service shares (job_executor_service.cc).
class RpcLifetime;
class CallReactor;

// The gRPC edge of jobexecutor.v1.JobExecutor: callback reactors that never block. Each RPC hands
// its work to the executor (one coroutine per RPC) and finishes from its completion; a cancelled
// RPC cancels its Kubernetes calls. Internal absl::Status values become grpc::Status here and
// nowhere else.
//
// Status is a raw method (status_wire.h): a cached Status is polled thousands of times a second,
// and protobuf's messages around it cost several times its own work.
class JobExecutorService final : public jobexecutor::v1::JobExecutor::WithRawCallbackMethod_Status<
                                     jobexecutor::v1::JobExecutor::CallbackService> {
 public:
  // `executor` may be null: every RPC then answers UNIMPLEMENTED (a server built for health and
  // reflection only, e.g. in tests of the process lifecycle).
  // `auth` may be null: no caller authentication. Neither is owned.
  // `metrics` may be null: nothing is counted. `admission` may be null: no global bounds.
  explicit JobExecutorService(executor::JobExecutor* executor = nullptr,
                              TokenAuthenticator* auth = nullptr, Metrics* metrics = nullptr,
                              Admission* admission = nullptr)
      : executor_(executor), auth_(auth), metrics_(metrics), admission_(admission) {
    SetMessageAllocatorFor_Submit(&submit_messages_);
    SetMessageAllocatorFor_Cancel(&cancel_messages_);
    SetMessageAllocatorFor_Output(&output_messages_);
    SetMessageAllocatorFor_ListJobs(&list_messages_);
  }

  // Reactors of this process made and not yet freed: 0 once a server has shut down, whatever
  // its calls did (tests hold the reactors' lifetime to it).
  static int64_t LiveReactors();

  grpc::ServerUnaryReactor* Submit(grpc::CallbackServerContext* ctx,
                                   const jobexecutor::v1::SubmitRequest* request,
                                   jobexecutor::v1::SubmitResponse* response) override;
  // A StatusRequest in, a JobInfo out, in wire form.
  grpc::ServerUnaryReactor* Status(grpc::CallbackServerContext* ctx,
                                   const grpc::ByteBuffer* request,
                                   grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* Cancel(grpc::CallbackServerContext* ctx,
                                   const jobexecutor::v1::CancelRequest* request,
                                   jobexecutor::v1::CancelResponse* response) override;
  grpc::ServerUnaryReactor* Output(grpc::CallbackServerContext* ctx,
                                   const jobexecutor::v1::OutputRequest* request,
                                   jobexecutor::v1::OutputResponse* response) override;
  grpc::ServerWriteReactor<jobexecutor::v1::JobInfo>* WatchStatus(
      grpc::CallbackServerContext* ctx,
      const jobexecutor::v1::WatchStatusRequest* request) override;
  grpc::ServerWriteReactor<jobexecutor::v1::OutputChunk>* FollowOutput(
      grpc::CallbackServerContext* ctx,
      const jobexecutor::v1::FollowOutputRequest* request) override;
  grpc::ServerUnaryReactor* ListJobs(grpc::CallbackServerContext* ctx,
                                     const jobexecutor::v1::ListJobsRequest* request,
                                     jobexecutor::v1::ListJobsResponse* response) override;
  grpc::ServerUnaryReactor* Events(grpc::CallbackServerContext* ctx,
                                   const jobexecutor::v1::EventsRequest* request,
                                   jobexecutor::v1::EventsResponse* response) override;
  grpc::ServerUnaryReactor* ProxyUi(grpc::CallbackServerContext* ctx,
                                    const jobexecutor::v1::ProxyUiRequest* request,
                                    jobexecutor::v1::ProxyUiResponse* response) override;
  grpc::ServerUnaryReactor* CreateSchedule(grpc::CallbackServerContext* ctx,
                                           const jobexecutor::v1::CreateScheduleRequest* request,
                                           jobexecutor::v1::ScheduleInfo* response) override;
  grpc::ServerUnaryReactor* GetSchedule(grpc::CallbackServerContext* ctx,
                                        const jobexecutor::v1::GetScheduleRequest* request,
                                        jobexecutor::v1::ScheduleInfo* response) override;
  grpc::ServerUnaryReactor* ListSchedules(
      grpc::CallbackServerContext* ctx, const jobexecutor::v1::ListSchedulesRequest* request,
      jobexecutor::v1::ListSchedulesResponse* response) override;
  grpc::ServerUnaryReactor* UpdateSchedule(grpc::CallbackServerContext* ctx,
                                           const jobexecutor::v1::UpdateScheduleRequest* request,
                                           jobexecutor::v1::ScheduleInfo* response) override;
  grpc::ServerUnaryReactor* DeleteSchedule(
      grpc::CallbackServerContext* ctx, const jobexecutor::v1::DeleteScheduleRequest* request,
      jobexecutor::v1::DeleteScheduleResponse* response) override;
  grpc::ServerUnaryReactor* RunScheduleNow(
      grpc::CallbackServerContext* ctx, const jobexecutor::v1::RunScheduleNowRequest* request,
      jobexecutor::v1::RunScheduleNowResponse* response) override;
  // Client streaming (upload_reactor.cc); FAILED_PRECONDITION without staging.
  grpc::ServerReadReactor<jobexecutor::v1::UploadArtifactsRequest>* UploadArtifacts(
      grpc::CallbackServerContext* ctx,
      jobexecutor::v1::UploadArtifactsResponse* response) override;

  // The staging store uploads go to (not owned; must outlive the server); none by default.
  void EnableStaging(staging::Stager* stager) { stager_ = stager; }

 private:
  // UNAUTHENTICATED (with nothing else said) unless the caller's bearer token is right.
  absl::Status Authenticate(grpc::CallbackServerContext* ctx) const;
  // A reactor for the call, or nullptr after answering UNAUTHENTICATED.
  grpc::ServerUnaryReactor* Unauthenticated(grpc::CallbackServerContext* ctx, const char* method);

  // What every unary RPC whose work runs in the executor does first: the caller's token, an
  // executor, the request's own checks (`check`, asked only then), a place under
  // server.maxConcurrentRpcs. Either the reactor for the work, holding its place, or the call
  // already answered.
  struct UnaryStart {
    CallReactor* reactor = nullptr;
    grpc::ServerUnaryReactor* answered = nullptr;
  };
  UnaryStart StartUnary(
      grpc::CallbackServerContext* ctx, const char* method,
      absl::FunctionRef<absl::Status()> check = [] { return absl::OkStatus(); });

  // A stream's checks before its work starts: the caller's token, an executor, and a place under
  // server.maxStreams (held by `reactor`).
  absl::Status AdmitStream(grpc::CallbackServerContext* ctx, const char* method,
                           RpcLifetime& reactor);
  // A place under the global bound of `kind` (an empty ticket without bounds), or the refusal.
  absl::StatusOr<Admission::Ticket> Admit(Admission::Kind kind);

  executor::JobExecutor* executor_;
  TokenAuthenticator* auth_;
  Metrics* metrics_;
  Admission* admission_;
  staging::Stager* stager_ = nullptr;
  ArenaMessageAllocator<jobexecutor::v1::SubmitRequest, jobexecutor::v1::SubmitResponse>
      submit_messages_;
  ArenaMessageAllocator<jobexecutor::v1::CancelRequest, jobexecutor::v1::CancelResponse>
      cancel_messages_;
  ArenaMessageAllocator<jobexecutor::v1::OutputRequest, jobexecutor::v1::OutputResponse>
      output_messages_;
  ArenaMessageAllocator<jobexecutor::v1::ListJobsRequest, jobexecutor::v1::ListJobsResponse>
      list_messages_;
};

}  // namespace kje::server
