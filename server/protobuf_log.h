#pragma once

// Protobuf writes its own lines to stderr, outside our log's format, and one of them comes from
// any caller that wants it: each request with a string field that isn't UTF-8 gets "String field
// ... contains invalid UTF-8 data" as the request is refused. Routed here, they become our log's
// warnings, at most one per window, the next one naming how many were dropped meanwhile: a
// caller can't flood the log through protobuf.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/clock.h"

namespace kje::server {

// The rate limit itself, apart from protobuf's process-wide hook so that it can be tested.
class ProtobufLogLimiter {
 public:
  // `source` names the library in each line ("protobuf", "grpc").
  ProtobufLogLimiter(const Clock& clock, absl::Duration window,
                     std::string_view source = "protobuf")
      : clock_(clock), window_(window), source_(source) {}

  // Logs `message` (protobuf's text: names of fields and types, never a value) unless a line was
  // logged less than a window ago; then it only counts it.
  void Log(std::string_view message);

 private:
  const Clock& clock_;
  const absl::Duration window_;
  const std::string source_;
  absl::Mutex mu_;
  absl::Time last_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  uint64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
};

// From here on, protobuf's lines go through one process-wide limiter of a minute's window.
// Protobuf's FATAL lines are left to protobuf (it aborts after them).
void RouteProtobufLog();

// The same for gRPC core's own lines (a port in use, a TLS handshake a caller failed: any
// caller can cause one), through a limiter of their own.
void RouteGrpcCoreLog();

}  // namespace kje::server
