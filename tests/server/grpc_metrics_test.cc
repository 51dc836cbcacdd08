#include "server/grpc_metrics.h"

#include <google/protobuf/descriptor.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "absl/synchronization/notification.h"
#include "base/clock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "jobexecutor/v1/job_executor.grpc.pb.h"
#include "server/grpc_server.h"
#include "server/metrics.h"
#include "tests/server/prometheus_text.h"

namespace kje::server {
namespace {

namespace v1 = jobexecutor::v1;
using kje::testing::ParsePromText;
using kje::testing::PromText;

constexpr const char* kService = "jobexecutor.v1.JobExecutor";

// Submit answers OK, Status NOT_FOUND, WatchStatus streams two messages, FollowOutput waits for
// the caller to cancel; the rest keep the generated UNIMPLEMENTED.
class TestService final : public v1::JobExecutor::CallbackService {
 public:
  absl::Notification follow_started;
  absl::Notification follow_done;

  grpc::ServerUnaryReactor* Submit(grpc::CallbackServerContext* ctx, const v1::SubmitRequest*,
                                   v1::SubmitResponse* response) override {
    response->set_execution_id("exec-id-1");
    auto* reactor = ctx->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  grpc::ServerUnaryReactor* Status(grpc::CallbackServerContext* ctx, const v1::StatusRequest*,
                                   v1::JobInfo*) override {
    auto* reactor = ctx->DefaultReactor();
    reactor->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "no such job"));
    return reactor;
  }

  grpc::ServerWriteReactor<v1::JobInfo>* WatchStatus(grpc::CallbackServerContext*,
                                                     const v1::WatchStatusRequest*) override {
    class Writer final : public grpc::ServerWriteReactor<v1::JobInfo> {
     public:
      Writer() { Next(); }
      void OnWriteDone(bool ok) override {
        if (!ok) return Finish(grpc::Status::CANCELLED);
        Next();
      }
      void OnDone() override { delete this; }

     private:
      void Next() {
        if (sent_ == 2) return Finish(grpc::Status::OK);
        info_.set_execution_id("exec-" + std::to_string(++sent_));
        StartWrite(&info_);
      }
      v1::JobInfo info_;
      int sent_ = 0;
    };
    return new Writer();
  }

  grpc::ServerWriteReactor<v1::OutputChunk>* FollowOutput(grpc::CallbackServerContext*,
                                                          const v1::FollowOutputRequest*) override {
    class Waiter final : public grpc::ServerWriteReactor<v1::OutputChunk> {
     public:
      explicit Waiter(TestService* s) : s_(s) { s_->follow_started.Notify(); }
      void OnCancel() override { Finish(grpc::Status::CANCELLED); }
      void OnDone() override {
        s_->follow_done.Notify();
        delete this;
      }

     private:
      TestService* s_;
    };
    return new Waiter(this);
  }
};

struct Running {
  FakeClock clock;
  Metrics metrics{"test", clock};
  TestService service;
  std::unique_ptr<GrpcServer> server;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::JobExecutor::Stub> stub;

  Running() {
    ServerConfig config;
    config.listen = "127.0.0.1:0";
    auto s = GrpcServer::Start(config, {&service}, &metrics);
    REQUIRE(s.ok());
    server = std::move(*s);
    channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(server->port()),
                                  grpc::InsecureChannelCredentials());
    stub = v1::JobExecutor::NewStub(channel);
  }

  PromText Scrape() const {
    std::string text = metrics.Render();
    INFO(text);
    PromText t = ParsePromText(text);
    REQUIRE(t.errors.empty());
    return t;
  }
};

void WithDeadline(grpc::ClientContext& ctx) {
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
}

std::map<std::string, std::string> Labels(const char* type, const char* service, const char* method,
                                          const char* code = nullptr) {
  std::map<std::string, std::string> labels = {
      {"grpc_type", type}, {"grpc_service", service}, {"grpc_method", method}};
  if (code != nullptr) labels["grpc_code"] = code;
  return labels;
}

TEST_CASE("grpc metrics: type names", "[grpc_metrics]") {
  using Type = grpc::experimental::ServerRpcInfo::Type;
  CHECK(GrpcTypeName(Type::UNARY) == "unary");
  CHECK(GrpcTypeName(Type::CLIENT_STREAMING) == "client_stream");
  CHECK(GrpcTypeName(Type::SERVER_STREAMING) == "server_stream");
  CHECK(GrpcTypeName(Type::BIDI_STREAMING) == "bidi_stream");
}

