#include "cli/job_ref.h"

#include <catch2/catch.hpp>
#include <string>

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

pb::JobInfo Named(const std::string& id, const std::string& job_id, const std::string& name) {
  pb::JobInfo info = Job(id, pb::JobInfo::SUCCEEDED);
  info.set_job_id(job_id);
  info.set_name(name);
  return info;
}

struct Jobs {
  FakeServer server;
  Jobs() {
    auto& jobs = server.service().jobs;
    jobs["c/sparkapp/team/gravitino-job-1001"] =
        Named("c/sparkapp/team/gravitino-job-1001", "1001", "gravitino-job-1001");
    jobs["c/sparkapp/team/nightly-r1"] =
        Named("c/sparkapp/team/nightly-r1", "nightly", "nightly-r1");
    jobs["c/sparkapp/team/nightly-r2"] =
        Named("c/sparkapp/team/nightly-r2", "nightly", "nightly-r2");
  }
  Result Run(std::vector<std::string> args) {
    args.push_back("--server");
    args.push_back(server.address());
    return RunCli(args);
  }
};

TEST_CASE("job names: a job id or an application name stands for the execution id") {
  Jobs t;
  Result by_id = t.Run({"status", "1001", "-n", "team"});
  CHECK(by_id.code == kExitOk);
  CHECK(t.server.service().recorded().statuses.back() == "c/sparkapp/team/gravitino-job-1001");
  // The lookup asked the given namespace, by the job-id label first.
  const auto lists = t.server.service().recorded().lists;
  REQUIRE_FALSE(lists.empty());
  CHECK(lists.front().namespace_() == "team");
  CHECK(lists.front().label_selector() == "gravitino.apache.org/job-id=1001");

  CHECK(t.Run({"status", "nightly-r2"}).code == kExitOk);
  CHECK(t.server.service().recorded().statuses.back() == "c/sparkapp/team/nightly-r2");
  // Several verbs take names, several at once too.
  CHECK(t.Run({"cancel", "1001", "nightly-r1"}).code == kExitOk);
  const auto cancels = t.server.service().recorded().cancels;
  CHECK(cancels == std::vector<std::string>{"c/sparkapp/team/gravitino-job-1001",
                                            "c/sparkapp/team/nightly-r1"});
}

TEST_CASE("job names: an execution id goes as it is, with no lookup") {
  Jobs t;
  CHECK(t.Run({"status", "c/sparkapp/team/nightly-r1"}).code == kExitOk);
  CHECK(t.server.service().recorded().lists.empty());
}

TEST_CASE("job names: a job id of several jobs is refused, naming some of them") {
  Jobs t;
  Result r = t.Run({"status", "nightly"});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("job id \"nightly\" names 2 jobs in the server's namespace (the runs of a "
                   "schedule share their schedule's); name one by its execution id, e.g. "
                   "c/sparkapp/team/nightly-r1, c/sparkapp/team/nightly-r2") != std::string::npos);
  CHECK(t.server.service().recorded().statuses.empty());
}

TEST_CASE("job names: an unknown name gets the server's NOT_FOUND, then where it was looked for") {
  Jobs t;
  Result r = t.Run({"status", "gravitino-job-1010", "-n", "team"});
  CHECK(r.code == kExitNotFound);
  CHECK(r.err ==
        "k8s-job-executor: status: NOT_FOUND: no such application\n"
        "k8s-job-executor: hint: no job with the id or name \"gravitino-job-1010\" in namespace "
        "team (-n picks another); did you mean gravitino-job-1001?\n");
  Result far = t.Run({"describe", "zzz"});
  CHECK(far.code == kExitNotFound);
  CHECK(far.err.find("hint: no job with the id or name \"zzz\" in the server's namespace "
                     "(-n picks another)\n") != std::string::npos);
}

}  // namespace
}  // namespace kje::cli
