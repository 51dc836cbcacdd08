#include "server/protobuf_log.h"

#include <google/protobuf/stubs/logging.h>
#include <grpc/support/log.h>

#include "base/log.h"

namespace kje::server {

void ProtobufLogLimiter::Log(std::string_view message) {
  uint64_t dropped = 0;
  {
    absl::MutexLock lock(&mu_);
    absl::Time now = clock_.Now();
    if (now - last_ < window_) {
      ++dropped_;
      return;
    }
    last_ = now;
    dropped = dropped_;
    dropped_ = 0;
  }
  // Written outside the lock: a slow stderr holds back no other caller's count.
  log::Event line = log::Warn(source_);
  line.Kv("message", message);
  if (dropped > 0) line.Kv("dropped_since_last", dropped);
}

namespace {

ProtobufLogLimiter& Limiter() {
  static ProtobufLogLimiter limiter(RealClock::Get(), absl::Minutes(1));
  return limiter;
}

void Handle(google::protobuf::LogLevel level, const char* /*filename*/, int /*line*/,
            const std::string& message) {
  if (level == google::protobuf::LOGLEVEL_FATAL) return;
  Limiter().Log(message);
}

void HandleGrpcCore(gpr_log_func_args* args) {
  static ProtobufLogLimiter limiter(RealClock::Get(), absl::Minutes(1), "grpc");
  limiter.Log(args->message != nullptr ? args->message : "");
}

}  // namespace

void RouteProtobufLog() { google::protobuf::SetLogHandler(&Handle); }

void RouteGrpcCoreLog() { gpr_set_log_function(&HandleGrpcCore); }

}  // namespace kje::server
