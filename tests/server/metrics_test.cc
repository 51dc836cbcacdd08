#include "server/metrics.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "executor/record_outcomes.h"
#include "k8s/metrics.h"
#include "tests/server/prometheus_text.h"

namespace kje::server {
namespace {

using kje::testing::ParsePromText;
using kje::testing::PromText;

PromText Scrape(const Metrics& m) {
  std::string rendered = m.Render();
  PromText text = ParsePromText(rendered);
  INFO(rendered);
  REQUIRE(text.errors.empty());
  return text;
}

TEST_CASE("metrics: build info and the known results start at 0", "[metrics]") {
  FakeClock clock;
  Metrics m("1.2.3", clock);
  PromText t = Scrape(m);
  CHECK(t.Value("k8s_job_executor_build_info", {{"version", "1.2.3"}}) == 1.0);
  CHECK(t.types["k8s_job_executor_build_info"] == "gauge");
  CHECK(t.Value("k8s_job_executor_submissions_total", {{"result", "created"}}) == 0.0);
  CHECK(t.Value("k8s_job_executor_submissions_total", {{"result", "adopted"}}) == 0.0);
  CHECK(t.Value("k8s_job_executor_cancellations_total", {{"result", "requested"}}) == 0.0);
  CHECK(t.Value("k8s_job_executor_cancellations_total", {{"result", "already_stopped"}}) == 0.0);
  CHECK(t.types["k8s_job_executor_submissions_total"] == "counter");
  // No sources: no Kubernetes or informer series.
  CHECK(t.Matching("k8s_job_executor_kubernetes_requests_total").empty());
  CHECK(t.Matching("k8s_job_executor_informer_objects").empty());
}

TEST_CASE("metrics: submissions and cancellations by bounded result", "[metrics]") {
  FakeClock clock;
  Metrics m("v", clock);
  m.RecordSubmit("created");
  m.RecordSubmit("created");
  m.RecordSubmit("adopted");
  m.RecordSubmit(GrpcCodeResult(grpc::StatusCode::INVALID_ARGUMENT));
  m.RecordSubmit("job-42");  // not a result: must not become a label value
  m.RecordCancel("requested");
  m.RecordCancel("already_stopped");
  m.RecordCancel("already_stopped");
  m.RecordCancel("not_found");
  m.RecordCancel("NOT_FOUND");  // results are lowercase
  PromText t = Scrape(m);
  const char* kSub = "k8s_job_executor_submissions_total";
  const char* kCan = "k8s_job_executor_cancellations_total";
  CHECK(t.Value(kSub, {{"result", "created"}}) == 2.0);
  CHECK(t.Value(kSub, {{"result", "adopted"}}) == 1.0);
  CHECK(t.Value(kSub, {{"result", "invalid_argument"}}) == 1.0);
  CHECK(t.Value(kSub, {{"result", "other"}}) == 1.0);
  CHECK_FALSE(t.Value(kSub, {{"result", "job-42"}}).has_value());
  CHECK(t.Matching(kSub).size() == 4);
  CHECK(t.Value(kCan, {{"result", "requested"}}) == 1.0);
  CHECK(t.Value(kCan, {{"result", "already_stopped"}}) == 2.0);
  CHECK(t.Value(kCan, {{"result", "not_found"}}) == 1.0);
  CHECK(t.Value(kCan, {{"result", "other"}}) == 1.0);
}

TEST_CASE("metrics: gRPC code names", "[metrics]") {
  CHECK(GrpcCodeName(grpc::StatusCode::OK) == "OK");
  CHECK(GrpcCodeName(grpc::StatusCode::NOT_FOUND) == "NOT_FOUND");
  CHECK(GrpcCodeName(grpc::StatusCode::UNAUTHENTICATED) == "UNAUTHENTICATED");
  CHECK(GrpcCodeName(grpc::StatusCode::DEADLINE_EXCEEDED) == "DEADLINE_EXCEEDED");
  CHECK(GrpcCodeName(static_cast<grpc::StatusCode>(99)) == "UNKNOWN");
  CHECK(GrpcCodeResult(grpc::StatusCode::ALREADY_EXISTS) == "already_exists");
}

TEST_CASE("metrics: gRPC series with go-grpc-prometheus names, labels and buckets", "[metrics]") {
  FakeClock clock;
  Metrics m("v", clock);
  const std::string kSvc = "jobexecutor.v1.JobExecutor";
  m.RecordGrpcStarted("unary", kSvc, "Submit");
  m.RecordGrpcHandled("unary", kSvc, "Submit", grpc::StatusCode::OK, absl::Milliseconds(3));
  m.RecordGrpcStarted("unary", kSvc, "Submit");
  m.RecordGrpcHandled("unary", kSvc, "Submit", grpc::StatusCode::ALREADY_EXISTS,
                      absl::Milliseconds(200));
  m.RecordGrpcStarted("server_stream", kSvc, "WatchStatus");
  PromText t = Scrape(m);

  std::map<std::string, std::string> submit = {
      {"grpc_type", "unary"}, {"grpc_service", kSvc}, {"grpc_method", "Submit"}};
  CHECK(t.types["grpc_server_started_total"] == "counter");
  CHECK(t.types["grpc_server_handled_total"] == "counter");
  CHECK(t.types["grpc_server_handling_seconds"] == "histogram");
  CHECK(t.Value("grpc_server_started_total", submit) == 2.0);
  auto with_code = [&](const char* code) {
    auto labels = submit;
    labels["grpc_code"] = code;
    return labels;
  };
  CHECK(t.Value("grpc_server_handled_total", with_code("OK")) == 1.0);
  CHECK(t.Value("grpc_server_handled_total", with_code("ALREADY_EXISTS")) == 1.0);
  auto le = [&](const char* bound) {
    auto labels = submit;
    labels["le"] = bound;
    return t.Value("grpc_server_handling_seconds_bucket", labels);
  };
  // client_golang's DefBuckets, cumulative.
  CHECK(le("0.005") == 1.0);
  CHECK(le("0.1") == 1.0);
  CHECK(le("0.25") == 2.0);
  CHECK(le("10") == 2.0);
  CHECK(le("+Inf") == 2.0);
  CHECK(t.Matching("grpc_server_handling_seconds_bucket", submit).size() == 12);
  CHECK(t.Value("grpc_server_handling_seconds_count", submit) == 2.0);
  CHECK(t.Value("grpc_server_handling_seconds_sum", submit) == Approx(0.203));

  std::map<std::string, std::string> watch = {
      {"grpc_type", "server_stream"}, {"grpc_service", kSvc}, {"grpc_method", "WatchStatus"}};
  CHECK(t.Value("grpc_server_started_total", watch) == 1.0);
  CHECK(t.Matching("grpc_server_handled_total", watch).empty());
}

TEST_CASE("metrics: a method's series are resolved once and count exactly across threads",
          "[metrics]") {
  FakeClock clock;
  Metrics m("v", clock);
  Metrics::GrpcMethodSeries* series = m.GrpcSeries("unary", "svc.S", "M");
  CHECK(m.GrpcSeries("unary", "svc.S", "M") == series);
  CHECK(m.GrpcSeries("server_stream", "svc.S", "M") != series);
  CHECK(m.GrpcSeries("unary", "svc.S", "N") != series);

  constexpr int kThreads = 4;
  constexpr int kCalls = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        Metrics::GrpcMethodSeries* s = m.GrpcSeries("unary", "svc.S", "M");
        s->Started();
        s->Handled((i + t) % 2 == 0 ? grpc::StatusCode::OK : grpc::StatusCode::INTERNAL,
                   absl::Microseconds(i));
      }
    });
  }
  for (auto& t : threads) t.join();
  PromText t = Scrape(m);
  std::map<std::string, std::string> labels = {
      {"grpc_type", "unary"}, {"grpc_service", "svc.S"}, {"grpc_method", "M"}};
  CHECK(t.Value("grpc_server_started_total", labels) == kThreads * kCalls);
  CHECK(t.Value("grpc_server_handling_seconds_count", labels) == kThreads * kCalls);
  auto ok = labels;
  ok["grpc_code"] = "OK";
  auto internal = labels;
  internal["grpc_code"] = "INTERNAL";
  CHECK(t.Value("grpc_server_handled_total", ok) == kThreads * kCalls / 2);
  CHECK(t.Value("grpc_server_handled_total", internal) == kThreads * kCalls / 2);
  // A code outside the 17 is UNKNOWN, not a new label value.
  series->Handled(static_cast<grpc::StatusCode>(1000), absl::ZeroDuration());
  auto unknown = labels;
  unknown["grpc_code"] = "UNKNOWN";
  CHECK(Scrape(m).Value("grpc_server_handled_total", unknown) == 1.0);
}

