#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "cli/output.h"
#include "jobexecutor/v1/job_executor.pb.h"

namespace kje::cli {
namespace {

namespace pb = jobexecutor::v1;

TEST_CASE(
    "output: -o yaml holds the JSON mapping's values, strings that look like other types quoted") {
  pb::JobInfo info;
  info.set_execution_id("default/sparkapp/ns/gravitino-job-1001");
  info.set_job_id("1001");
  info.set_status(pb::JobInfo::FAILED);
  info.set_operator_state("true");
  info.set_message("line one\nline two: with a colon");
  info.set_attempts(2);
  info.set_exit_code(1);
  info.mutable_started_at()->set_seconds(1767225600);
  pb::JobLink* link = info.add_links();
  link->set_name("spark-ui");
  link->set_url("http://ui.example/?app=1");
  const std::string yaml = ToYaml(info);
  // Block style, a document without "---" (streams add it).
  CHECK(yaml.rfind("executionId: default/sparkapp/ns/gravitino-job-1001\n", 0) == 0);
  CHECK(yaml.find("{") == std::string::npos);
  YAML::Node doc = YAML::Load(yaml);
  CHECK(doc["executionId"].as<std::string>() == "default/sparkapp/ns/gravitino-job-1001");
  // Quoted: a reader must get the string back, not the number or the boolean.
  CHECK(doc["jobId"].as<std::string>() == "1001");
  CHECK(doc["jobId"].Tag() == "!");
  CHECK(doc["operatorState"].Tag() == "!");
  CHECK(doc["startedAt"].Tag() == "!");
  CHECK(doc["startedAt"].as<std::string>() == "2026-01-01T00:00:00Z");
  CHECK(doc["status"].as<std::string>() == "FAILED");
  CHECK(doc["status"].Tag() == "?");  // a plain word needs no quotes
  CHECK(doc["message"].as<std::string>() == "line one\nline two: with a colon");
  CHECK(doc["attempts"].as<int>() == 2);
  CHECK(doc["exitCode"].as<int>() == 1);
  // Defaults are printed as the JSON prints them.
  CHECK(doc["queue"].as<std::string>().empty());
  CHECK(doc["queue"].Tag() == "!");
  REQUIRE(doc["links"].IsSequence());
  CHECK(doc["links"][0]["url"].as<std::string>() == "http://ui.example/?app=1");
}

TEST_CASE("output: -o yaml keeps the JSON's field order and empty collections") {
  pb::ListJobsResponse none;
  YAML::Node doc = YAML::Load(ToYaml(none));
  CHECK(doc["jobs"].IsSequence());
  CHECK(doc["jobs"].size() == 0);
  pb::JobEvent event;
  event.set_object_kind("Pod");
  event.set_reason("Scheduled");
  event.set_count(3);
  const std::string yaml = ToYaml(event);
  CHECK(yaml.find("objectKind") < yaml.find("reason"));
  // int64 is a string in the JSON mapping, and stays one.
  CHECK(YAML::Load(yaml)["count"].Tag() == "!");
  CHECK(YAML::Load(yaml)["count"].as<std::string>() == "3");
}

TEST_CASE("output: -o names its values, and an unknown one names the accepted ones") {
  const std::vector<OutputFormat> all = {OutputFormat::kTable, OutputFormat::kWide,
                                         OutputFormat::kJson, OutputFormat::kYaml,
                                         OutputFormat::kName};
  for (OutputFormat f : all) CHECK(*ParseOutputFormat(FormatName(f), all) == f);
  auto bad = ParseOutputFormat("xml", {OutputFormat::kTable, OutputFormat::kJson});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() == "-o must be one of table, json, got \"xml\"");
  CHECK_FALSE(ParseOutputFormat("wide", {OutputFormat::kTable}).ok());
}

}  // namespace
}  // namespace kje::cli
