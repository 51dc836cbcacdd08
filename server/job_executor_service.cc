#include "server/job_executor_service.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "server/rpc_context.h"

namespace kje::server {
namespace {

// The SparkApplication executor behind these RPCs is not wired in yet. Answering UNIMPLEMENTED
// with the reason, rather than anything made up, lets a caller tell this build apart.
grpc::ServerUnaryReactor* NotYet(grpc::CallbackServerContext* ctx, const char* method) {
  RpcContext rpc(ctx, method);
  grpc::Status status(grpc::StatusCode::UNIMPLEMENTED,
                      absl::StrCat(method,
                                   " is not implemented in this build yet: the SparkApplication "
                                   "executor lands with the executor milestone"));
  rpc.LogFinish(status);
  auto* reactor = ctx->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

}  // namespace

grpc::ServerUnaryReactor* JobExecutorService::Submit(grpc::CallbackServerContext* ctx,
                                                     const jobexecutor::v1::SubmitRequest*,
                                                     jobexecutor::v1::SubmitResponse*) {
  return NotYet(ctx, "Submit");
}

grpc::ServerUnaryReactor* JobExecutorService::Status(grpc::CallbackServerContext* ctx,
                                                     const jobexecutor::v1::StatusRequest*,
                                                     jobexecutor::v1::JobInfo*) {
  return NotYet(ctx, "Status");
}

grpc::ServerUnaryReactor* JobExecutorService::Cancel(grpc::CallbackServerContext* ctx,
                                                     const jobexecutor::v1::CancelRequest*,
                                                     jobexecutor::v1::CancelResponse*) {
  return NotYet(ctx, "Cancel");
}

grpc::ServerUnaryReactor* JobExecutorService::Output(grpc::CallbackServerContext* ctx,
                                                     const jobexecutor::v1::OutputRequest*,
                                                     jobexecutor::v1::OutputResponse*) {
  return NotYet(ctx, "Output");
}

}  // namespace kje::server