TEST_CASE("metrics: Kubernetes requests are read from RequestMetrics at scrape time", "[metrics]") {
  FakeClock clock;
  Metrics m("v", clock);
  k8s::RequestMetrics requests;
  m.SetKubernetesRequests(&requests);
  const std::string kApps = "sparkapplications";
  requests.Record("get", kApps, "200", absl::Milliseconds(10));
  requests.Record("get", kApps, "404", absl::Milliseconds(30));
  requests.Record("create", kApps, "201", absl::Seconds(2));
  requests.Record("list", "pods", "error", absl::Seconds(90));

  PromText t = Scrape(m);
  const char* kTotal = "k8s_job_executor_kubernetes_requests_total";
  const char* kDur = "k8s_job_executor_kubernetes_request_duration_seconds";
  CHECK(t.types[kTotal] == "counter");
  CHECK(t.types[kDur] == "histogram");
  CHECK(t.Value(kTotal, {{"verb", "get"}, {"resource", kApps}, {"code", "200"}}) == 1.0);
  CHECK(t.Value(kTotal, {{"verb", "get"}, {"resource", kApps}, {"code", "404"}}) == 1.0);
  CHECK(t.Value(kTotal, {{"verb", "create"}, {"resource", kApps}, {"code", "201"}}) == 1.0);
  CHECK(t.Value(kTotal, {{"verb", "list"}, {"resource", "pods"}, {"code", "error"}}) == 1.0);
  CHECK(t.Matching(kTotal).size() == 4);

  // The histogram merges codes: get has two observations (10 ms and 30 ms).
  std::map<std::string, std::string> get = {{"verb", "get"}, {"resource", kApps}};
  auto le = [&](const std::map<std::string, std::string>& base, const char* bound) {
    auto labels = base;
    labels["le"] = bound;
    return t.Value(std::string(kDur) + "_bucket", labels);
  };
  CHECK(le(get, "0.005") == 0.0);
  CHECK(le(get, "0.025") == 1.0);
  CHECK(le(get, "0.1") == 2.0);
  CHECK(le(get, "60") == 2.0);
  CHECK(le(get, "+Inf") == 2.0);
  CHECK(t.Matching(std::string(kDur) + "_bucket", get).size() ==
        k8s::RequestMetrics::kBuckets.size() + 1);
  CHECK(t.Value(std::string(kDur) + "_count", get) == 2.0);
  CHECK(t.Value(std::string(kDur) + "_sum", get) == Approx(0.04));
  std::map<std::string, std::string> list = {{"verb", "list"}, {"resource", "pods"}};
  CHECK(le(list, "60") == 0.0);  // 90 s is above every finite bound
  CHECK(le(list, "+Inf") == 1.0);
  CHECK(t.Matching(std::string(kDur) + "_count").size() == 3);

  // Scraping reads, it doesn't accumulate: a second scrape sees the same counts, and new
  // requests show up in the next one.
  PromText again = Scrape(m);
  CHECK(again.Value(kTotal, {{"verb", "get"}, {"resource", kApps}, {"code", "200"}}) == 1.0);
  requests.Record("get", kApps, "200", absl::Milliseconds(1));
  PromText third = Scrape(m);
  CHECK(third.Value(kTotal, {{"verb", "get"}, {"resource", kApps}, {"code", "200"}}) == 2.0);

  m.SetKubernetesRequests(nullptr);
  CHECK(Scrape(m).Matching(kTotal).empty());
}

