#include "server/app_metrics.h"

#include <google/protobuf/descriptor.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "base/clock.h"
#include "jobexecutor/v1/job_executor.pb.h"
#include "k8s/metrics.h"
#include "rapidjson/document.h"
#include "server/metrics.h"
#include "tests/server/prometheus_text.h"

namespace kje::server {
namespace {

using kje::testing::ParsePromText;
using kje::testing::PromText;
using spark::JobStatus;

// The status is the app's "status" label (a JobStatus' number); started 30 s and finished 90 s
// after creation when the label says so.
spark::JobStatusInfo FromLabels(const spark::AppProjection& app) {
  spark::JobStatusInfo info;
  if (auto s = app.labels().Find("status")) info.status = static_cast<JobStatus>((*s)[0] - '0');
  const absl::Time created = absl::FromUnixMillis(app.creation_time());
  if (info.status != JobStatus::kQueued) info.started_at = created + absl::Seconds(30);
  if (spark::IsTerminal(info.status)) info.finished_at = created + absl::Seconds(90);
  return info;
}

cache::AppEvent Upsert(const std::string& ns, const std::string& name, JobStatus status,
                       absl::Time created) {
  spark::AppFields f;
  f.namespace_ = ns;
  f.name = name;
  f.uid = ns + "/" + name;
  f.creation_time = absl::ToUnixMillis(created);
  f.labels.emplace_back("status", std::to_string(static_cast<int>(status)));
  return {cache::AppEvent::Type::kUpserted, std::make_shared<const spark::AppProjection>(f)};
}

PromText Scrape(const Metrics& m) {
  const std::string rendered = m.Render();
  PromText text = ParsePromText(rendered);
  INFO(rendered);
  REQUIRE(text.errors.empty());
  return text;
}

TEST_CASE("app metrics: the jobs' series move as jobs run", "[metrics]") {
  FakeClock clock;
  auto jobs =
      std::make_shared<executor::JobMetrics>(std::vector<std::string>{"spark"}, FromLabels, clock);
  Metrics m("v", clock);
  m.AddCollectable(NewAppMetricsCollector(jobs, "group.example/v1"));
  const std::map<std::string, std::string> spark = {{"backend", "group.example/v1"},
                                                    {"namespace", "spark"}};
  auto with = [&spark](std::string key, std::string value) {
    auto labels = spark;
    labels[std::move(key)] = std::move(value);
    return labels;
  };
  PromText before = Scrape(m);
  CHECK(before.types.at("k8s_job_executor_jobs") == "gauge");
  CHECK(before.types.at("k8s_job_executor_job_start_latency_seconds") == "histogram");
  CHECK(before.Value("k8s_job_executor_job_submissions_total", spark) == 0.0);
  CHECK(before.Value("k8s_job_executor_jobs", with("status", "STARTED")) == 0.0);

  const absl::Time created = clock.Now();
  jobs->Observe(Upsert("spark", "a", JobStatus::kQueued, created));
  jobs->Observe(Upsert("spark", "a", JobStatus::kStarted, created));
  jobs->Observe(Upsert("spark", "b", JobStatus::kQueued, created));
  jobs->Observe(Upsert("spark", "b", JobStatus::kFailed, created));
  jobs->Observe(Upsert("elsewhere", "c", JobStatus::kQueued, created));
  PromText after = Scrape(m);
  CHECK(after.Value("k8s_job_executor_job_submissions_total", spark) == 2.0);
  CHECK(after.Value("k8s_job_executor_job_failures_total", spark) == 1.0);
  CHECK(after.Value("k8s_job_executor_job_completions_total", spark) == 0.0);
  CHECK(after.Value("k8s_job_executor_jobs", with("status", "STARTED")) == 1.0);
  CHECK(after.Value("k8s_job_executor_jobs", with("status", "FAILED")) == 1.0);
  CHECK(after.Value("k8s_job_executor_jobs", with("status", "QUEUED")) == 0.0);
  CHECK(after.Value("k8s_job_executor_job_start_latency_seconds_count", spark) == 2.0);
  CHECK(after.Value("k8s_job_executor_job_start_latency_seconds_sum", spark) == 60.0);
  CHECK(after.Value("k8s_job_executor_job_start_latency_seconds_bucket", with("le", "20")) == 0.0);
  CHECK(after.Value("k8s_job_executor_job_start_latency_seconds_bucket", with("le", "30")) == 2.0);
  CHECK(after.Value("k8s_job_executor_job_start_latency_seconds_bucket", with("le", "+Inf")) ==
        2.0);
  CHECK(after.Value("k8s_job_executor_job_run_seconds_bucket", with("le", "60")) == 1.0);
  // Any other namespace is "other": the label set stays bounded.
  CHECK(after.Value("k8s_job_executor_job_submissions_total",
                    {{"backend", "group.example/v1"}, {"namespace", "other"}}) == 1.0);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void CollectStrings(const rapidjson::Value& value, std::vector<std::string>& out) {
  if (value.IsString()) {
    out.emplace_back(value.GetString(), value.GetStringLength());
  } else if (value.IsArray()) {
    for (const auto& item : value.GetArray()) CollectStrings(item, out);
  } else if (value.IsObject()) {
    for (const auto& member : value.GetObject()) CollectStrings(member.value, out);
  }
}

// Every family the service can export: each source set, the gRPC service initialised.
std::set<std::string> ExportedFamilies() {
  FakeClock clock;
  Metrics m("v", clock);
  k8s::RequestMetrics requests;
  m.SetKubernetesRequests(&requests);
  m.SetKubernetesLimiter(std::make_shared<k8s::RequestLimiter>(k8s::LimiterOptions{0, 0, 1}));
  m.SetInformerStats([] {
    return std::vector<std::pair<std::string, cache::InformerStats>>{{"spark", {}}};
  });
  m.SetJobStats([] {
    Metrics::JobStats stats;
    stats.waiting = {{"IMAGE_PULL", 1}};
    stats.output_records = {{"kept", 1}};
    return stats;
  });
  const auto* service = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
      "jobexecutor.v1.JobExecutor");
  REQUIRE(service != nullptr);
  m.InitializeGrpcService(*service);
  // A code's series appears with its first call.
  m.RecordGrpcHandled("unary", "jobexecutor.v1.JobExecutor", "Status", grpc::StatusCode::OK,
                      absl::Milliseconds(1));
  m.AdmissionSeriesFor("unary");
  auto jobs =
      std::make_shared<executor::JobMetrics>(std::vector<std::string>{"spark"}, FromLabels, clock);
  m.AddCollectable(NewAppMetricsCollector(jobs, "b"));
  const std::string rendered = m.Render();
  PromText text = ParsePromText(rendered);
  REQUIRE(text.errors.empty());
  std::set<std::string> names;
  for (const auto& [name, type] : text.types) names.insert(name);
  m.SetKubernetesRequests(nullptr);  // `requests` goes first
  return names;
}

TEST_CASE("app metrics: the Grafana dashboard asks only for series the service exports",
          "[metrics]") {
  const std::string path = std::string(KJE_SOURCE_DIR) +
                           "/deploy/helm/k8s-job-executor/dashboards/k8s-job-executor.json";
  rapidjson::Document dashboard;
  dashboard.Parse(ReadFile(path).c_str());
  REQUIRE_FALSE(dashboard.HasParseError());
  std::vector<std::string> strings;  // every PromQL expression and template query among them
  CollectStrings(dashboard, strings);
  const std::set<std::string> exported = ExportedFamilies();
  const std::regex metric(R"((k8s_job_executor_[a-z0-9_]+|grpc_server_[a-z0-9_]+))");
  std::set<std::string> used;
  for (const std::string& s : strings) {
    for (auto it = std::sregex_iterator(s.begin(), s.end(), metric); it != std::sregex_iterator();
         ++it) {
      std::string name = (*it)[1];
      for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        if (absl::EndsWith(name, suffix) &&
            exported.contains(name.substr(0, name.size() - strlen(suffix)))) {
          name.resize(name.size() - strlen(suffix));
        }
      }
      INFO(name);
      CHECK(exported.contains(name));
      used.insert(name);
    }
  }
  // And it shows every application metric.
  for (const std::string& name : AppMetricNames()) {
    INFO(name);
    CHECK(used.contains(name));
  }
}

}  // namespace
}  // namespace kje::server
