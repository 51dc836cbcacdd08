// -o on every command that prints (cli/command.cc's PrintStructured and each command's accepted
// formats): yaml as the JSON mapping's values, name as the ids, wide with more columns, and a
// usage error naming the accepted values for any other.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>

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

constexpr char kA[] = "default/sparkapp/ns/gravitino-job-a";
constexpr char kB[] = "default/sparkapp/ns/gravitino-job-b";

void AddJobs(FakeServer& server) {
  pb::JobInfo a = Job(kA, pb::JobInfo::SUCCEEDED, "ResourceReleased");
  a.set_job_id("1001");
  a.set_namespace_("ns");
  a.set_driver_pod("gravitino-job-a-0-driver");
  a.set_exit_code(0);
  a.set_output_source(pb::JobInfo::KEPT);
  pb::JobInfo b = Job(kB, pb::JobInfo::STARTED, "RunningHealthy");
  b.set_namespace_("ns");
  b.set_message("running");
  server.service().jobs[kA] = a;
  server.service().jobs[kB] = b;
}

TEST_CASE("output: -o name prints the ids alone, for scripts") {
  FakeServer server;
  AddJobs(server);
  server.service().submit_response.set_execution_id(kA);
  server.service().watch_events = {Job(kA, pb::JobInfo::STARTED), Job(kA, pb::JobInfo::SUCCEEDED)};
  const std::string s = server.address();
  Result status = RunCli({"status", kA, "-o", "name", "--server", s});
  CHECK(status.code == 0);  // the exit code is still the job's
  CHECK(status.out == std::string(kA) + "\n");
  Result running = RunCli({"status", kB, "-o", "name", "--server", s});
  CHECK(running.code == kExitJobNotFinished);
  Result list = RunCli({"list", "-o", "name", "--server", s});
  CHECK(list.code == 0);
  CHECK(list.out == std::string(kA) + "\n" + kB + "\n");
  Result submit = RunCli({"submit", "--job-id", "1", "--metalake", "m", "--name", "n",
                          "--executable", "local:///a.jar", "-o", "name", "--server", s});
  CHECK(submit.code == 0);
  CHECK(submit.out == std::string(kA) + "\n");
  Result cancel = RunCli({"cancel", kA, kB, "-o", "name", "--server", s});
  CHECK(cancel.code == 0);
  CHECK(cancel.out == std::string(kA) + "\n" + kB + "\n");
  Result watch = RunCli({"watch", kA, "-o", "name", "--server", s});
  CHECK(watch.code == 0);
  CHECK(watch.out == std::string(kA) + "\n" + kA + "\n");
}

TEST_CASE("output: -o yaml prints what -o json does, as YAML documents") {
  FakeServer server;
  AddJobs(server);
  pb::EventsResponse& events = server.service().events[kA];
  pb::JobEvent* e = events.add_events();
  e->set_reason("Scheduled");
  e->set_count(2);
  const std::string s = server.address();
  Result status = RunCli({"status", kA, "-o", "yaml", "--server", s});
  CHECK(status.code == 0);
  YAML::Node doc = YAML::Load(status.out);
  CHECK(doc["executionId"].as<std::string>() == kA);
  CHECK(doc["jobId"].as<std::string>() == "1001");
  CHECK(doc["status"].as<std::string>() == "SUCCEEDED");
  Result list = RunCli({"list", "-o", "yaml", "--server", s});
  CHECK(YAML::Load(list.out)["jobs"].size() == 2);
  // Two answers, two documents.
  Result describe = RunCli({"describe", kA, "-o", "yaml", "--server", s});
  CHECK(describe.code == 0);
  std::vector<YAML::Node> docs = YAML::LoadAll(describe.out);
  REQUIRE(docs.size() == 2);
  CHECK(docs[0]["status"].as<std::string>() == "SUCCEEDED");
  CHECK(docs[1]["events"][0]["reason"].as<std::string>() == "Scheduled");
  // A stream: a document per message.
  server.service().watch_events = {Job(kA, pb::JobInfo::STARTED), Job(kA, pb::JobInfo::SUCCEEDED)};
  Result watch = RunCli({"watch", kA, "-o", "yaml", "--server", s});
  CHECK(watch.code == 0);
  docs = YAML::LoadAll(watch.out);
  REQUIRE(docs.size() == 2);
  CHECK(docs[1]["status"].as<std::string>() == "SUCCEEDED");
  server.service().output_lines = {"Pi is roughly 3.14"};
  Result logs = RunCli({"logs", kA, "-o", "yaml", "--server", s});
  CHECK(YAML::Load(logs.out)["lines"][0].as<std::string>() == "Pi is roughly 3.14");
}