TEST_CASE("grpc metrics: unary calls counted with their codes", "[grpc_metrics]") {
  Running r;
  for (int i = 0; i < 3; ++i) {
    grpc::ClientContext ctx;
    WithDeadline(ctx);
    v1::SubmitResponse response;
    REQUIRE(r.stub->Submit(&ctx, v1::SubmitRequest(), &response).ok());
  }
  {
    grpc::ClientContext ctx;
    WithDeadline(ctx);
    v1::JobInfo info;
    REQUIRE(r.stub->Status(&ctx, v1::StatusRequest(), &info).error_code() ==
            grpc::StatusCode::NOT_FOUND);
  }
  {
    grpc::ClientContext ctx;
    WithDeadline(ctx);
    v1::ListJobsResponse response;
    REQUIRE(r.stub->ListJobs(&ctx, v1::ListJobsRequest(), &response).error_code() ==
            grpc::StatusCode::UNIMPLEMENTED);
  }
  // The status is counted before it is sent, so the caller having it means it is counted.
  PromText t = r.Scrape();
  CHECK(t.Value("grpc_server_started_total", Labels("unary", kService, "Submit")) == 3.0);
  CHECK(t.Value("grpc_server_handled_total", Labels("unary", kService, "Submit", "OK")) == 3.0);
  CHECK(t.Matching("grpc_server_handled_total", Labels("unary", kService, "Submit")).size() == 1);
  CHECK(t.Value("grpc_server_handling_seconds_count", Labels("unary", kService, "Submit")) == 3.0);
  CHECK(t.Value("grpc_server_msg_received_total", Labels("unary", kService, "Submit")) == 3.0);
  CHECK(t.Value("grpc_server_msg_sent_total", Labels("unary", kService, "Submit")) == 3.0);
  // An error answer carries no message.
  CHECK(t.Value("grpc_server_msg_received_total", Labels("unary", kService, "Status")) == 1.0);
  CHECK(t.Value("grpc_server_msg_sent_total", Labels("unary", kService, "Status")) == 0.0);
  CHECK(t.Value("grpc_server_started_total", Labels("unary", kService, "Status")) == 1.0);
  CHECK(t.Value("grpc_server_handled_total", Labels("unary", kService, "Status", "NOT_FOUND")) ==
        1.0);
  CHECK(t.Value("grpc_server_handled_total",
                Labels("unary", kService, "ListJobs", "UNIMPLEMENTED")) == 1.0);
  CHECK(t.Matching("grpc_server_started_total", {{"grpc_method", "Cancel"}}).empty());
}

TEST_CASE("grpc metrics: server streams are server_stream and counted once", "[grpc_metrics]") {
  Running r;
  grpc::ClientContext ctx;
  WithDeadline(ctx);
  auto reader = r.stub->WatchStatus(&ctx, v1::WatchStatusRequest());
  v1::JobInfo info;
  int received = 0;
  while (reader->Read(&info)) ++received;
  REQUIRE(reader->Finish().ok());
  CHECK(received == 2);

  PromText t = r.Scrape();
  auto watch = Labels("server_stream", kService, "WatchStatus");
  CHECK(t.Value("grpc_server_started_total", watch) == 1.0);
  CHECK(t.Value("grpc_server_handled_total",
                Labels("server_stream", kService, "WatchStatus", "OK")) == 1.0);
  CHECK(t.Value("grpc_server_handling_seconds_count", watch) == 1.0);
  CHECK(t.Value("grpc_server_msg_received_total", watch) == 1.0);
  CHECK(t.Value("grpc_server_msg_sent_total", watch) == 2.0);
  CHECK(t.Matching("grpc_server_started_total", {{"grpc_method", "WatchStatus"}}).size() == 1);
}

