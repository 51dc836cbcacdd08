#include "server/rpc_context.h"

#include <cstdint>
#include <random>

#include "absl/strings/str_format.h"
#include "base/log.h"

namespace kje::server {

bool UsableRequestId(std::string_view from_caller) {
  bool usable = !from_caller.empty() && from_caller.size() <= 64;
  for (char c : from_caller) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    usable &= ok;
  }
  return usable;
}

std::string SanitizeOrMakeRequestId(std::string_view from_caller) {
  if (UsableRequestId(from_caller)) return std::string(from_caller);
  thread_local std::mt19937_64 rng(std::random_device{}());
  return absl::StrFormat("%016x", rng());
}

RpcContext::RpcContext(grpc::CallbackServerContext* ctx, std::string_view method)
    : method_(method),
      read_(method == "Status" || method == "Output" || method == "ListJobs"),
      ctx_(ctx),
      start_(absl::Now()) {
  std::string_view from_caller;
  const auto& md = ctx->client_metadata();
  if (auto it = md.find("x-request-id"); it != md.end()) {
    from_caller = std::string_view(it->second.data(), it->second.size());
  }
  if (read_ && !UsableRequestId(from_caller)) return;  // made in FinishLine if logged
  request_id_ = SanitizeOrMakeRequestId(from_caller);
  ctx->AddInitialMetadata("x-request-id", request_id_);
}

log::Level RpcLogLevel(grpc::StatusCode code, bool read) {
  switch (code) {
    // Answers: what the caller asked for was done, or refused because of what it asked. Reads
    // are what callers poll, thousands a second (a job deleted under a poller answers NOT_FOUND
    // each time): a line each would cost more than the answer and flood the log, so they are
    // debug; a change is worth a line.
    case grpc::StatusCode::OK:
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::UNAUTHENTICATED:
      return read ? log::Level::kDebug : log::Level::kInfo;
    // The service or the cluster could not answer now: an operator may have to act.
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::ABORTED:
    case grpc::StatusCode::OUT_OF_RANGE:
    case grpc::StatusCode::UNAVAILABLE:
      return log::Level::kWarn;
    default:  // UNKNOWN, UNIMPLEMENTED, INTERNAL, DATA_LOSS: a fault of ours
      return log::Level::kError;
  }
}

log::Event RpcContext::FinishLine(const grpc::Status& status) {
  log::Level level = RpcLogLevel(status.error_code(), read_);
  log::Event e(level, "rpc finished");
  if (!e.enabled()) return e;
  if (request_id_.empty()) {
    request_id_ = SanitizeOrMakeRequestId("");
    ctx_->AddInitialMetadata("x-request-id", request_id_);
  }
  double ms = absl::ToDoubleMilliseconds(absl::Now() - start_);
  e.Kv("rpc", method_).Kv("request_id", request_id_).Kv("peer", ctx_->peer());
  for (const auto& [key, value] : notes_) e.Kv(key, value);
  e.Kv("code", static_cast<int>(status.error_code()));
  e.Kv("duration_ms", ms);
  if (!status.ok()) e.Kv("error", status.error_message());
  return e;
}

}  // namespace kje::server
