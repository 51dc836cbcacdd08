#pragma once

// Per-RPC bookkeeping shared by every handler: a request id (the caller's x-request-id when it
// sends a usable one, else a fresh one), echoed in the initial metadata and put on every log line
// of the RPC, and one log line when the RPC finishes, with its code and duration.

#include <grpcpp/grpcpp.h>

#include <string>
#include <string_view>

#include "absl/time/time.h"

namespace kje::server {

class RpcContext {
 public:
  RpcContext(grpc::CallbackServerContext* ctx, std::string_view method);

  const std::string& request_id() const { return request_id_; }
  const std::string& method() const { return method_; }

  // Logs the outcome; call exactly once, right before the reactor's Finish.
  void LogFinish(const grpc::Status& status) const;

 private:
  std::string method_;
  std::string request_id_;
  // Valid until the reactor finishes, so the peer is only formatted when a line is logged.
  grpc::CallbackServerContext* ctx_;
  absl::Time start_;
};

// A request id from the caller is kept only if it is short and plain, so it can't inject into
// log lines; otherwise a random 16-hex-digit id is made.
std::string SanitizeOrMakeRequestId(std::string_view from_caller);

}  // namespace kje::server
