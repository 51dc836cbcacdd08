#pragma once

#include "jobexecutor/v1/job_executor.grpc.pb.h"

namespace kje::server {

// The gRPC edge of jobexecutor.v1.JobExecutor: callback reactors that never block.
class JobExecutorService final : public jobexecutor::v1::JobExecutor::CallbackService {
 public:
  grpc::ServerUnaryReactor* Submit(grpc::CallbackServerContext* ctx,
                                   const jobexecutor::v1::SubmitRequest* request,
                                   jobexecutor::v1::SubmitResponse* response) override;
  grpc::ServerUnaryReactor* Status(grpc::CallbackServerContext* ctx,
                                   const jobexecutor::v1::StatusRequest* request,
                                   jobexecutor::v1::JobInfo* response) override;
  grpc::ServerUnaryReactor* Cancel(grpc::CallbackServerContext* ctx,
                                   const jobexecutor::v1::CancelRequest* request,
                                   jobexecutor::v1::CancelResponse* response) override;
  grpc::ServerUnaryReactor* Output(grpc::CallbackServerContext* ctx,
                                   const jobexecutor::v1::OutputRequest* request,
                                   jobexecutor::v1::OutputResponse* response) override;
};

}  // namespace kje::server
