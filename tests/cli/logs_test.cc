// `logs` (cli/logs.cc): --executor, --since, --timestamps and --previous reach Output and
// FollowOutput as their fields; bad values are usage errors before any call.

#include <catch2/catch.hpp>

#include "cli/exit_codes.h"
#include "tests/cli/fake_job_executor.h"
#include "tests/cli/run_cli.h"

namespace kje::cli {
namespace {

using testing::FakeServer;
using testing::Result;
using testing::RunCli;
namespace pb = jobexecutor::v1;

constexpr char kId[] = "default/sparkapp/default/gravitino-job-1001";

TEST_CASE("logs passes --executor, --since, --timestamps and --previous to Output") {
  FakeServer server;
  server.service().output_lines = {"2026-12-06T10:00:00.000000000Z executor line"};
  Result r = RunCli({"logs", kId, "--executor", "2", "--since", "5m", "--timestamps", "--previous",
                     "--tail", "10", "--server", server.address()});
  CHECK(r.code == 0);
  CHECK(r.out == "2026-12-06T10:00:00.000000000Z executor line\n");
  auto rec = server.service().recorded();
  REQUIRE(rec.outputs.size() == 1);
  const pb::OutputRequest& req = rec.outputs[0];
  CHECK(req.executor() == 2);
  CHECK(req.since_seconds() == 300);
  CHECK(req.timestamps());
  CHECK(req.previous());
  CHECK(req.max_lines() == 10);
  // Without the flags: the driver, all of it, no stamps, the current run.
  CHECK(RunCli({"logs", kId, "--server", server.address()}).code == 0);
  rec = server.service().recorded();
  REQUIRE(rec.outputs.size() == 2);
  CHECK(rec.outputs[1].executor() == 0);
  CHECK(rec.outputs[1].since_seconds() == 0);
  CHECK_FALSE(rec.outputs[1].timestamps());
  CHECK_FALSE(rec.outputs[1].previous());
}

TEST_CASE("logs -f passes --executor, --since and --timestamps to FollowOutput") {
  FakeServer server;
  pb::OutputChunk chunk;
  chunk.add_lines("line");
  server.service().follow_chunks = {chunk};
  Result r = RunCli({"logs", kId, "-f", "--executor", "1", "--since", "1h30m", "--timestamps",
                     "--server", server.address()});
  CHECK(r.code == 0);
  CHECK(r.out == "line\n");
  auto rec = server.service().recorded();
  REQUIRE(rec.follows.size() == 1);
  CHECK(rec.follows[0].executor() == 1);
  CHECK(rec.follows[0].since_seconds() == 5400);
  CHECK(rec.follows[0].timestamps());
}

TEST_CASE("logs --since takes kubectl's durations, a part of a second as the whole second") {
  FakeServer server;
  for (const auto& [since, seconds] : std::vector<std::pair<std::string, int64_t>>{
           {"10s", 10}, {"5m", 300}, {"1h", 3600}, {"1500ms", 2}, {"1ns", 1}}) {
    INFO(since);
    CHECK(RunCli({"logs", kId, "--since", since, "--server", server.address()}).code == 0);
    auto rec = server.service().recorded();
    CHECK(rec.outputs.back().since_seconds() == seconds);
  }
}

TEST_CASE("bad logs flags are usage errors, and nothing is asked") {
  FakeServer server;
  auto usage = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"logs", kId});
    args.insert(args.end(), {"--server", server.address()});
    Result r = RunCli(args);
    CHECK(r.code == kExitUsage);
    return r.err.substr(0, r.err.find('\n'));
  };
  CHECK(usage({"--executor", "0"}) ==
        "k8s-job-executor logs: --executor needs a Spark executor id >= 1 (1, 2, ...), got \"0\"");
  CHECK(usage({"--executor", "-1"}).find("--executor needs") != std::string::npos);
  CHECK(usage({"--executor", "driver"}).find("--executor needs") != std::string::npos);
  CHECK(usage({"--since", "0s"}) ==
        "k8s-job-executor logs: --since needs a positive duration such as 10s, 5m or 1h, got "
        "\"0s\"");
  CHECK(usage({"--since", "-5m"}).find("--since needs") != std::string::npos);
  CHECK(usage({"--since", "yesterday"}).find("--since needs") != std::string::npos);
  CHECK(usage({"--previous", "-f"}).find("--previous doesn't go with -f") != std::string::npos);
  auto rec = server.service().recorded();
  CHECK(rec.outputs.empty());
  CHECK(rec.follows.empty());
}

}  // namespace
}  // namespace kje::cli