TEST_CASE("metrics: the Kubernetes client's admission is read from its limiter at scrape time",
          "[metrics]") {
  FakeClock clock;
  Metrics m("v", clock);
  CHECK(Scrape(m).Matching("k8s_job_executor_kubernetes_requests_in_flight").empty());
  auto limiter = std::make_shared<k8s::RequestLimiter>(k8s::LimiterOptions{0, 0, 1});
  m.SetKubernetesLimiter(limiter);
  auto a = std::make_shared<k8s::RequestLimiter::Ticket>([] {});
  auto b = std::make_shared<k8s::RequestLimiter::Ticket>([] {});
  auto c = std::make_shared<k8s::RequestLimiter::Ticket>([] {});
  REQUIRE(limiter->Ask(a, false).ok());
  REQUIRE(limiter->Ask(b, false).ok());        // queued
  REQUIRE_FALSE(limiter->Ask(c, false).ok());  // refused
  PromText t = Scrape(m);
  CHECK(t.types["k8s_job_executor_kubernetes_requests_in_flight"] == "gauge");
  CHECK(t.Value("k8s_job_executor_kubernetes_requests_in_flight", {}) == 1.0);
  CHECK(t.Value("k8s_job_executor_kubernetes_requests_waiting", {}) == 1.0);
  CHECK(t.Value("k8s_job_executor_kubernetes_requests_refused_total", {}) == 1.0);
  limiter->Release(a);
  REQUIRE(limiter->Ask(b, false)->go);
  t = Scrape(m);
  CHECK(t.Value("k8s_job_executor_kubernetes_requests_waiting", {}) == 0.0);
  CHECK(t.Value("k8s_job_executor_kubernetes_request_waits_total", {{"limit", "maxInFlight"}}) ==
        1.0);
  CHECK(t.Value("k8s_job_executor_kubernetes_request_waits_total", {{"limit", "qps"}}) == 0.0);
  CHECK(t.Value("k8s_job_executor_kubernetes_request_wait_seconds_total", {}).has_value());
  m.SetKubernetesLimiter(nullptr);
  CHECK(Scrape(m).Matching("k8s_job_executor_kubernetes_requests_in_flight").empty());
}

