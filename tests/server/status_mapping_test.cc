#include "server/status_mapping.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "base/quote.h"

namespace kje::server {
namespace {

TEST_CASE("A status keeps its code and its message at the edge") {
  grpc::Status s = ToGrpcStatus(absl::NotFoundError("no such job"));
  CHECK(s.error_code() == grpc::StatusCode::NOT_FOUND);
  CHECK(s.error_message() == "no such job");
  CHECK(ToGrpcStatus(absl::OkStatus()).ok());
}

TEST_CASE("No message a caller receives exceeds the bound, whatever made it") {
  // A message that quoted a 9000-byte input whole, as every quote did before QuoteBounded.
  std::string message = "Invalid job execution id \"" + std::string(9000, 'a') + "\"";
  grpc::Status s = ToGrpcStatus(absl::InvalidArgumentError(message));
  CHECK(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK(s.error_message().size() <= kMaxMessageBytes);
  CHECK(absl::StartsWith(s.error_message(), "Invalid job execution id \"aaa"));
  CHECK(absl::EndsWith(s.error_message(), "... (9027 bytes)"));
}

}  // namespace
}  // namespace kje::server
