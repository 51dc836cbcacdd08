#include "cli/output.h"

#include <catch2/catch.hpp>

namespace kje::cli {
namespace {

using jobexecutor::v1::JobInfo;

JobInfo Info() {
  JobInfo info;
  info.set_execution_id("default/sparkapp/default/gravitino-job-1");
  info.set_job_id("1");
  info.set_status(JobInfo::STARTED);
  info.set_operator_state("RunningHealthy");
  info.mutable_started_at()->set_seconds(1767225600);
  return info;
}

TEST_CASE("timestamps print as RFC 3339 UTC, unset ones as a dash") {
  JobInfo info = Info();
  CHECK(FormatTimestamp(info, false) == "2026-01-01T00:00:00Z");
  CHECK(FormatTimestamp(info, true) == "-");
  info.mutable_finished_at()->set_seconds(1767225601);
  info.mutable_finished_at()->set_nanos(500000000);
  CHECK(FormatTimestamp(info, true) == "2026-01-01T00:00:01.5Z");
}

TEST_CASE("tables align their columns") {
  CHECK(FormatTable({{"A", "BB"}, {"long", "x"}}) == "A     BB\nlong  x\n");
  std::string list = FormatJobList({Info()});
  CHECK(list ==
        "EXECUTION ID                              JOB ID  STATUS   OPERATOR STATE  STARTED    "
        "           FINISHED\n"
        "default/sparkapp/default/gravitino-job-1  1       STARTED  RunningHealthy  "
        "2026-01-01T00:00:00Z  -\n");
  std::string one = FormatJobInfo(Info());
  CHECK(one.find("STATUS          STARTED\n") != std::string::npos);
  CHECK(one.find("DRIVER POD      -\n") != std::string::npos);
}

TEST_CASE("a transition shows the elapsed time, status and operator state") {
  JobInfo info = Info();
  CHECK(FormatTransition(absl::Milliseconds(12345), info, false) ==
        "  +12.3s  STARTED     RunningHealthy\n");
  CHECK(FormatTransition(absl::ZeroDuration(), info, true) ==
        "  +0.0s  default/sparkapp/default/gravitino-job-1  STARTED     RunningHealthy\n");
  info.set_status(JobInfo::FAILED);
  info.set_operator_state("");
  info.set_message("driver exited with 1");
  CHECK(FormatTransition(absl::Seconds(2), info, false) ==
        "  +2.0s  FAILED      (driver exited with 1)\n");
  info.set_message("two\nlines");
  CHECK(FormatTransition(absl::Seconds(2), info, false) == "  +2.0s  FAILED      (two lines)\n");
  CHECK(FormatJobInfo(info).find("MESSAGE         two lines\n") != std::string::npos);
  info.set_message("");
  CHECK(FormatTransition(absl::Seconds(2), info, false) == "  +2.0s  FAILED\n");
}

TEST_CASE("JSON is protobuf JSON with enum names and defaults") {
  std::string json = ToJson(Info(), false);
  CHECK(json.find("\"executionId\":\"default/sparkapp/default/gravitino-job-1\"") !=
        std::string::npos);
  CHECK(json.find("\"status\":\"STARTED\"") != std::string::npos);
  CHECK(json.find("\"startedAt\":\"2026-01-01T00:00:00Z\"") != std::string::npos);
  CHECK(json.find("\"driverPod\":\"\"") != std::string::npos);
  CHECK(json.back() == '\n');
  CHECK(json.find('\n') == json.size() - 1);
  CHECK(ToJson(Info(), true).find("\n \"") != std::string::npos);
}

}  // namespace
}  // namespace kje::cli
