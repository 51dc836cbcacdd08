#include "cli/forward.h"

#include <catch2/catch.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "cli/exit_codes.h"
#include "tests/cli/fake_job_executor.h"
#include "tests/cli/run_cli.h"

namespace kje::cli {
namespace {

using testing::FakeServer;
using testing::Job;
using testing::Result;
using testing::RunCli;
namespace pb = jobexecutor::v1;

constexpr char kId[] = "default/sparkapp/default/gravitino-job-1001";

TEST_CASE("forward: a browser's request target is the UI's path, nothing else") {
  CHECK(*UiPathOf("/") == "/");
  CHECK(*UiPathOf("/jobs/job/?id=3&attempt=0") == "/jobs/job/?id=3&attempt=0");
  for (const std::string& bad :
       std::vector<std::string>{"", "*", "http://evil.example/", "jobs", "/a b", "/a\r\nHost: x",
                                std::string("/") + std::string(9000, 'a')}) {
    INFO(bad);
    CHECK(absl::IsInvalidArgument(UiPathOf(bad).status()));
  }
}

TEST_CASE("forward: a job without a running driver is said at once, before any port is taken") {
  FakeServer server;
  server.service().jobs[kId] = Job(kId, pb::JobInfo::SUCCEEDED);
  Result r = RunCli({"forward", kId, "--port", "0", "--server", server.address()});
  CHECK(r.code == kExitError);
  CHECK(r.out.empty());  // no "Forwarding from": nothing is served
  CHECK(r.err.find("forward: FAILED_PRECONDITION: job " + std::string(kId) +
                   " has no running driver") != std::string::npos);
  auto rec = server.service().recorded();
  REQUIRE(rec.ui_requests.size() == 1);
  CHECK(rec.ui_requests[0].path() == "/");

  Result missing =
      RunCli({"forward", "default/sparkapp/default/nope", "--server", server.address()});
  CHECK(missing.code == kExitNotFound);
}

TEST_CASE("forward: bad flags are usage errors, and nothing is asked") {
  FakeServer server;
  server.service().jobs[kId] = Job(kId, pb::JobInfo::STARTED);
  for (auto [flag, value, words] :
       {std::tuple<std::string, std::string, std::string>{"--port", "65536", "--port needs"},
        {"--port", "x", "--port needs"},
        {"--address", "localhost", "--address needs an IP address"}}) {
    INFO(flag << " " << value);
    Result r = RunCli({"forward", kId, flag, value, "--server", server.address()});
    CHECK(r.code == kExitUsage);
    CHECK(r.err.find(words) != std::string::npos);
  }
  Result none = RunCli({"forward", "--server", server.address()});
  CHECK(none.code == kExitUsage);
  CHECK(server.service().recorded().ui_requests.empty());
}

}  // namespace
}  // namespace kje::cli
