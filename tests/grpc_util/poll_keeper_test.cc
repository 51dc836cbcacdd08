#include "grpc_util/poll_keeper.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "base/clock.h"
#include "server/grpc_server.h"
#include "server/metrics.h"
#include "tests/server/prometheus_text.h"

namespace kje::grpc_util {
namespace {

using kje::testing::ParsePromText;

// The codes of a keeper's calls, and a notification once `want` of them have completed.
struct Calls {
  explicit Calls(size_t want) : want(want) {}

  std::function<void(const grpc::Status&)> Hook() {
    return [this](const grpc::Status& s) {
      std::lock_guard<std::mutex> lock(mu);
      codes.push_back(s.error_code());
      if (codes.size() == want) enough.Notify();
    };
  }

  std::vector<grpc::StatusCode> Codes() {
    std::lock_guard<std::mutex> lock(mu);
    return codes;
  }

  const size_t want;
  std::mutex mu;
  std::vector<grpc::StatusCode> codes;
  absl::Notification enough;
};

double UnknownCalls(const server::Metrics& metrics) {
  auto t = ParsePromText(metrics.Render());
  REQUIRE(t.errors.empty());
  double n = 0;
  for (const auto& sample : t.Matching("grpc_server_handled_total",
                                       {{"grpc_service", "unknown"}, {"grpc_method", "unknown"}})) {
    n += sample.value;
  }
  return n;
}

struct Served {
  FakeClock clock;
  server::Metrics metrics{"test", clock};
  std::unique_ptr<server::GrpcServer> server;

  Served() {
    server::ServerConfig config;
    config.listen = "127.0.0.1:0";
    auto s = server::GrpcServer::Start(config, {}, &metrics);
    REQUIRE(s.ok());
    server = std::move(*s);
  }
};

TEST_CASE("poll keeper: calls its method again and again, each answered, none counted",
          "[poll_keeper]") {
  Served s;
  Calls calls(5);
  {
    PollKeeper keeper(s.server->server()->InProcessChannel(grpc::ChannelArguments()),
                      PollKeeper::kMethod, absl::Milliseconds(1), calls.Hook());
    REQUIRE(calls.enough.WaitForNotificationWithTimeout(absl::Seconds(60)));
  }
  auto codes = calls.Codes();
  REQUIRE(codes.size() >= 5);
  for (auto code : codes) CHECK(code == grpc::StatusCode::UNIMPLEMENTED);
  // Neither these ticks nor the server's own keeper's are callers.
  CHECK(UnknownCalls(s.metrics) == 0.0);
}

TEST_CASE("poll keeper: a caller from outside on the keeper's path is counted like any other",
          "[poll_keeper]") {
  Served s;
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(s.server->port()),
                                     grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  grpc::Slice empty;
  grpc::ByteBuffer request(&empty, 1);
  grpc::ByteBuffer response;
  grpc::Status status;
  absl::Notification done;
  stub.UnaryCall(&ctx, PollKeeper::kMethod, grpc::StubOptions(), &request, &response,
                 [&](grpc::Status st) {
                   status = std::move(st);
                   done.Notify();
                 });
  done.WaitForNotification();
  CHECK(status.error_code() == grpc::StatusCode::UNIMPLEMENTED);
  CHECK(UnknownCalls(s.metrics) == 1.0);
}

TEST_CASE("poll keeper: calls that fail don't stop it, and it stops when destroyed",
          "[poll_keeper]") {
  // Nothing listens on port 1: every call fails without waiting for a server.
  auto channel = grpc::CreateChannel("127.0.0.1:1", grpc::InsecureChannelCredentials());
  Calls calls(2);
  {
    PollKeeper keeper(channel, PollKeeper::kMethod, absl::Milliseconds(1), calls.Hook());
    REQUIRE(calls.enough.WaitForNotificationWithTimeout(absl::Seconds(60)));
  }
  for (auto code : calls.Codes()) CHECK(code == grpc::StatusCode::UNAVAILABLE);
}

}  // namespace
}  // namespace kje::grpc_util