TEST_CASE("output: -o wide adds columns") {
  FakeServer server;
  AddJobs(server);
  const std::string s = server.address();
  Result list = RunCli({"list", "-o", "wide", "--server", s});
  CHECK(list.code == 0);
  const std::string header = list.out.substr(0, list.out.find('\n'));
  CHECK(header.rfind("NAMESPACE  EXECUTION ID", 0) == 0);
  for (const char* column : {"WAITING", "DRIVER POD", "QUEUE", "EXIT CODE", "MESSAGE"}) {
    CHECK(header.find(column) != std::string::npos);
  }
  CHECK(list.out.find("gravitino-job-a-0-driver") != std::string::npos);
  CHECK(list.out.find("running\n") != std::string::npos);
  Result plain = RunCli({"list", "--server", s});
  CHECK(plain.out.find("DRIVER POD") == std::string::npos);
  Result status = RunCli({"status", kA, "-o", "wide", "--server", s});
  CHECK(status.out.find("OUTPUT          KEPT\n") != std::string::npos);
  CHECK(status.out.find("EXIT CODE       0\n") != std::string::npos);
  CHECK(RunCli({"status", kA, "--server", s}).out.find("EXIT CODE") == std::string::npos);
  pb::JobEvent* e = server.service().events[kA].add_events();
  e->set_reason("Scheduled");
  e->set_count(3);
  e->mutable_first_seen()->set_seconds(1767225600);
  Result events = RunCli({"events", kA, "-o", "wide", "--server", s});
  CHECK(events.out.rfind("LAST SEEN  FIRST SEEN            COUNT  TYPE", 0) == 0);
  CHECK(events.out.find("2026-01-01T00:00:00Z  3") != std::string::npos);
}

TEST_CASE("an -o a command doesn't take is a usage error naming those it takes") {
  FakeServer server;
  AddJobs(server);
  const std::string s = server.address();
  auto usage = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--server", s});
    Result r = RunCli(args);
    CHECK(r.code == kExitUsage);
    CHECK(r.out.empty());
    return r.err.substr(0, r.err.find('\n'));
  };
  CHECK(usage({"status", kA, "-o", "xml"}) ==
        "k8s-job-executor status: -o must be one of table, wide, json, yaml, name, got \"xml\"");
  CHECK(usage({"submit", "-o", "wide"}) ==
        "k8s-job-executor submit: -o must be one of table, json, yaml, name, got \"wide\"");
  CHECK(usage({"logs", kA, "-o", "name"}) ==
        "k8s-job-executor logs: -o must be one of table, json, yaml, got \"name\"");
  CHECK(usage({"schedule", "get", "x", "-o", "wide"}).find("table, json, yaml, name") !=
        std::string::npos);
  // Nothing was asked of the server.
  auto rec = server.service().recorded();
  CHECK(rec.statuses.empty());
  CHECK(rec.outputs.empty());
  Result help = RunCli({"list", "--help"});
  CHECK(help.out.find("-o takes: table, wide, json, yaml, name") != std::string::npos);
}

TEST_CASE("schedules print by name and wide") {
  FakeServer server;
  pb::ScheduleInfo& info = server.service().schedules["nightly"];
  info.set_schedule_id("nightly");
  info.set_namespace_("ns");
  info.set_name("gravitino-job-nightly");
  info.mutable_spec()->set_schedule("@daily");
  info.set_reason("ok");
  const std::string s = server.address();
  Result name = RunCli({"schedule", "list", "-o", "name", "--server", s});
  CHECK(name.code == 0);
  CHECK(name.out == "nightly\n");
  CHECK(RunCli({"schedule", "get", "nightly", "-o", "name", "--server", s}).out == "nightly\n");
  Result wide = RunCli({"schedule", "list", "-o", "wide", "--server", s});
  CHECK(wide.out.rfind("SCHEDULE ID  NAMESPACE  NAME", 0) == 0);
  CHECK(wide.out.find("gravitino-job-nightly") != std::string::npos);
  CHECK(wide.out.find("FAILED HISTORY") != std::string::npos);
  Result yaml = RunCli({"schedule", "get", "nightly", "-o", "yaml", "--server", s});
  CHECK(YAML::Load(yaml.out)["spec"]["schedule"].as<std::string>() == "@daily");
}

}  // namespace
}  // namespace kje::cli
