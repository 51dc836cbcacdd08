#include "server/reactors.h"

#include "absl/strings/str_cat.h"

namespace kje::server {

absl::Status NotConfiguredStatus(const char* method) {
  return absl::UnimplementedError(
      absl::StrCat(method, " is not available: this server runs without a Kubernetes executor"));
}

grpc::ServerUnaryReactor* FinishNow(grpc::CallbackServerContext* ctx, std::string_view method,
                                    const absl::Status& status) {
  RpcContext rpc(ctx, method);
  grpc::Status s = ToGrpcStatus(status);
  log::Event line = rpc.FinishLine(s);
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  reactor->Finish(std::move(s));
  return reactor;
}

}  // namespace kje::server
