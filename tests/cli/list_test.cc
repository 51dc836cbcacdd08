// `list` (cli/list.cc): --schedule lists a schedule's runs, -w prints the list and then each
// change, exit codes included.

#include <catch2/catch.hpp>

#include "cli/exit_codes.h"
#include "tests/cli/fake_job_executor.h"
#include "tests/cli/run_cli.h"

namespace kje::cli {
namespace {

using testing::Around;
using testing::FakeServer;
using testing::Job;
using testing::Lines;
using testing::Result;
using testing::RunCli;
namespace pb = jobexecutor::v1;

pb::JobInfo Named(const std::string& name, pb::JobInfo::Status status, const std::string& job_id) {
  pb::JobInfo info = Job("default/sparkapp/team/" + name, status);
  info.set_namespace_("team");
  info.set_name(name);
  info.set_job_id(job_id);
  return info;
}

// The first line of `text` that starts with `start`, or "".
std::string LineOf(const std::string& text, const std::string& start) {
  for (const std::string& line : Lines(text)) {
    if (line.rfind(start, 0) == 0) return line;
  }
  return "";
}

TEST_CASE("list --schedule lists the schedule's runs, in its namespace") {
  FakeServer server;
  pb::ScheduleInfo& schedule = server.service().schedules["nightly"];
  schedule.set_schedule_id("nightly");
  schedule.set_namespace_("team");
  schedule.set_name("gravitino-job-nightly");
  auto& jobs = server.service().jobs;
  // Its runs, and a job of the same id that is none (the server's selector matches them all).
  jobs["a"] = Named("gravitino-job-nightly-29410560", pb::JobInfo::SUCCEEDED, "nightly");
  jobs["b"] = Named("gravitino-job-nightly-rb2", pb::JobInfo::STARTED, "nightly");
  jobs["c"] = Named("gravitino-job-nightly", pb::JobInfo::FAILED, "nightly");
  Result r = RunCli({"list", "--schedule", "nightly", "-l", "team=data", "-o", "name", "--server",
                     server.address()});
  CHECK(r.code == 0);
  CHECK(r.out ==
        "default/sparkapp/team/gravitino-job-nightly-29410560\n"
        "default/sparkapp/team/gravitino-job-nightly-rb2\n");
  auto rec = server.service().recorded();
  REQUIRE(rec.gets.size() == 1);
  CHECK(rec.gets[0].schedule_id() == "nightly");
  REQUIRE(rec.lists.size() == 1);
  CHECK(rec.lists[0].namespace_() == "team");
  CHECK(rec.lists[0].label_selector() == "gravitino.apache.org/job-id=nightly,team=data");
  // With the other filters too.
  Result started = RunCli({"list", "--schedule", "nightly", "--status", "started", "-o", "name",
                           "--server", server.address()});
  CHECK(started.out == "default/sparkapp/team/gravitino-job-nightly-rb2\n");
}

TEST_CASE("list --schedule of a schedule that doesn't exist is NOT_FOUND, nothing listed") {
  FakeServer server;
  Result r = RunCli({"list", "--schedule", "nigthly", "--server", server.address()});
  CHECK(r.code == kExitNotFound);
  CHECK(r.err.find("list --schedule \"nigthly\": NOT_FOUND") != std::string::npos);
  CHECK(server.service().recorded().lists.empty());
}

TEST_CASE("list -w prints the list, then each job that changed, appeared or went") {
  FakeServer server;
  auto& jobs = server.service().jobs;
  jobs["a"] = Named("a", pb::JobInfo::STARTED, "1");
  jobs["b"] = Named("b", pb::JobInfo::QUEUED, "2");
  int calls = 0;
  std::vector<absl::Duration> waits;
  Around around;
  // Between the calls the jobs move on; the third wait ends the watch with a failed call.
  around.sleep = [&](absl::Duration d) {
    waits.push_back(d);
    ++calls;
    if (calls == 1) {
      jobs["a"] = Named("a", pb::JobInfo::SUCCEEDED, "1");
      jobs["c"] = Named("c", pb::JobInfo::QUEUED, "3");
    } else if (calls == 2) {
      jobs.erase("b");
    } else {
      server.service().list_status = grpc::Status(grpc::StatusCode::UNAVAILABLE, "gone away");
    }
  };
  Result r = RunCli({"list", "-w", "--interval", "1s", "--server", server.address()}, around);
  CHECK(r.code == kExitUnavailable);
  CHECK(r.err.find("list: UNAVAILABLE: gone away") != std::string::npos);
  CHECK(waits == std::vector<absl::Duration>(3, absl::Seconds(1)));
  std::vector<std::string> lines = Lines(r.out);
  REQUIRE(lines.size() == 6);
  CHECK(lines[0].rfind("EXECUTION ID", 0) == 0);
  CHECK(lines[0].find("WAITING") != std::string::npos);
  auto row = [&](size_t i, const std::string& id, const std::string& status) {
    INFO(lines[i]);
    CHECK(lines[i].rfind(id + " ", 0) == 0);
    CHECK(lines[i].find("  " + status + "  ") != std::string::npos);
  };
  row(1, "default/sparkapp/team/a", "STARTED");
  row(2, "default/sparkapp/team/b", "QUEUED");
  row(3, "default/sparkapp/team/a", "SUCCEEDED");  // changed
  row(4, "default/sparkapp/team/c", "QUEUED");     // appeared
  row(5, "default/sparkapp/team/b", "DELETED");    // went
}

TEST_CASE("list -w -o name prints an id per change; bad -w flags are usage errors") {
  FakeServer server;
  server.service().jobs["a"] = Named("a", pb::JobInfo::STARTED, "1");
  Around around;
  int calls = 0;
  around.sleep = [&](absl::Duration) {
    if (++calls == 1) {
      server.service().jobs["a"] = Named("a", pb::JobInfo::FAILED, "1");
    } else {
      server.service().list_status = grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "no");
    }
  };
  Result r = RunCli({"list", "-w", "-o", "name", "--server", server.address()}, around);
  CHECK(r.code == kExitAuth);
  CHECK(r.out == "default/sparkapp/team/a\ndefault/sparkapp/team/a\n");
  Result fast = RunCli({"list", "-w", "--interval", "10ms", "--server", server.address()}, around);
  CHECK(fast.code == kExitUsage);
  CHECK(fast.err.find("--interval needs a duration of at least 500ms") != std::string::npos);
  Result alone = RunCli({"list", "--interval", "1s", "--server", server.address()});
  CHECK(alone.code == kExitUsage);
  CHECK(alone.err.find("--interval goes with -w") != std::string::npos);
}

TEST_CASE("list -A asks for every namespace and names each job's, as kubectl get -A") {
  FakeServer server;
  auto& jobs = server.service().jobs;
  jobs["a"] = Named("a", pb::JobInfo::STARTED, "1");
  pb::JobInfo other = Job("default/sparkapp/team-b/b", pb::JobInfo::QUEUED);
  other.set_namespace_("team-b");
  other.set_name("b");
  jobs["b"] = other;
  Result r = RunCli({"list", "-A", "--server", server.address()});
  CHECK(r.code == 0);
  auto rec = server.service().recorded();
  REQUIRE(rec.lists.size() == 1);
  CHECK(rec.lists[0].all_namespaces());
  CHECK(rec.lists[0].namespace_().empty());
  CHECK(r.out.rfind("NAMESPACE  ", 0) == 0);
  CHECK(LineOf(r.out, "team ").find(" default/sparkapp/team/a ") != std::string::npos);
  CHECK(LineOf(r.out, "team-b ").find(" default/sparkapp/team-b/b ") != std::string::npos);
  // Without -A, no namespace column (the list is of one namespace).
  Result one = RunCli({"list", "--server", server.address()});
  CHECK(one.out.rfind("EXECUTION ID", 0) == 0);
  CHECK_FALSE(server.service().recorded().lists.back().all_namespaces());
}

TEST_CASE("list -A with a namespace or a schedule is a usage error, nothing asked") {
  FakeServer server;
  for (const char* also : {"--namespace", "--schedule"}) {
    INFO(also);
    Result r = RunCli({"list", "-A", also, "x", "--server", server.address()});
    CHECK(r.code == kExitUsage);
    CHECK(r.err.find("-A lists every namespace; leave out " + std::string(also)) !=
          std::string::npos);
  }
  CHECK(server.service().recorded().lists.empty());
  CHECK(server.service().recorded().gets.empty());
}

TEST_CASE("list -A -w keeps the namespace column, and a job that went says DELETED") {
  FakeServer server;
  server.service().jobs["a"] = Named("a", pb::JobInfo::STARTED, "1");
  Around around;
  int calls = 0;
  around.sleep = [&](absl::Duration) {
    if (++calls == 1) {
      server.service().jobs.erase("a");
    } else {
      server.service().list_status = grpc::Status(grpc::StatusCode::UNAVAILABLE, "gone");
    }
  };
  Result r = RunCli({"list", "-A", "-w", "--server", server.address()}, around);
  CHECK(r.code == kExitUnavailable);
  CHECK(r.out.rfind("NAMESPACE  EXECUTION ID", 0) == 0);
  // The header, the job, then the job gone.
  const std::vector<std::string> lines = Lines(r.out);
  REQUIRE(lines.size() == 3);
  const std::string& gone = lines.back();
  CHECK(gone.rfind("team ", 0) == 0);
  CHECK(gone.find(" default/sparkapp/team/a ") != std::string::npos);
  CHECK(gone.find(" DELETED ") != std::string::npos);
}

}  // namespace
}  // namespace kje::cli
