// The load client against an in-process gRPC server on 127.0.0.1:0: the real health service and
// a JobExecutor whose Status answers by id, so every count the client reports can be checked
// against what the server saw.

#include "bench/load.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "jobexecutor/v1/job_executor.grpc.pb.h"

namespace kje::bench {
namespace {

namespace pb = jobexecutor::v1;

class FakeExecutor final : public pb::JobExecutor::CallbackService {
 public:
  grpc::ServerUnaryReactor* Status(grpc::CallbackServerContext* ctx, const pb::StatusRequest* req,
                                   pb::JobInfo* resp) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++seen_[req->execution_id()];
    }
    auto* reactor = ctx->DefaultReactor();
    if (req->execution_id().rfind("missing", 0) == 0) {
      reactor->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "no such job"));
    } else {
      resp->set_execution_id(req->execution_id());
      resp->set_status(pb::JobInfo::STARTED);
      reactor->Finish(grpc::Status::OK);
    }
    return reactor;
  }

  grpc::ServerUnaryReactor* Submit(grpc::CallbackServerContext* ctx, const pb::SubmitRequest* req,
                                   pb::SubmitResponse* resp) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++seen_[req->job_id()];
    }
    resp->set_execution_id("default/sparkapp/default/gravitino-job-" + req->job_id());
    auto* reactor = ctx->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  std::map<std::string, int> Seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> seen_;
};

struct TestServer {
  TestServer() {
    grpc::EnableDefaultHealthCheckService(true);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&executor);
    server = builder.BuildAndStart();
    REQUIRE(server);
    REQUIRE(port > 0);
    target = "127.0.0.1:" + std::to_string(port);
  }
  ~TestServer() { server->Shutdown(); }

  int port = 0;
  std::string target;
  FakeExecutor executor;
  std::unique_ptr<grpc::Server> server;
};

TEST_CASE("health checks: exactly the asked number of measured calls, all OK") {
  TestServer server;
  LoadOptions o;
  o.target = server.target;
  o.method = Method::kHealthCheck;
  o.concurrency = 8;
  o.channels = 2;
  o.calls = 300;
  o.warmup_calls = 50;
  auto r = RunLoad(o);
  REQUIRE(r.ok());
  CHECK(r->calls == 300);
  CHECK(r->ok == 300);
  CHECK(r->errors.empty());
  CHECK(r->seconds > 0);
  CHECK(r->throughput > 0);
  CHECK(r->p50_ms > 0);
  CHECK(r->p50_ms <= r->p90_ms);
  CHECK(r->p90_ms <= r->p99_ms);
  CHECK(r->p99_ms <= r->max_ms);
}

TEST_CASE("status cycles through the ids and counts errors by code") {
  TestServer server;
  LoadOptions o;
  o.target = server.target;
  o.method = Method::kStatus;
  o.concurrency = 4;
  o.calls = 200;
  o.warmup_calls = 0;
  o.execution_ids = {"a", "b", "c", "missing-1"};
  auto r = RunLoad(o);
  REQUIRE(r.ok());
  CHECK(r->calls == 200);
  CHECK(r->ok == 150);
  REQUIRE(r->errors.size() == 1);
  CHECK(r->errors.at("NOT_FOUND") == 50);
  auto seen = server.executor.Seen();
  CHECK(seen["a"] == 50);
  CHECK(seen["missing-1"] == 50);

  std::string json = ToJson(o, *r);
  CHECK(json.find("\"method\":\"status\"") != std::string::npos);
  CHECK(json.find("\"errors\":{\"NOT_FOUND\":50}") != std::string::npos);
}

TEST_CASE("submit sends distinct job ids, warm-up ones apart") {
  TestServer server;
  LoadOptions o;
  o.target = server.target;
  o.method = Method::kSubmit;
  o.concurrency = 3;
  o.calls = 30;
  o.warmup_calls = 5;
  o.job_prefix = "j";
  auto r = RunLoad(o);
  REQUIRE(r.ok());
  CHECK(r->ok == 30);
  auto seen = server.executor.Seen();
  CHECK(seen.size() == 35);
  CHECK(seen["j-0"] == 1);
  CHECK(seen["j-29"] == 1);
  CHECK(seen["j-w4"] == 1);
}

TEST_CASE("a duration bounds the run") {
  TestServer server;
  LoadOptions o;
  o.target = server.target;
  o.duration_ms = 200;
  auto r = RunLoad(o);
  REQUIRE(r.ok());
  CHECK(r->calls > 0);
  CHECK(r->seconds >= 0.2);
  CHECK(r->seconds < 5);
}

TEST_CASE("bad options and unreachable servers are errors") {
  LoadOptions o;
  o.target = "127.0.0.1:1";
  CHECK(!RunLoad(o).ok());  // neither calls nor duration
  o.calls = 10;
  o.method = Method::kStatus;
  CHECK(absl::IsInvalidArgument(RunLoad(o).status()));  // no ids
  o.method = Method::kHealthCheck;
  o.connect_timeout_ms = 300;
  CHECK(absl::IsUnavailable(RunLoad(o).status()));
}

TEST_CASE("nearest-rank quantiles") {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  CHECK(Quantile(v, 0.5) == 50);
  CHECK(Quantile(v, 0.99) == 99);
  CHECK(Quantile(v, 1.0) == 100);
  CHECK(Quantile({}, 0.5) == 0);
  CHECK(Quantile({7}, 0.5) == 7);
}

}  // namespace
}  // namespace kje::bench
