#pragma once

// Per-RPC bookkeeping shared by every handler: a request id (the caller's x-request-id when it
// sends a usable one, else a fresh one), echoed in the initial metadata and put on every log line
// of the RPC, and one log line when the RPC finishes, with its code and duration.
//
// A unary read that the caller sent no usable id for gets one only if its line is logged (a
// failure the caller did not cause, or debug logging): an id that no log line carries correlates
// nothing, and a cached Status is cheap enough that making, sending and parsing one was a tenth of
// its cost.

#include <grpcpp/grpcpp.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "base/log.h"

namespace kje::server {

class RpcContext {
 public:
  // `method` is the RPC's name, a literal.
  RpcContext(grpc::CallbackServerContext* ctx, std::string_view method);

  const std::string& request_id() const { return request_id_; }

  // A field for the outcome's line (`key`, a literal), such as the job a Submit was for: one line
  // says what the call did. Called before FinishLine, on the thread that then calls it.
  void Note(std::string_view key, std::string value) { notes_.emplace_back(key, std::move(value)); }

  // The outcome's line; call exactly once, right before the reactor's Finish (a unary read's id,
  // when one is made here, goes out with the answer), and let the line go after Finish: its
  // write, a system call, then comes after the answer, not before it. The line holds nothing of
  // the call's, which may be gone once Finish is called.
  [[nodiscard]] log::Event FinishLine(const grpc::Status& status);

 private:
  std::string_view method_;  // a literal, the RPC's name: it outlives the call
  bool read_;  // Status, Output, ListJobs: unary, polled, logged at debug when answered
  std::string request_id_;
  std::vector<std::pair<std::string_view, std::string>> notes_;
  // Valid until the reactor finishes, so the peer is only formatted when a line is logged.
  grpc::CallbackServerContext* ctx_;
  absl::Time start_;
};

// A request id from the caller is kept only if it is short and plain, so it can't inject into
// log lines; otherwise a random 16-hex-digit id is made.
std::string SanitizeOrMakeRequestId(std::string_view from_caller);
// Whether the caller's id is kept as it is.
bool UsableRequestId(std::string_view from_caller);
// The level of an RPC's `rpc finished` line: debug for a read answered (found or not), info for a
// change answered or refused for its input, warn when the service or cluster could not answer,
// error for a fault of the service.
log::Level RpcLogLevel(grpc::StatusCode code, bool read);

}  // namespace kje::server
