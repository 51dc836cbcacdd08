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
  if (read_ && !UsableRequestId(from_caller)) return;  // made in LogFinish if logged
  request_id_ = SanitizeOrMakeRequestId(from_caller);
  ctx->AddInitialMetadata("x-request-id", request_id_);
}

void RpcContext::LogFinish(const grpc::Status& status) {
  // Answered reads are what callers poll, thousands a second: a line each would cost more than
  // the answer (and flood the log), so they are debug; changes and failures stay visible.
  log::Level level = !status.ok() ? log::Level::kWarn
                     : read_      ? log::Level::kDebug
                                  : log::Level::kInfo;
  if (!log::Enabled(level)) return;
  if (request_id_.empty()) {
    request_id_ = SanitizeOrMakeRequestId("");
    ctx_->AddInitialMetadata("x-request-id", request_id_);
  }
  double ms = absl::ToDoubleMilliseconds(absl::Now() - start_);
  log::Event e(level, "rpc finished");
  e.Kv("rpc", method_)
      .Kv("request_id", request_id_)
      .Kv("peer", ctx_->peer())
      .Kv("code", static_cast<int>(status.error_code()));
  e.Kv("duration_ms", ms);
  if (!status.ok()) e.Kv("error", status.error_message());
}

}  // namespace kje::server
