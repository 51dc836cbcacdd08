#include "server/grpc_metrics.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/strings.h"
#include "grpc_util/poll_keeper.h"

namespace kje::server {
namespace {

using grpc::experimental::InterceptionHookPoints;
using grpc::experimental::ServerRpcInfo;

class MetricsInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit MetricsInterceptor(Metrics::GrpcMethodSeries* series)
      : series_(series), start_(std::chrono::steady_clock::now()) {
    series_->Started();
  }

  // A call that ends without the server sending a status (the client went away first) still
  // counts as handled, so started - handled is the number in flight.
  ~MetricsInterceptor() override { Handled(grpc::StatusCode::CANCELLED); }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE)) {
      series_->MessageReceived();
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_MESSAGE)) {
      series_->MessageSent();
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      Handled(methods->GetSendStatus().error_code());
    }
    methods->Proceed();
  }

 private:
  // Once per call: the status hook and the interceptor's end can run on different threads.
  void Handled(grpc::StatusCode code) {
    if (handled_.exchange(true)) return;
    series_->Handled(code, absl::FromChrono(std::chrono::steady_clock::now() - start_));
  }

  Metrics::GrpcMethodSeries* const series_;
  const std::chrono::steady_clock::time_point start_;
  std::atomic<bool> handled_ = false;
};

}  // namespace

std::string_view GrpcTypeName(ServerRpcInfo::Type type) {
  switch (type) {
    case ServerRpcInfo::Type::UNARY:
      return "unary";
    case ServerRpcInfo::Type::CLIENT_STREAMING:
      return "client_stream";
    case ServerRpcInfo::Type::SERVER_STREAMING:
      return "server_stream";
    case ServerRpcInfo::Type::BIDI_STREAMING:
      return "bidi_stream";
  }
  return "unknown";
}

namespace {

// A call over TCP or a Unix socket has its peer's address ("ipv4:…", "ipv6:…", "unix:…") when
// its interceptors are made; an in-process one has none yet ("unknown").
bool FromNetwork(grpc::ServerContextBase* ctx) {
  return ctx != nullptr && ctx->peer().find(':') != std::string::npos;
}

}  // namespace

grpc::experimental::Interceptor* GrpcMetricsInterceptorFactory::CreateServerInterceptor(
    ServerRpcInfo* info) {
  // "/package.Service/Method". Unregistered methods arrive too (with the caller's path): they
  // are counted, under fixed labels.
  std::string_view full = info->method() != nullptr ? info->method() : "";
  // The server's own keeper (poll_keeper.h) is no caller: its ticks would be four "unknown"
  // calls a second on every dashboard. Only in-process calls are left out, so a caller that
  // sends the same path over the network is counted like any other.
  if (full == grpc_util::PollKeeper::kMethod && !FromNetwork(info->server_context())) {
    return nullptr;
  }
  size_t slash = full.rfind('/');
  std::string_view service = "unknown";
  std::string_view method = "unknown";
  if (full.size() >= 3 && full[0] == '/' && slash != 0 && slash + 1 < full.size()) {
    std::string_view s = full.substr(1, slash - 1);
    std::string_view m = full.substr(slash + 1);
    const auto* d = google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
        absl::StrCat(ToAbsl(s), ".", ToAbsl(m)));
    if (d != nullptr && std::find(services_.begin(), services_.end(), s) != services_.end()) {
      service = s;
      method = m;
    }
  }
  return new MetricsInterceptor(metrics_->GrpcSeries(GrpcTypeName(info->type()), service, method));
}

}  // namespace kje::server