TEST_CASE("grpc metrics: a stream the caller cancels is handled as CANCELLED", "[grpc_metrics]") {
  Running r;
  grpc::ClientContext ctx;
  WithDeadline(ctx);
  auto reader = r.stub->FollowOutput(&ctx, v1::FollowOutputRequest());
  REQUIRE(r.service.follow_started.WaitForNotificationWithTimeout(absl::Seconds(10)));
  ctx.TryCancel();
  CHECK(reader->Finish().error_code() == grpc::StatusCode::CANCELLED);
  REQUIRE(r.service.follow_done.WaitForNotificationWithTimeout(absl::Seconds(10)));

  PromText t = r.Scrape();
  CHECK(t.Value("grpc_server_started_total", Labels("server_stream", kService, "FollowOutput")) ==
        1.0);
  CHECK(t.Value("grpc_server_handled_total",
                Labels("server_stream", kService, "FollowOutput", "CANCELLED")) == 1.0);
}

TEST_CASE("grpc metrics: a service's methods start at 0, with their types", "[grpc_metrics]") {
  FakeClock clock;
  Metrics metrics("v", clock);
  const auto* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(kService);
  REQUIRE(service != nullptr);
  metrics.InitializeGrpcService(*service);
  PromText t = ParsePromText(metrics.Render());
  REQUIRE(t.errors.empty());
  CHECK(t.Value("grpc_server_started_total", Labels("unary", kService, "Submit")) == 0.0);
  CHECK(t.Value("grpc_server_started_total", Labels("server_stream", kService, "WatchStatus")) ==
        0.0);
  CHECK(t.Value("grpc_server_started_total", Labels("server_stream", kService, "FollowOutput")) ==
        0.0);
  CHECK(t.Value("grpc_server_handling_seconds_count", Labels("unary", kService, "ListJobs")) ==
        0.0);
  CHECK(t.Matching("grpc_server_started_total").size() ==
        static_cast<size_t>(service->method_count()));
  CHECK(t.Matching("grpc_server_handled_total").empty());
}

TEST_CASE("grpc metrics: the health service is counted too", "[grpc_metrics]") {
  Running r;
  auto health = grpc::health::v1::Health::NewStub(r.channel);
  for (const char* name : {"", "no.such.Service"}) {
    grpc::ClientContext ctx;
    WithDeadline(ctx);
    grpc::health::v1::HealthCheckRequest request;
    request.set_service(name);
    grpc::health::v1::HealthCheckResponse response;
    health->Check(&ctx, request, &response);
  }
  PromText t = r.Scrape();
  const char* kHealth = "grpc.health.v1.Health";
  CHECK(t.Value("grpc_server_started_total", Labels("unary", kHealth, "Check")) == 2.0);
  CHECK(t.Value("grpc_server_handled_total", Labels("unary", kHealth, "Check", "OK")) == 1.0);
  CHECK(t.Value("grpc_server_handled_total", Labels("unary", kHealth, "Check", "NOT_FOUND")) ==
        1.0);
}

}  // namespace
}  // namespace kje::server

namespace kje::server {
namespace {

TEST_CASE("grpc metrics: a path the server doesn't serve can't become a label value",
          "[grpc_metrics]") {
  Running r;
  grpc::GenericStub generic(r.channel);
  for (const char* path : {"/job-4711-secret/grpc.reflection.v1.ServerReflection/Info",
                           "/jobexecutor.v1.JobExecutor/NoSuchMethod", "/nothing"}) {
    grpc::ClientContext ctx;
    WithDeadline(ctx);
    grpc::Slice empty("");
    grpc::ByteBuffer request(&empty, 1);  // an empty message; a default ByteBuffer is none
    grpc::ByteBuffer response;
    grpc::Status status;
    absl::Notification done;
    generic.UnaryCall(&ctx, path, grpc::StubOptions(), &request, &response, [&](grpc::Status s) {
      status = std::move(s);
      done.Notify();
    });
    done.WaitForNotification();
    CHECK(status.error_code() == grpc::StatusCode::UNIMPLEMENTED);
  }
  std::string text = r.metrics.Render();
  CHECK(text.find("4711") == std::string::npos);
  CHECK(text.find("NoSuchMethod") == std::string::npos);
  PromText t = r.Scrape();
  double unknown = 0;
  for (const auto& sample : t.Matching("grpc_server_handled_total",
                                       {{"grpc_service", "unknown"}, {"grpc_method", "unknown"}})) {
    unknown += sample.value;
  }
  CHECK(unknown == 3.0);
}

}  // namespace
}  // namespace kje::server
