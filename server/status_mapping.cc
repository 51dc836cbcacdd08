#include "server/status_mapping.h"

#include <string>

#include "base/mask.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::server {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // gRPC carries the message in the answer's metadata, which every client caps (8 KiB by
  // default): an over-long one would turn the answer into RESOURCE_EXHAUSTED on the caller's side.
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      BoundMessage(MaskText(ToStd(status.message()))));
}

}  // namespace kje::server
