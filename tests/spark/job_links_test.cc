#include "spark/job_links.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

namespace kje::spark {
namespace {

using Named = std::vector<std::pair<std::string, std::string>>;

LinkTemplates MustParse(const Named& named) {
  absl::StatusOr<LinkTemplates> parsed = LinkTemplates::Parse(named);
  INFO(parsed.status().ToString());
  REQUIRE(parsed.ok());
  return *std::move(parsed);
}

LinkValues Running() {
  LinkValues v;
  v.namespace_ = "team-a";
  v.name = "gravitino-job-42";
  v.execution_id = "default/sparkapp/team-a/gravitino-job-42";
  v.job_id = "42";
  v.spark_app_id = "spark-0123";
  v.driver_pod = "gravitino-job-42-driver";
  v.created_at = absl::FromUnixMillis(1796554800000);  // 2026-12-06T11:00:00Z
  v.started_at = absl::FromUnixMillis(1796554812345);  // 2026-12-06T11:00:12.345Z
  return v;
}

TEST_CASE("every variable renders its value, escaped where it is inserted", "[job_links]") {
  LinkTemplates t = MustParse({{"all",
                                "https://x.example/{namespace}/{name}?e={executionId}&j={jobId}"
                                "&a={sparkAppId}&p={driverPod}&c={createdAt}&s={startedAt}"
                                "&cm={createdAtMillis}&sm={startedAtMillis}"}});
  std::vector<JobLink> links = t.Render(Running());
  REQUIRE(links.size() == 1);
  CHECK(links[0].name == "all");
  CHECK(links[0].url ==
        "https://x.example/team-a/gravitino-job-42?e=default%2Fsparkapp%2Fteam-a%2Fgravitino-job-42"
        "&j=42&a=spark-0123&p=gravitino-job-42-driver&c=2026-12-06T11%3A00%3A00Z"
        "&s=2026-12-06T11%3A00%3A12.345Z&cm=1796554800000&sm=1796554812345");
}

TEST_CASE("a value can't change the URL's shape", "[job_links]") {
  LinkTemplates t = MustParse({{"ui", "https://ui.example/{name}?q=1"}});
  LinkValues v = Running();
  v.name = "a&b=c/../d?#e f%";
  std::vector<JobLink> links = t.Render(v);
  REQUIRE(links.size() == 1);
  CHECK(links[0].url == "https://ui.example/a%26b%3Dc%2F..%2Fd%3F%23e%20f%25?q=1");
}

TEST_CASE("a link whose variables aren't known yet is left out, the others kept", "[job_links]") {
  LinkTemplates t = MustParse({{"spark-ui", "https://ui.example/{namespace}/{name}"},
                               {"history", "https://history.example/history/{sparkAppId}/jobs/"},
                               {"logs",
                                "https://logs.example/?from={createdAtMillis}"
                                "&to={finishedAtMillis}"}});
  LinkValues v = Running();
  v.spark_app_id = "";
  std::vector<JobLink> links = t.Render(v);
  REQUIRE(links.size() == 1);
  CHECK(links[0].name == "spark-ui");

  v.spark_app_id = "spark-9";
  v.finished_at = absl::FromUnixMillis(1796555000000);
  links = t.Render(v);
  REQUIRE(links.size() == 3);
  CHECK(links[1].name == "history");
  CHECK(links[1].url == "https://history.example/history/spark-9/jobs/");
  CHECK(links[2].name == "logs");
  CHECK(links[2].url == "https://logs.example/?from=1796554800000&to=1796555000000");
}

TEST_CASE("doubled braces are literal braces", "[job_links]") {
  LinkTemplates t = MustParse({{"k", "https://k.example/#/q={{\"ns\":\"{namespace}\"}}"}});
  std::vector<JobLink> links = t.Render(Running());
  REQUIRE(links.size() == 1);
  CHECK(links[0].url == "https://k.example/#/q={\"ns\":\"team-a\"}");
}

TEST_CASE("no templates render nothing", "[job_links]") {
  LinkTemplates t = MustParse({});
  CHECK(t.empty());
  CHECK(t.Render(Running()).empty());
}

TEST_CASE("a bad template is refused, naming the link and the fault", "[job_links]") {
  using Case = std::pair<Named, std::string>;
  auto [named, fault] = GENERATE(values<Case>({
      {{{"logs", "https://l.example/{podName}"}}, "unknown variable \"podName\""},
      {{{"logs", "https://l.example/{name"}}, "never closed"},
      {{{"logs", "https://l.example/name}"}}, "'}' with no '{'"},
      {{{"logs", "https://l.example/a b"}}, "space or control character"},
      {{{"logs", "ftp://l.example/{name}"}}, "http:// or https://"},
      {{{"logs", "/relative/{name}"}}, "http:// or https://"},
      {{{"Logs", "https://l.example/"}}, "DNS-1123 label"},
      {{{"logs", "https://a.example/"}, {"logs", "https://b.example/"}}, "given twice"},
      {{{"logs", "https://l.example/" + std::string(kMaxLinkTemplateBytes, 'a')}},
       "bytes, at most"},
  }));
  absl::StatusOr<LinkTemplates> parsed = LinkTemplates::Parse(named);
  INFO(parsed.status().ToString());
  REQUIRE(parsed.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(parsed.status().message()).find(fault) != std::string::npos);
  if (named.front().first == "logs") {
    CHECK(std::string(parsed.status().message()).find("logs") != std::string::npos);
  }
}

TEST_CASE("an unknown variable's error lists the known ones", "[job_links]") {
  absl::StatusOr<LinkTemplates> parsed = LinkTemplates::Parse({{"x", "https://x/{appId}"}});
  REQUIRE_FALSE(parsed.ok());
  CHECK(std::string(parsed.status().message()).find(LinkVariableNames()) != std::string::npos);
}

TEST_CASE("too many templates are refused", "[job_links]") {
  Named named;
  for (size_t i = 0; i <= kMaxLinkTemplates; ++i) {
    named.emplace_back("l" + std::to_string(i), "https://x.example/");
  }
  CHECK(LinkTemplates::Parse(named).status().code() == absl::StatusCode::kInvalidArgument);
  named.pop_back();
  CHECK(LinkTemplates::Parse(named).ok());
}

}  // namespace
}  // namespace kje::spark
