#include "server/protobuf_log.h"

#include <google/protobuf/stubs/logging.h>

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
  log::Event line = log::Warn("protobuf");
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

}  // namespace

void RouteProtobufLog() { google::protobuf::SetLogHandler(&Handle); }

}  // namespace kje::server
