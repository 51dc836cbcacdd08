// Output and FollowOutput beyond the driver's current log (executor/pod_log.cc, streams.cc), on
// both operators: an executor's live pod found by the operator's labels, since/timestamps/
// previous passed to the pod log request, and the errors a caller gets for what can't be read.

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <initializer_list>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "executor/executor.h"
#include "k8s/errors.h"
#include "spark/execution_id.h"
#include "spark/names.h"
#include "tests/executor/executor_fixture.h"
#include "tests/executor/operator_apps.h"
#include "tests/fakes/fake_kube_client.h"

namespace kje::executor {
namespace {

std::string IdOf(const std::string& name) {
  return spark::ExecutionId{"default", std::string(spark::kKindSparkApp), kNs, name}.ToString();
}

absl::Time Soon() { return absl::Now() + absl::Seconds(5); }

k8s::ListPage Pods(std::initializer_list<std::string_view> pods) {
  k8s::ListPage page;
  page.items = testing::Items(pods);
  return page;
}

// Executor `n` of app `app`, labelled as `op`'s operator and Spark label it, running.
std::string ExecutorPodJson(const OperatorApps& op, const std::string& app, int n,
                            const std::string& created = "2026-01-01T00:00:04Z") {
  const std::string app_label =
      op.name == "apache" ? "spark.operator/spark-app-name" : "sparkoperator.k8s.io/app-name";
  return absl::StrCat(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", app, "-exec-", n,
      R"(","namespace":"jobs","uid":"exec-)", n, R"(","creationTimestamp":")", created,
      R"(","labels":{"spark-role":"executor","spark-exec-id":")", n, R"(",")", app_label, R"(":")",
      app, R"("}},"spec":{"containers":[{"name":"spark-kubernetes-executor"}]},)",
      R"("status":{"phase":"Running","containerStatuses":[{"name":"spark-kubernetes-executor",)",
      R"("state":{"running":{"startedAt":"2026-01-01T00:00:05Z"}}}]}})");
}

TEST_CASE("executor: Output of an executor reads its live pod, with since and timestamps",
          "[executor][logs]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  INFO(op.name);
  Fixture f(false, {}, 1024, op.backend);
  LogRequest log;
  log.executor = 2;
  log.since_seconds = 300;
  log.timestamps = true;
  Result<spark::LogTailResult> r;
  f.executor->Output(IdOf("a"), 10, 0, log, Soon(), r.Callback());
  auto pods = f.Next("list");
  CHECK(pods->ref.plural == "pods");
  CHECK(pods->list.label_selector == op.backend->ExecutorSelector("a", 2));
  // The newest of the executor's pods: a restarted attempt's.
  f.client->CompleteList(pods, Pods({ExecutorPodJson(op, "a", 2, "2026-01-01T00:00:04Z"),
                                     ExecutorPodJson(op, "b", 2, "2026-01-01T00:00:09Z")}));
  auto read = f.Next("stream_log");
  CHECK(read->ref.name == "b-exec-2");
  CHECK(read->log.since_seconds == 300);
  CHECK(read->log.timestamps);
  CHECK_FALSE(read->log.previous);
  CHECK(read->log.tail_lines == 11);
  f.client->SendChunk(read, "2026-01-01T00:00:06.000000000Z INFO Executor: Starting executor\n");
  f.client->EndStream(read, absl::OkStatus());
  const auto& out = r.Get();
  REQUIRE(out.ok());
  CHECK(out->lines == std::vector<std::string>{
                          "2026-01-01T00:00:06.000000000Z INFO Executor: Starting executor"});
  CHECK(out->source == spark::OutputSource::kLive);
}

TEST_CASE("executor: Output of an executor without a live pod is NOT_FOUND, saying why",
          "[executor][logs]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  INFO(op.name);
  Fixture f(false, {}, 1024, op.backend);
  LogRequest log;
  log.executor = 3;
  Result<spark::LogTailResult> r;
  f.executor->Output(IdOf("a"), 0, 0, log, Soon(), r.Callback());
  f.client->CompleteList(f.Next("list"), Pods({}));
  const auto& out = r.Get();
  CHECK(absl::IsNotFound(out.status()));
  CHECK(out.status().message().find("executor 3") != std::string::npos);
  CHECK(out.status().message().find("live pods only") != std::string::npos);
}

