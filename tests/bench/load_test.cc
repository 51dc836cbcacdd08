// The load client against an in-process gRPC server on 127.0.0.1:0: the real health service and
// a JobExecutor whose Status answers by id and whose WatchStatus streams send what the test
// broadcasts, so every count the client reports can be checked against what the server saw.

#include "bench/load.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "jobexecutor/v1/job_executor.grpc.pb.h"

namespace kje::bench {
namespace {

namespace pb = jobexecutor::v1;

// One WatchStatus stream of the fake: the job's first JobInfo, then whatever is broadcast, in
// order, one write in flight; it ends when the client cancels. Broadcast never runs while a
// stream is being cancelled: OnDone takes the lock Broadcast holds (the test broadcasts before
// the client cancels).
class FakeWatch : public grpc::ServerWriteReactor<pb::JobInfo> {
 public:
  using Registry = std::function<void(FakeWatch*, bool add)>;

  FakeWatch(std::string id, Registry registry)
      : id_(std::move(id)), registry_(std::move(registry)) {
    registry_(this, true);
    pb::JobInfo first;
    first.set_execution_id(id_);
    first.set_status(pb::JobInfo::STARTED);
    // The current status may carry a change's send time from long ago: never timed.
    first.set_message(std::string("an older change ") + kSentMarker + "1");
    Send(std::move(first));
  }

  // StartWrite and Finish are called without the lock: gRPC may run a reaction inline.
  void Send(pb::JobInfo info) {
    pb::JobInfo* first = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cancelled_) return;
      queue_.push_back(std::move(info));
      if (queue_.size() == 1) first = &queue_.front();
    }
    if (first != nullptr) StartWrite(first);
  }

  void OnWriteDone(bool ok) override {
    pb::JobInfo* next = nullptr;
    bool finish = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.pop_front();
      if (!ok || cancelled_) {
        queue_.clear();
        finish = cancelled_ && !finished_;
        finished_ = finished_ || finish;
      } else if (!queue_.empty()) {
        next = &queue_.front();
      }
    }
    if (next != nullptr) StartWrite(next);
    if (finish) Finish(grpc::Status::CANCELLED);
  }

  // Finishes now, or when the write in flight is done.
  void OnCancel() override {
    bool finish = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      cancelled_ = true;
      finish = queue_.empty() && !finished_;
      finished_ = finished_ || finish;
    }
    if (finish) Finish(grpc::Status::CANCELLED);
  }

  void OnDone() override {
    registry_(this, false);
    delete this;
  }

  const std::string& id() const { return id_; }

 private:
  const std::string id_;
  const Registry registry_;
  std::mutex mu_;
  std::deque<pb::JobInfo> queue_;  // the front one is being written
  bool cancelled_ = false;
  bool finished_ = false;
};

class FakeExecutor final : public pb::JobExecutor::CallbackService {
 public:
  grpc::ServerWriteReactor<pb::JobInfo>* WatchStatus(grpc::CallbackServerContext*,
                                                     const pb::WatchStatusRequest* req) override {
    std::string id = req->execution_ids_size() == 1 ? req->execution_ids(0) : "";
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++seen_[id];
    }
    if (id.rfind("missing", 0) == 0) {
      // Ends before its first message, as the server does for an unknown id.
      struct Refused : grpc::ServerWriteReactor<pb::JobInfo> {
        Refused() { Finish(grpc::Status(grpc::StatusCode::NOT_FOUND, "no such job")); }
        void OnDone() override { delete this; }
      };
      return new Refused();
    }
    return new FakeWatch(id, [this](FakeWatch* w, bool add) {
      std::lock_guard<std::mutex> lock(watches_mu_);
      if (add) {
        watches_.insert(w);
      } else {
        watches_.erase(w);
      }
    });
  }

  // Sends `message` to every open stream, as the JobInfo's message.
  void Broadcast(const std::string& message) {
    std::lock_guard<std::mutex> lock(watches_mu_);
    for (FakeWatch* w : watches_) {
      pb::JobInfo info;
      info.set_execution_id(w->id());
      info.set_message(message);
      w->Send(std::move(info));
    }
  }

  size_t OpenWatches() {
    std::lock_guard<std::mutex> lock(watches_mu_);
    return watches_.size();
  }

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
  std::mutex watches_mu_;
  std::set<FakeWatch*> watches_;
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

TEST_CASE("watch holds one stream per id and times the messages that carry a send time") {
  TestServer server;
  LoadOptions o;
  o.target = server.target;
  o.method = Method::kWatch;
  o.concurrency = 21;
  o.channels = 2;
  o.deadline_ms = 60000;
  for (int i = 0; i < 20; ++i) o.execution_ids.push_back("job-" + std::to_string(i));
  o.execution_ids.push_back("missing-1");
  o.expect_timed = 60;
  o.settle_ms = 10000;
  WatchHooks hooks;
  int64_t opened = -1;
  hooks.on_open = [&](const WatchResult& so_far) { opened = so_far.opened; };
  hooks.wait_for_end = [&] {
    REQUIRE(server.executor.OpenWatches() == 20);
    server.executor.Broadcast("untimed");
    for (int k = 0; k < 3; ++k) {
      int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
      server.executor.Broadcast("change " + std::to_string(k) + " " + kSentMarker +
                                std::to_string(now));
    }
  };
  auto r = RunWatch(o, hooks);
  REQUIRE(r.ok());
  CHECK(opened == 20);
  CHECK(r->streams == 21);
  CHECK(r->opened == 20);
  CHECK(r->messages == 20 + 20 + 60);  // first, untimed, timed
  CHECK(r->timed == 60);
  // The refused stream is reported; the others ended only when the client cancelled them.
  REQUIRE(r->ended.size() == 1);
  CHECK(r->ended.at("NOT_FOUND") == 1);
  CHECK(r->p50_ms >= 0);
  CHECK(r->p50_ms <= r->p99_ms);
  CHECK(r->p99_ms <= r->max_ms);
  auto seen = server.executor.Seen();
  CHECK(seen["job-0"] == 1);
  CHECK(seen["job-19"] == 1);
  CHECK(seen["missing-1"] == 1);

  std::string json = WatchToJson(o, *r);
  CHECK(json.find("\"method\":\"watch\"") != std::string::npos);
  CHECK(json.find("\"timed\":60") != std::string::npos);
  CHECK(json.find("\"ended\":{\"NOT_FOUND\":1}") != std::string::npos);
  CHECK(!RunLoad(o).ok());  // watch streams are RunWatch's
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
