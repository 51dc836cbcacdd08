#include "server/grpc_server.h"

#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "grpc/health/v1/health.grpc.pb.h"
#include "jobexecutor/v1/job_executor.grpc.pb.h"
#include "server/job_executor_service.h"

namespace kje::server {
namespace {

using grpc::health::v1::Health;
using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

struct Running {
  JobExecutorService service;
  std::unique_ptr<GrpcServer> server;
  std::shared_ptr<grpc::Channel> channel;

  Running() {
    ServerConfig config;
    config.listen = "127.0.0.1:0";
    auto s = GrpcServer::Start(config, {&service});
    REQUIRE(s.ok());
    server = std::move(*s);
    REQUIRE(server->port() > 0);
    channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(server->port()),
                                  grpc::InsecureChannelCredentials());
  }
};

void WithDeadline(grpc::ClientContext& ctx) {
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
}

grpc::Status Check(grpc::Channel& channel, const std::string& service,
                   HealthCheckResponse::ServingStatus* out) {
  auto stub = Health::NewStub(std::shared_ptr<grpc::Channel>(&channel, [](grpc::Channel*) {}));
  grpc::ClientContext ctx;
  WithDeadline(ctx);
  HealthCheckRequest req;
  req.set_service(service);
  HealthCheckResponse resp;
  grpc::Status status = stub->Check(&ctx, req, &resp);
  *out = resp.status();
  return status;
}

TEST_CASE("grpc server: binds port 0 and answers health", "[server]") {
  Running r;
  for (const char* name : {"", "liveness", "readiness", "jobexecutor.v1.JobExecutor"}) {
    CAPTURE(name);
    HealthCheckResponse::ServingStatus st;
    REQUIRE(Check(*r.channel, name, &st).ok());
    CHECK(st == HealthCheckResponse::SERVING);
  }
  HealthCheckResponse::ServingStatus st;
  CHECK(Check(*r.channel, "no.such.Service", &st).error_code() == grpc::StatusCode::NOT_FOUND);
}

TEST_CASE("grpc server: readiness follows SetReady, liveness does not", "[server]") {
  Running r;
  r.server->SetReady(false);
  HealthCheckResponse::ServingStatus st;
  for (const char* name : {"readiness", "jobexecutor.v1.JobExecutor"}) {
    CAPTURE(name);
    REQUIRE(Check(*r.channel, name, &st).ok());
    CHECK(st == HealthCheckResponse::NOT_SERVING);
  }
  for (const char* name : {"", "liveness"}) {
    CAPTURE(name);
    REQUIRE(Check(*r.channel, name, &st).ok());
    CHECK(st == HealthCheckResponse::SERVING);
  }
  r.server->SetReady(true);
  for (const char* name : {"readiness", "jobexecutor.v1.JobExecutor"}) {
    CAPTURE(name);
    REQUIRE(Check(*r.channel, name, &st).ok());
    CHECK(st == HealthCheckResponse::SERVING);
  }
}

TEST_CASE("grpc server: RPCs without an executor say so", "[server]") {
  Running r;
  auto stub = jobexecutor::v1::JobExecutor::NewStub(r.channel);
  grpc::ClientContext ctx;
  WithDeadline(ctx);
  jobexecutor::v1::StatusRequest req;
  req.set_execution_id("default/sparkapp/default/gravitino-job-1");
  jobexecutor::v1::JobInfo info;
  grpc::Status status = stub->Status(&ctx, req, &info);
  CHECK(status.error_code() == grpc::StatusCode::UNIMPLEMENTED);
  CHECK_THAT(status.error_message(),
             Catch::StartsWith("Status is not available: this server runs without a Kubernetes"));
  CHECK(info.status() == jobexecutor::v1::JobInfo::STATUS_UNSPECIFIED);
}

TEST_CASE("grpc server: a request id is echoed, or made when missing or unusable", "[server]") {
  Running r;
  auto stub = jobexecutor::v1::JobExecutor::NewStub(r.channel);
  auto call = [&](const char* given) {
    grpc::ClientContext ctx;
    WithDeadline(ctx);
    if (given != nullptr) ctx.AddMetadata("x-request-id", given);
    jobexecutor::v1::CancelRequest req;
    jobexecutor::v1::CancelResponse resp;
    (void)stub->Cancel(&ctx, req, &resp);
    auto md = ctx.GetServerInitialMetadata();
    auto it = md.find("x-request-id");
    REQUIRE(it != md.end());
    return std::string(it->second.data(), it->second.size());
  };
  CHECK(call("req-42.a_b") == "req-42.a_b");
  std::string made = call(nullptr);
  CHECK(made.size() == 16);
  CHECK(made.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(call(nullptr) != made);
  std::string injected = call("a b=c");
  CHECK(injected != "a b=c");
  CHECK(injected.size() == 16);
}

TEST_CASE("grpc server: shutdown stops serving and is idempotent", "[server]") {
  Running r;
  HealthCheckResponse::ServingStatus st;
  REQUIRE(Check(*r.channel, "", &st).ok());
  r.server->Shutdown(absl::Seconds(5));
  r.server->Shutdown(absl::Seconds(5));
  auto fresh = grpc::CreateChannel("127.0.0.1:" + std::to_string(r.server->port()),
                                   grpc::InsecureChannelCredentials());
  CHECK(Check(*fresh, "", &st).error_code() == grpc::StatusCode::UNAVAILABLE);
}

TEST_CASE("grpc server: an address in use is a clear error", "[server]") {
  Running r;
  JobExecutorService other;
  ServerConfig config;
  config.listen = "127.0.0.1:" + std::to_string(r.server->port());
  auto s = GrpcServer::Start(config, {&other});
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(std::string(s.status().message()),
             Catch::StartsWith("server.listen: can't listen on"));
}

TEST_CASE("grpc server: the health-only port mirrors health and serves nothing else", "[server]") {
  JobExecutorService service;
  ServerConfig config;
  config.listen = "127.0.0.1:0";
  config.health_listen = "127.0.0.1:0";
  auto started = GrpcServer::Start(config, {&service});
  REQUIRE(started.ok());
  std::unique_ptr<GrpcServer> server = std::move(*started);
  REQUIRE(server->health_port() > 0);
  CHECK(server->health_port() != server->port());
  auto health = grpc::CreateChannel("127.0.0.1:" + std::to_string(server->health_port()),
                                    grpc::InsecureChannelCredentials());
  HealthCheckResponse::ServingStatus st;
  for (const char* name : {"", "liveness", "readiness", "jobexecutor.v1.JobExecutor"}) {
    CAPTURE(name);
    REQUIRE(Check(*health, name, &st).ok());
    CHECK(st == HealthCheckResponse::SERVING);
  }
  server->SetReady(false);
  REQUIRE(Check(*health, "readiness", &st).ok());
  CHECK(st == HealthCheckResponse::NOT_SERVING);
  REQUIRE(Check(*health, "liveness", &st).ok());
  CHECK(st == HealthCheckResponse::SERVING);
  server->SetReady(true);
  REQUIRE(Check(*health, "jobexecutor.v1.JobExecutor", &st).ok());
  CHECK(st == HealthCheckResponse::SERVING);

  // The job API isn't there: plaintext on this port opens health alone.
  auto stub = jobexecutor::v1::JobExecutor::NewStub(health);
  grpc::ClientContext ctx;
  WithDeadline(ctx);
  jobexecutor::v1::StatusRequest request;
  request.set_execution_id("c/sparkapp/ns/app");
  jobexecutor::v1::JobInfo info;
  CHECK(stub->Status(&ctx, request, &info).error_code() == grpc::StatusCode::UNIMPLEMENTED);

  server->Shutdown(absl::Seconds(5));
  auto fresh = grpc::CreateChannel("127.0.0.1:" + std::to_string(server->health_port()),
                                   grpc::InsecureChannelCredentials());
  CHECK(Check(*fresh, "", &st).error_code() == grpc::StatusCode::UNAVAILABLE);
}

TEST_CASE("grpc server: a health port in use is a clear error", "[server]") {
  Running r;
  JobExecutorService other;
  ServerConfig config;
  config.listen = "127.0.0.1:0";
  config.health_listen = "127.0.0.1:" + std::to_string(r.server->port());
  auto s = GrpcServer::Start(config, {&other});
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(std::string(s.status().message()),
             Catch::StartsWith("server.healthListen: can't listen on"));
}

}  // namespace
}  // namespace kje::server