TEST_CASE("executor: Output --previous of a driver that never restarted is the API's 400",
          "[executor][logs]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  INFO(op.name);
  Fixture f(false, {}, 1024, op.backend);
  LogRequest log;
  log.previous = true;
  Result<spark::LogTailResult> r;
  f.executor->Output(IdOf("a"), 0, 0, log, Soon(), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("a", "3", Situation::kRunning));
  f.client->CompleteList(f.Next("list"), Pods({op.DriverPodJson("a")}));
  auto read = f.Next("stream_log");
  CHECK(read->log.previous);
  const std::string message =
      "previous terminated container \"spark-kubernetes-driver\" in pod \"a-driver\" not found";
  f.client->EndStream(read, k8s::MakeApiStatus({400, "BadRequest", message}));
  const auto& out = r.Get();
  CHECK(absl::IsInvalidArgument(out.status()));
  CHECK(out.status().message().find(message) != std::string::npos);
}

TEST_CASE("executor: the driver's own log read without options stays best effort",
          "[executor][logs]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  INFO(op.name);
  Fixture f(false, {}, 1024, op.backend);
  Result<spark::LogTailResult> r;
  f.executor->Output(IdOf("a"), 0, 0, LogRequest{}, Soon(), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("a", "3", Situation::kRunning));
  f.client->CompleteList(f.Next("list"), Pods({op.DriverPodJson("a")}));
  auto read = f.Next("stream_log");
  CHECK_FALSE(read->log.timestamps);
  CHECK_FALSE(read->log.since_seconds.has_value());
  f.client->EndStream(read, k8s::MakeApiStatus({500, "InternalError", "boom"}));
  const auto& out = r.Get();
  REQUIRE(out.ok());
  CHECK(out->lines.empty());
}

TEST_CASE("executor: bad log requests are INVALID_ARGUMENT before any request",
          "[executor][logs]") {
  Fixture f;
  for (LogRequest bad : {LogRequest{-1, 0, false, false}, LogRequest{0, -5, false, false}}) {
    Result<spark::LogTailResult> r;
    f.executor->Output(IdOf("a"), 0, 0, bad, Soon(), r.Callback());
    CHECK(absl::IsInvalidArgument(r.Get().status()));
    absl::Notification ended;
    absl::Status end;
    f.executor->FollowOutput(IdOf("a"), 0, "", bad, Soon(), nullptr, [&](absl::Status s) {
      end = std::move(s);
      ended.Notify();
    });
    REQUIRE(ended.WaitForNotificationWithTimeout(absl::Seconds(10)));
    CHECK(absl::IsInvalidArgument(end));
  }
  CHECK(CheckLogRequest(LogRequest{0, 0, false, true}, true).code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(CheckLogRequest(LogRequest{0, 0, false, true}, false).ok());
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

// What a follow's writer got, once it ended.
struct Collected final : public StreamWriter<OutputBatch> {
  std::vector<std::string> lines;
  void Write(OutputBatch batch, std::function<void(bool)> written) override {
    lines.insert(lines.end(), batch.lines.begin(), batch.lines.end());
    written(true);
  }
};

TEST_CASE("executor: FollowOutput of an executor follows its pod, keeping the stamps asked for",
          "[executor][logs]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  const bool timestamps = GENERATE(false, true);
  INFO(op.name << " timestamps " << timestamps);
  Fixture f(false, {}, 1024, op.backend);
  LogRequest log;
  log.executor = 1;
  log.since_seconds = 60;
  log.timestamps = timestamps;
  Collected writer;
  absl::Notification ended;
  absl::Status end;
  f.executor->FollowOutput(IdOf("a"), 0, "", log, absl::Now() + absl::Seconds(30), &writer,
                           [&](absl::Status s) {
                             end = std::move(s);
                             ended.Notify();
                           });
  f.client->Complete(f.Next("get"), op.AppJson("a", "3", Situation::kRunning));
  auto pods = f.Next("list");
  CHECK(pods->list.label_selector == op.backend->ExecutorSelector("a", 1));
  f.client->CompleteList(pods, Pods({ExecutorPodJson(op, "a", 1)}));
  auto read = f.Next("stream_log");
  CHECK(read->ref.name == "a-exec-1");
  CHECK(read->log.follow);
  CHECK(read->log.timestamps);  // always: the stamps make the cursor
  CHECK(read->log.since_seconds == 60);
  f.client->SendChunk(read, "2026-01-01T00:00:06.000000000Z started\n");
  f.client->EndStream(read, absl::OkStatus());
  REQUIRE(ended.WaitForNotificationWithTimeout(absl::Seconds(10)));
  CHECK(end.ok());
  CHECK(writer.lines == std::vector<std::string>{
                            timestamps ? "2026-01-01T00:00:06.000000000Z started" : "started"});
}

}  // namespace
}  // namespace kje::executor
