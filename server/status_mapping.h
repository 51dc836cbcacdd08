#pragma once

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"

namespace kje::server {

// The one place where an internal absl::Status becomes what a caller sees. The canonical codes
// are numerically the same in Abseil and gRPC.
grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace kje::server