TEST_CASE("metrics: informer series per namespace, staleness from the clock", "[metrics]") {
  FakeClock clock;
  Metrics m("v", clock);
  cache::InformerStats synced;
  synced.objects = 7;
  synced.relists = 2;
  synced.watch_restarts = 5;
  synced.errors = 1;
  synced.synced = true;
  synced.last_sync = clock.Now() - absl::Seconds(12);
  cache::InformerStats fresh;  // never synced
  int calls = 0;
  m.SetInformerStats([&] {
    ++calls;
    return std::vector<std::pair<std::string, cache::InformerStats>>{{"spark-jobs", synced},
                                                                     {"other", fresh}};
  });

  PromText t = Scrape(m);
  CHECK(calls == 1);
  std::map<std::string, std::string> ns = {{"namespace", "spark-jobs"}};
  CHECK(t.Value("k8s_job_executor_informer_objects", ns) == 7.0);
  CHECK(t.Value("k8s_job_executor_informer_relists_total", ns) == 2.0);
  CHECK(t.Value("k8s_job_executor_informer_watch_restarts_total", ns) == 5.0);
  CHECK(t.Value("k8s_job_executor_informer_errors_total", ns) == 1.0);
  CHECK(t.Value("k8s_job_executor_informer_synced", ns) == 1.0);
  CHECK(t.Value("k8s_job_executor_informer_staleness_seconds", ns) == Approx(12.0));
  CHECK(t.types["k8s_job_executor_informer_objects"] == "gauge");
  CHECK(t.types["k8s_job_executor_informer_relists_total"] == "counter");
  CHECK(t.types["k8s_job_executor_informer_staleness_seconds"] == "gauge");

  std::map<std::string, std::string> other = {{"namespace", "other"}};
  CHECK(t.Value("k8s_job_executor_informer_objects", other) == 0.0);
  CHECK(t.Value("k8s_job_executor_informer_synced", other) == 0.0);
  auto never = t.Value("k8s_job_executor_informer_staleness_seconds", other);
  REQUIRE(never.has_value());
  CHECK(std::isinf(*never));

  clock.Advance(absl::Seconds(30));
  CHECK(Scrape(m).Value("k8s_job_executor_informer_staleness_seconds", ns) == Approx(42.0));
}

TEST_CASE("metrics: kept records by outcome, read from the executor at scrape time", "[metrics]") {
  FakeClock clock;
  Metrics m("v", clock);
  executor::RecordOutcomes outcomes;
  m.SetJobStats([&outcomes] {
    Metrics::JobStats stats;
    stats.backend = "spark.apache.org/v1";
    for (size_t i = 0; i < executor::kRecordOutcomeCount; ++i) {
      const auto outcome = static_cast<executor::RecordOutcome>(i);
      stats.output_records.emplace_back(std::string(executor::RecordOutcomeName(outcome)),
                                        outcomes.Count(outcome));
    }
    return stats;
  });
  const std::string name = "k8s_job_executor_output_records_total";
  auto value = [&](const std::string& outcome) {
    return Scrape(m).Value(name, {{"backend", "spark.apache.org/v1"}, {"outcome", outcome}});
  };
  for (const char* outcome : {"kept", "not_kept", "lost_race", "failed"}) {
    INFO(outcome);
    CHECK(value(outcome) == 0.0);
  }
  outcomes.Add(executor::RecordOutcome::kKept);
  outcomes.Add(executor::RecordOutcome::kKept);
  outcomes.Add(executor::RecordOutcome::kLostRace);
  CHECK(value("kept") == 2.0);
  CHECK(value("lost_race") == 1.0);
  CHECK(value("not_kept") == 0.0);
  CHECK(Scrape(m).types[name] == "counter");
  CHECK(Scrape(m).Matching(name).size() == executor::kRecordOutcomeCount);
}

}  // namespace
}  // namespace kje::server
