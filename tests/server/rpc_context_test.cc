#include "server/rpc_context.h"

#include <catch2/catch.hpp>

namespace kje::server {
namespace {

using grpc::StatusCode;

TEST_CASE(
    "a read answered, found or not, is logged at debug; the same answer to a change at info") {
  for (StatusCode code : {StatusCode::OK, StatusCode::NOT_FOUND, StatusCode::INVALID_ARGUMENT,
                          StatusCode::CANCELLED, StatusCode::UNAUTHENTICATED}) {
    CAPTURE(code);
    CHECK(RpcLogLevel(code, /*read=*/true) == log::Level::kDebug);
    CHECK(RpcLogLevel(code, /*read=*/false) == log::Level::kInfo);
  }
  CHECK(RpcLogLevel(StatusCode::ALREADY_EXISTS, false) == log::Level::kInfo);
}

TEST_CASE("a failure of the service or the cluster is a warning for reads and changes alike") {
  for (StatusCode code :
       {StatusCode::UNAVAILABLE, StatusCode::DEADLINE_EXCEEDED, StatusCode::RESOURCE_EXHAUSTED,
        StatusCode::PERMISSION_DENIED, StatusCode::FAILED_PRECONDITION, StatusCode::ABORTED}) {
    CAPTURE(code);
    CHECK(RpcLogLevel(code, true) == log::Level::kWarn);
    CHECK(RpcLogLevel(code, false) == log::Level::kWarn);
  }
}

TEST_CASE("a fault of the service is an error") {
  for (StatusCode code : {StatusCode::INTERNAL, StatusCode::UNKNOWN, StatusCode::UNIMPLEMENTED,
                          StatusCode::DATA_LOSS}) {
    CAPTURE(code);
    CHECK(RpcLogLevel(code, true) == log::Level::kError);
  }
}

}  // namespace
}  // namespace kje::server
