#include "cli/cli.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "base/quote.h"
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
using testing::SteppingClock;
using testing::WriteFile;
namespace pb = jobexecutor::v1;

constexpr char kId[] = "default/sparkapp/default/gravitino-job-1001";

TEST_CASE("submit sends the job file's request with flag overrides and prints the id") {
  FakeServer server;
  server.service().submit_response.set_execution_id(kId);
  std::string job = WriteFile("cli_test_job.yaml", R"(
jobId: "1"
metalake: lake
template:
  name: spark-pi
  executable: local:///opt/spark/examples/jars/spark-examples.jar
  arguments: ["100"]
  spark:
    className: org.apache.spark.examples.SparkPi
    configs: {spark.executor.instances: "2"}
)");
  Result r = RunCli({"submit", "-f", job, "--job-id", "1001", "--conf", "kubesim.outcome=fail",
                     "--namespace", "spark-jobs", "--server", server.address()});
  std::remove(job.c_str());
  CHECK(r.code == 0);
  CHECK(r.out == std::string(kId) + "\n");
  CHECK(r.err.empty());
  auto rec = server.service().recorded();
  REQUIRE(rec.submits.size() == 1);
  const pb::SubmitRequest& req = rec.submits[0];
  CHECK(req.job_id() == "1001");
  CHECK(req.metalake() == "lake");
  CHECK(req.template_().arguments(0) == "100");
  CHECK(req.template_().spark().class_name() == "org.apache.spark.examples.SparkPi");
  const auto& conf = req.template_().spark().configs();
  CHECK(conf.at("spark.executor.instances") == "2");
  CHECK(conf.at("kubesim.outcome") == "fail");
  CHECK(conf.at("spark.kubernetes.namespace") == "spark-jobs");
  CHECK(rec.had_deadline);  // unary calls get the default deadline
}

TEST_CASE("submit takes a job file without jobId, the id from --job-id") {
  FakeServer server;
  server.service().submit_response.set_execution_id(kId);
  std::string job = WriteFile("cli_test_template.yaml", R"(
metalake: lake
template: {name: spark-pi, executable: "local:///app.jar"}
)");
  Result r = RunCli({"submit", "-f", job, "--job-id", "1001", "--server", server.address()});
  Result missing = RunCli({"submit", "-f", job, "--server", server.address()});
  std::remove(job.c_str());
  CHECK(r.code == 0);
  auto rec = server.service().recorded();
  REQUIRE(rec.submits.size() == 1);
  CHECK(rec.submits[0].job_id() == "1001");
  CHECK(missing.code == kExitUsage);
  CHECK(missing.err.find("jobId: is required (give it in the job file or as a flag)") !=
        std::string::npos);
}

TEST_CASE("submit from flags alone, JSON output, and the adopted note") {
  FakeServer server;
  server.service().submit_response.set_execution_id(kId);
  server.service().submit_response.set_adopted(true);
  Result r = RunCli({"submit",
                     "--job-id",
                     "1001",
                     "--name",
                     "pi",
                     "--executable",
                     "local:///app.jar",
                     "--class",
                     "Main",
                     "--arg",
                     "a",
                     "--arg",
                     "b",
                     "--jar",
                     "https://x/dep.jar",
                     "--file",
                     "s3a://f",
                     "--archive",
                     "s3a://z.zip",
                     "--comment",
                     "c",
                     "--metalake",
                     "m",
                     "-o",
                     "json",
                     "--server",
                     server.address()});
  CHECK(r.code == 0);
  CHECK(r.out.find("\"executionId\": \"" + std::string(kId) + "\"") != std::string::npos);
  CHECK(r.out.find("\"adopted\": true") != std::string::npos);
  auto rec = server.service().recorded();
  REQUIRE(rec.submits.size() == 1);
  const auto& t = rec.submits[0].template_();
  CHECK(t.name() == "pi");
  CHECK(t.comment() == "c");
  CHECK(std::vector<std::string>(t.arguments().begin(), t.arguments().end()) ==
        std::vector<std::string>{"a", "b"});
  CHECK(t.spark().jars(0) == "https://x/dep.jar");
  CHECK(t.spark().files(0) == "s3a://f");
  CHECK(t.spark().archives(0) == "s3a://z.zip");
  CHECK(rec.submits[0].metalake() == "m");

  Result table = RunCli({"submit", "--job-id", "1001", "--metalake", "m", "--name", "pi",
                         "--executable", "local:///app.jar", "--server", server.address()});
  CHECK(table.out == std::string(kId) + "\n");
  CHECK(table.err == "job 1001 already had an application; adopted it\n");
}

TEST_CASE("submit refuses an incomplete job before sending anything") {
  FakeServer server;
  Result r = RunCli(
      {"submit", "--job-id", "1", "--metalake", "m", "--name", "pi", "--server", server.address()});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("template.executable: is required (give it in the job file or as a flag)") !=
        std::string::npos);
  Result conf = RunCli({"submit", "--job-id", "1", "--name", "pi", "--executable", "x", "--conf",
                        "novalue", "--server", server.address()});
  CHECK(conf.code == kExitUsage);
  CHECK(conf.err.find("--conf needs KEY=VALUE, got \"novalue\"") != std::string::npos);
  Result file = RunCli({"submit", "-f", "/nonexistent/job.yaml", "--server", server.address()});
  CHECK(file.code == kExitUsage);
  CHECK(file.err.find("/nonexistent/job.yaml: can't read the job file") != std::string::npos);
  CHECK(server.service().recorded().submits.empty());
}

TEST_CASE("submit's RPC errors print the code and map to exit codes") {
  FakeServer server;
  server.service().submit_status = {grpc::StatusCode::ALREADY_EXISTS, "held by job 999"};
  Result r = RunCli({"submit", "--job-id", "1", "--metalake", "m", "--name", "pi", "--executable",
                     "local:///x.jar", "--server", server.address()});
  CHECK(r.code == kExitError);
  CHECK(r.err == "k8s-job-executor: submit: ALREADY_EXISTS: held by job 999\n");
  CHECK(r.out.empty());
}

TEST_CASE("status prints the job and exits by its outcome") {
  FakeServer server;
  auto& jobs = server.service().jobs;
  jobs["ok"] = Job("ok", pb::JobInfo::SUCCEEDED, "ResourceReleased");
  jobs["failed"] = Job("failed", pb::JobInfo::FAILED);
  jobs["cancelled"] = Job("cancelled", pb::JobInfo::CANCELLED);
  jobs["running"] = Job("running", pb::JobInfo::STARTED);
  jobs["cancelling"] = Job("cancelling", pb::JobInfo::CANCELLING);
  jobs["queued"] = Job("queued", pb::JobInfo::QUEUED);
  auto status = [&](const std::string& id) {
    return RunCli({"status", id, "--server", server.address()});
  };
  Result ok = status("ok");
  CHECK(ok.code == 0);
  CHECK(ok.out.find("STATUS          SUCCEEDED\n") != std::string::npos);
  CHECK(ok.out.find("OPERATOR STATE  ResourceReleased\n") != std::string::npos);
  CHECK(status("failed").code == kExitJobFailed);
  CHECK(status("cancelled").code == kExitJobCancelled);
  CHECK(status("running").code == kExitJobNotFinished);
  CHECK(status("cancelling").code == kExitJobNotFinished);
  CHECK(status("queued").code == kExitJobNotFinished);
  Result missing = status("nope");
  CHECK(missing.code == kExitNotFound);
  CHECK(missing.err ==
        "k8s-job-executor: status: NOT_FOUND: no such application\n"
        "k8s-job-executor: hint: no job with the id or name \"nope\" in the server's namespace "
        "(-n picks another)\n");
  Result json = RunCli({"status", "failed", "-o", "json", "--server", server.address()});
  CHECK(json.code == kExitJobFailed);
  CHECK(json.out.find("\"status\": \"FAILED\"") != std::string::npos);
}

TEST_CASE("status says why a job waits and when its deadline falls; list filters by both") {
  FakeServer server;
  auto& jobs = server.service().jobs;
  pb::JobInfo waiting = Job("default/sparkapp/ns/waits", pb::JobInfo::QUEUED);
  waiting.set_waiting_reason(pb::JobInfo::UNSCHEDULABLE);
  waiting.set_waiting_message("0/3 nodes are available:\n3 Insufficient cpu.");
  waiting.mutable_deadline_at()->set_seconds(1767225600);
  jobs[waiting.execution_id()] = waiting;
  pb::JobInfo stopped = Job("default/sparkapp/ns/stopped", pb::JobInfo::FAILED);
  stopped.set_deadline_exceeded(pb::JobInfo::QUEUED_DEADLINE);
  jobs[stopped.execution_id()] = stopped;
  jobs["default/sparkapp/ns/runs"] = Job("default/sparkapp/ns/runs", pb::JobInfo::STARTED);

  Result r = RunCli({"status", waiting.execution_id(), "--server", server.address()});
  CHECK(r.code == kExitJobNotFinished);
  // One line, whatever the scheduler's message holds.
  CHECK(
      r.out.find("WAITING         UNSCHEDULABLE: 0/3 nodes are available: 3 Insufficient cpu.\n") !=
      std::string::npos);
  CHECK(r.out.find("DEADLINE        2026-01-01T00:00:00Z\n") != std::string::npos);
  r = RunCli({"status", stopped.execution_id(), "--server", server.address()});
  CHECK(r.out.find("STOPPED BY      QUEUED_DEADLINE\n") != std::string::npos);

  r = RunCli({"list", "--waiting", "unschedulable", "--server", server.address()});
  CHECK(r.code == 0);
  CHECK(r.out.find("ns/waits") != std::string::npos);
  CHECK(r.out.find("ns/runs") == std::string::npos);
  CHECK(r.out.find("WAITING") != std::string::npos);
  r = RunCli({"list", "--status", "STARTED,failed", "--server", server.address()});
  CHECK(r.out.find("ns/waits") == std::string::npos);
  CHECK(r.out.find("ns/runs") != std::string::npos);
  CHECK(r.out.find("ns/stopped") != std::string::npos);
  CHECK(r.out.find("WAITING") == std::string::npos);  // nobody waits: the usual columns
  r = RunCli({"list", "--waiting", "STUCK", "--server", server.address()});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--waiting \"STUCK\" is none of UNSCHEDULABLE, IMAGE_PULL") !=
        std::string::npos);
}

TEST_CASE("list asks the server to filter by status and time; status shows the links") {
  FakeServer server;
  pb::JobInfo job = Job("default/sparkapp/ns/a", pb::JobInfo::SUCCEEDED);
  pb::JobLink* ui = job.add_links();
  ui->set_name("spark-ui");
  ui->set_url("https://spark.example/ns/a");
  server.service().jobs[job.execution_id()] = job;
  Result r =
      RunCli({"list", "--status", "succeeded,FAILED", "--created-after", "2026-12-01T00:00:00Z",
              "--finished-before", "2026-12-02T12:30:00.5Z", "--server", server.address()});
  CHECK(r.code == 0);
  auto rec = server.service().recorded();
  REQUIRE(rec.lists.size() == 1);
  const pb::ListJobsRequest& req = rec.lists[0];
  CHECK(std::set<int>(req.statuses().begin(), req.statuses().end()) ==
        std::set<int>{pb::JobInfo::SUCCEEDED, pb::JobInfo::FAILED});
  CHECK(req.created_after().seconds() == 1796083200);
  CHECK(req.finished_before().seconds() == 1796214600);
  CHECK(req.finished_before().nanos() == 500000000);
  CHECK_FALSE(req.has_created_before());
  CHECK_FALSE(req.has_finished_after());
  r = RunCli({"list", "--created-before", "yesterday", "--server", server.address()});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--created-before \"yesterday\" is not an RFC 3339 time") != std::string::npos);

  r = RunCli({"status", job.execution_id(), "--server", server.address()});
  CHECK(r.out.find("LINK spark-ui   https://spark.example/ns/a\n") != std::string::npos);
}

TEST_CASE("describe prints the status with its waiting reason, then the events") {
  FakeServer server;
  pb::JobInfo job = Job("a", pb::JobInfo::QUEUED);
  job.set_waiting_reason(pb::JobInfo::IMAGE_PULL);
  job.set_waiting_message("Failed to pull image \"x\": no such host");
  server.service().jobs["a"] = job;
  pb::JobEvent* failed = server.service().events["a"].add_events();
  failed->set_object_kind("Pod");
  failed->set_object_name("a-driver");
  failed->set_reason("Failed");
  failed->set_type("Warning");
  failed->set_message("Error: ErrImagePull");
  Result r = RunCli({"describe", "a", "--server", server.address()});
  CHECK(r.code == kExitJobNotFinished);
  CHECK(r.out.find("WAITING         IMAGE_PULL: Failed to pull image \"x\": no such host\n") !=
        std::string::npos);
  const size_t events = r.out.find("\nEVENTS\n");
  REQUIRE(events != std::string::npos);
  CHECK(r.out.find("Error: ErrImagePull", events) != std::string::npos);
  // A job without events says so; one that doesn't exist is NOT_FOUND as with status.
  server.service().jobs["b"] = Job("b", pb::JobInfo::SUCCEEDED);
  r = RunCli({"describe", "b", "--server", server.address()});
  CHECK(r.code == 0);
  CHECK(r.out.find("EVENTS\n<none>\n") != std::string::npos);
  CHECK(RunCli({"describe", "nope", "--server", server.address()}).code == kExitNotFound);
}

TEST_CASE("events prints one row per event, oldest first, with repeats counted") {
  FakeServer server;
  pb::EventsResponse& response = server.service().events["a"];
  pb::JobEvent* scheduled = response.add_events();
  scheduled->set_object_kind("Pod");
  scheduled->set_object_name("a-driver");
  scheduled->set_reason("FailedScheduling");
  scheduled->set_type("Warning");
  scheduled->set_message("0/3 nodes are available:\ninsufficient cpu");
  scheduled->set_count(4);
  scheduled->set_source("default-scheduler");
  scheduled->mutable_last_seen()->set_seconds(1796378400);
  pb::JobEvent* added = response.add_events();
  added->set_object_kind("SparkApplication");
  added->set_object_name("a");
  added->set_reason("SparkApplicationAdded");
  added->set_type("Normal");
  added->set_count(1);
  Result r = RunCli({"events", "a", "--server", server.address()});
  CHECK(r.code == 0);
  CHECK(r.out ==
        "LAST SEEN                  TYPE     REASON                 OBJECT              "
        "SOURCE             MESSAGE\n"
        "2026-12-04T10:00:00Z (x4)  Warning  FailedScheduling       Pod/a-driver        "
        "default-scheduler  0/3 nodes are available: insufficient cpu\n"
        "-                          Normal   SparkApplicationAdded  SparkApplication/a  "
        "-                  -\n");
  CHECK(r.err.empty());
  response.set_truncated(true);
  Result truncated = RunCli({"events", "a", "--server", server.address()});
  CHECK(truncated.err.find("oldest") != std::string::npos);
  Result json = RunCli({"events", "a", "-o", "json", "--server", server.address()});
  CHECK(json.code == 0);
  CHECK(json.out.find("\"reason\": \"FailedScheduling\"") != std::string::npos);
  Result missing = RunCli({"events", "nope", "--server", server.address()});
  CHECK(missing.code == kExitNotFound);
  CHECK(RunCli({"events", "--server", server.address()}).code == 2);
}

pb::JobEvent Event(const std::string& reason, int64_t count, int64_t last_seen,
                   const std::string& message = "") {
  pb::JobEvent e;
  e.set_object_kind("SparkApplication");
  e.set_object_name("a");
  e.set_reason(reason);
  e.set_type("Normal");
  e.set_message(message);
  e.set_count(count);
  e.set_source("spark-operator");
  e.mutable_first_seen()->set_seconds(1796378400);
  e.mutable_last_seen()->set_seconds(last_seen);
  return e;
}

// events -f against a job that runs through three more calls: each wait moves the server's
// answers on, as the operator would between two calls.
struct FollowScenario {
  FakeServer server;
  std::vector<absl::Duration> waits;

  FollowScenario() {
    server.service().jobs["a"] = Job("a", pb::JobInfo::STARTED);
    SetEvents({Event("SparkApplicationAdded", 1, 1796378400)});
  }

  void SetEvents(const std::vector<pb::JobEvent>& events) {
    pb::EventsResponse response;
    for (const auto& e : events) *response.add_events() = e;
    server.service().events["a"] = response;
  }

  Around around() {
    return {RealClock::Get(), {}, [this](absl::Duration d) { Wait(d); }};
  }

  void Wait(absl::Duration d) {
    waits.push_back(d);
    pb::JobEvent added = Event("SparkApplicationAdded", 1, 1796378400);
    pb::JobEvent submitted = Event("SparkApplicationSubmitted", 1, 1796378401, "submitted");
    switch (waits.size()) {
      case 1:  // one new event
        SetEvents({added, submitted});
        break;
      case 2:  // a repeat counted up, one new event with the same reason, and the job stops
        SetEvents({added, Event("SparkApplicationSubmitted", 3, 1796378405, "submitted"),
                   Event("SparkApplicationSubmitted", 1, 1796378406, "submitted again")});
        server.service().jobs["a"] = Job("a", pb::JobInfo::SUCCEEDED);
        break;
      case 3:  // what the stop recorded, landed after the status said so
        SetEvents({added, Event("SparkApplicationSubmitted", 3, 1796378405, "submitted"),
                   Event("SparkApplicationSubmitted", 1, 1796378406, "submitted again"),
                   Event("SparkApplicationCompleted", 1, 1796378410)});
        break;
      default:
        FAIL("waited after the last call");
    }
  }
};

TEST_CASE("events -f prints each event once, a repeat again, until a call after the stop") {
  FollowScenario s;
  Result r = RunCli({"events", "a", "-f", "--server", s.server.address()}, s.around());
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  std::vector<std::string> lines = Lines(r.out);
  REQUIRE(lines.size() == 6);
  CHECK(lines[0].rfind("LAST SEEN", 0) == 0);
  CHECK(lines[1].find("SparkApplicationAdded") != std::string::npos);
  CHECK(lines[2].rfind("2026-12-04T10:00:01Z  ", 0) == 0);
  CHECK(lines[2].find("SparkApplicationSubmitted") != std::string::npos);
  CHECK(lines[3].rfind("2026-12-04T10:00:05Z (x3)  ", 0) == 0);
  CHECK(lines[3].find("  submitted") != std::string::npos);
  CHECK(lines[4].find("submitted again") != std::string::npos);
  CHECK(lines[5].find("SparkApplicationCompleted") != std::string::npos);
  // A later call's rows keep the earlier columns, widened only by a wider cell (the count).
  CHECK(lines[3].find("Normal") > lines[1].find("Normal"));
  CHECK(lines[5].find("Normal") == lines[3].find("Normal"));
  // Status before each Events call but the last; one wait between calls, the default 2s.
  auto rec = s.server.service().recorded();
  CHECK(rec.events.size() == 4);
  CHECK(rec.statuses.size() == 4);
  CHECK(s.waits == std::vector<absl::Duration>(3, absl::Seconds(2)));
  CHECK(rec.had_deadline);  // every call has the usual deadline
}

TEST_CASE("events -f -o json prints one JobEvent per line, at the interval asked for") {
  FollowScenario s;
  Result r = RunCli(
      {"events", "a", "-f", "--interval", "5s", "-o", "json", "--server", s.server.address()},
      s.around());
  CHECK(r.code == 0);
  std::vector<std::string> lines = Lines(r.out);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0].find("\"reason\":\"SparkApplicationAdded\"") != std::string::npos);
  CHECK(lines[2].find("\"count\":\"3\"") != std::string::npos);
  CHECK(lines[4].find("\"reason\":\"SparkApplicationCompleted\"") != std::string::npos);
  CHECK(s.waits == std::vector<absl::Duration>(3, absl::Seconds(5)));
}

TEST_CASE("events -f of a stopped or gone job is one call, and its errors are the usual ones") {
  FollowScenario s;
  auto& svc = s.server.service();
  svc.jobs["a"] = Job("a", pb::JobInfo::FAILED);
  Result stopped = RunCli({"events", "a", "-f", "--server", s.server.address()}, s.around());
  CHECK(stopped.code == 0);
  CHECK(Lines(stopped.out).size() == 2);
  CHECK(s.waits.empty());
  CHECK(svc.recorded().events.size() == 1);
  // The application is gone (Status answers NOT_FOUND); its events still answer.
  svc.jobs.clear();
  Result gone = RunCli({"events", "a", "-f", "--server", s.server.address()}, s.around());
  CHECK(gone.code == 0);
  CHECK(Lines(gone.out).size() == 2);
  CHECK(s.waits.empty());
  Result missing = RunCli({"events", "nope", "-f", "--server", s.server.address()}, s.around());
  CHECK(missing.code == kExitNotFound);
  CHECK(missing.err ==
        "k8s-job-executor: events: NOT_FOUND: no such application\n"
        "k8s-job-executor: hint: no job with the id or name \"nope\" in the server's namespace "
        "(-n picks another)\n");
  svc.required_token = "t";
  Result denied = RunCli({"events", "a", "-f", "--server", s.server.address()}, s.around());
  CHECK(denied.code == kExitAuth);
  CHECK(denied.err.find("events: status: UNAUTHENTICATED") != std::string::npos);
  svc.required_token.clear();

  Result busy = RunCli({"events", "a", "-f", "--interval", "10ms", "--server", s.server.address()},
                       s.around());
  CHECK(busy.code == kExitUsage);
  CHECK(busy.err.find("--interval needs a duration of at least 500ms, got \"10ms\"") !=
        std::string::npos);
  Result alone = RunCli({"events", "a", "--interval", "5s", "--server", s.server.address()});
  CHECK(alone.code == kExitUsage);
  CHECK(alone.err.find("--interval goes with -f") != std::string::npos);
  CHECK(s.waits.empty());
}

TEST_CASE("cancel requests each job and reports the first failure") {
  FakeServer server;
  server.service().jobs["a"] = Job("a", pb::JobInfo::STARTED);
  server.service().jobs["b"] = Job("b", pb::JobInfo::STARTED);
  Result r = RunCli({"cancel", "a", "b", "--server", server.address()});
  CHECK(r.code == 0);
  CHECK(r.out == "cancellation requested: a\ncancellation requested: b\n");
  Result missing = RunCli({"cancel", "a", "zzz", "--server", server.address()});
  CHECK(missing.code == kExitNotFound);
  CHECK(missing.err.find("cancel \"zzz\": NOT_FOUND") != std::string::npos);
  CHECK(server.service().recorded().cancels == std::vector<std::string>{"a", "b", "a"});
}

TEST_CASE("cancel of a job that had already stopped says so, with its status, and exits 0") {
  FakeServer server;
  server.service().jobs["done"] = Job("done", pb::JobInfo::SUCCEEDED);
  server.service().jobs["failed"] = Job("failed", pb::JobInfo::FAILED);
  server.service().jobs["running"] = Job("running", pb::JobInfo::STARTED);
  Result r = RunCli({"cancel", "done", "failed", "running", "--server", server.address()});
  CHECK(r.code == 0);
  CHECK(r.out ==
        "already stopped (SUCCEEDED), nothing cancelled: done\n"
        "already stopped (FAILED), nothing cancelled: failed\n"
        "cancellation requested: running\n");
  CHECK(r.err.empty());
  // Status only for the stopped ones, whose outcome the line names.
  CHECK(server.service().recorded().statuses == std::vector<std::string>{"done", "failed"});
  Result json = RunCli({"cancel", "done", "running", "-o", "json", "--server", server.address()});
  CHECK(json.code == 0);
  CHECK(json.out == "{\"alreadyStopped\":true}\n{\"alreadyStopped\":false}\n");
}

TEST_CASE("cancel --ignore-not-found: a job that doesn't exist is no error, and says so") {
  FakeServer server;
  server.service().jobs["a"] = Job("a", pb::JobInfo::STARTED);
  Result r = RunCli({"cancel", "zzz", "a", "--ignore-not-found", "--server", server.address()});
  CHECK(r.code == 0);
  CHECK(r.out ==
        "not found, nothing cancelled: zzz (no such application)\n"
        "cancellation requested: a\n");
  CHECK(r.err.empty());
  // JSON on stdout is the server's answers alone.
  Result json = RunCli(
      {"cancel", "zzz", "a", "--ignore-not-found", "-o", "json", "--server", server.address()});
  CHECK(json.code == 0);
  CHECK(json.out == "{\"alreadyStopped\":false}\n");
  CHECK(json.err == "not found, nothing cancelled: zzz (no such application)\n");
  // Only NOT_FOUND is let pass.
  server.service().required_token = "secret";
  Result denied = RunCli({"cancel", "a", "--ignore-not-found", "--server", server.address()});
  CHECK(denied.code == kExitAuth);
  CHECK(denied.err.find("cancel \"a\": UNAUTHENTICATED") != std::string::npos);
}

TEST_CASE("logs prints the tail, and -f follows the stream") {
  FakeServer server;
  server.service().output_lines = {"line 1", "Pi is roughly 3.14"};
  Result tail = RunCli({"logs", kId, "--tail", "5", "--server", server.address()});
  CHECK(tail.code == 0);
  CHECK(tail.out == "line 1\nPi is roughly 3.14\n");
  auto rec = server.service().recorded();
  REQUIRE(rec.outputs.size() == 1);
  CHECK(rec.outputs[0].max_lines() == 5);
  CHECK(rec.outputs[0].execution_id() == kId);

  pb::OutputChunk first, second;
  first.add_lines("a");
  first.add_lines("b");
  second.add_lines("c");
  second.set_dropped_lines(3);
  server.service().follow_chunks = {first, second};
  Result follow = RunCli({"logs", kId, "-f", "--server", server.address()});
  CHECK(follow.code == 0);
  CHECK(follow.out == "a\nb\nc\n");
  CHECK(follow.err == "k8s-job-executor: 3 lines dropped (read too slowly)\n");
  rec = server.service().recorded();
  REQUIRE(rec.follows.size() == 1);
  CHECK(rec.follows[0].tail_lines() == 0);
  CHECK_FALSE(rec.had_deadline);  // a stream lasts as long as the job

  Result timed = RunCli({"logs", kId, "-f", "--tail", "7", "--timeout", "1m", "-o", "json",
                         "--server", server.address()});
  CHECK(timed.code == 0);
  CHECK(timed.out ==
        "{\"lines\":[\"a\",\"b\"],\"droppedLines\":\"0\",\"cursor\":\"\"}\n"
        "{\"lines\":[\"c\"],\"droppedLines\":\"3\",\"cursor\":\"\"}\n");
  rec = server.service().recorded();
  CHECK(rec.follows.back().tail_lines() == 7);
  CHECK(rec.had_deadline);

  Result bad = RunCli({"logs", kId, "--tail", "-1", "--server", server.address()});
  CHECK(bad.code == kExitUsage);
  CHECK(bad.err.find("--tail needs a number >= 0, got \"-1\"") != std::string::npos);
}

TEST_CASE("list reads every page and passes the namespace and selector") {
  FakeServer server;
  for (int i = 1; i <= 5; ++i) {
    std::string id = "default/sparkapp/ns/job-" + std::to_string(i);
    server.service().jobs[id] = Job(id, pb::JobInfo::SUCCEEDED, "ResourceReleased");
  }
  Result r = RunCli(
      {"list", "-n", "ns", "-l", "team=data", "--page-size", "2", "--server", server.address()});
  CHECK(r.code == 0);
  auto rec = server.service().recorded();
  REQUIRE(rec.lists.size() == 3);
  for (const auto& req : rec.lists) {
    CHECK(req.namespace_() == "ns");
    CHECK(req.label_selector() == "team=data");
    CHECK(req.page_size() == 2);
  }
  CHECK(rec.lists[0].page_token().empty());
  CHECK(rec.lists[1].page_token() == "2");
  CHECK(rec.lists[2].page_token() == "4");
  for (int i = 1; i <= 5; ++i) {
    CHECK(r.out.find("default/sparkapp/ns/job-" + std::to_string(i) + "  ") != std::string::npos);
  }
  CHECK(r.out.rfind("EXECUTION ID", 0) == 0);

  Result json = RunCli({"list", "-o", "json", "--server", server.address()});
  CHECK(json.code == 0);
  size_t count = 0;
  for (size_t pos = 0; (pos = json.out.find("\"executionId\"", pos)) != std::string::npos; ++pos) {
    ++count;
  }
  CHECK(count == 5);
}

TEST_CASE("watch prints each transition with the elapsed time and exits by the outcome") {
  FakeServer server;
  auto& events = server.service().watch_events;
  events = {Job(kId, pb::JobInfo::QUEUED), Job(kId, pb::JobInfo::STARTED, "DriverRequested"),
            Job(kId, pb::JobInfo::STARTED, "RunningHealthy"),
            Job(kId, pb::JobInfo::STARTED, "RunningHealthy"),  // e.g. only the message changed
            Job(kId, pb::JobInfo::SUCCEEDED, "Succeeded")};
  events[3].set_message("same state, new message");
  SteppingClock clock(absl::Milliseconds(1500));
  Result r = RunCli({"watch", kId, "--server", server.address()}, clock);
  CHECK(r.code == 0);
  CHECK(r.out ==
        "  +1.5s  QUEUED\n"
        "  +3.0s  STARTED     DriverRequested\n"
        "  +4.5s  STARTED     RunningHealthy\n"
        "  +6.0s  SUCCEEDED   Succeeded\n");
  auto rec = server.service().recorded();
  REQUIRE(rec.watches.size() == 1);
  CHECK(rec.watches[0].execution_ids(0) == kId);
  CHECK_FALSE(rec.had_deadline);

  events = {Job(kId, pb::JobInfo::STARTED), Job(kId, pb::JobInfo::FAILED, "Failed")};
  CHECK(RunCli({"watch", kId, "--server", server.address()}).code == kExitJobFailed);
  events = {Job(kId, pb::JobInfo::CANCELLING), Job(kId, pb::JobInfo::CANCELLED)};
  CHECK(RunCli({"watch", kId, "--server", server.address()}).code == kExitJobCancelled);
}

TEST_CASE("watch of several jobs names them and reports the worst outcome") {
  FakeServer server;
  server.service().watch_events = {Job("a", pb::JobInfo::STARTED), Job("b", pb::JobInfo::STARTED),
                                   Job("b", pb::JobInfo::CANCELLED), Job("a", pb::JobInfo::FAILED)};
  SteppingClock clock(absl::Seconds(1));
  Result r = RunCli({"watch", "a", "b", "--server", server.address()}, clock);
  CHECK(r.code == kExitJobFailed);
  CHECK(r.out ==
        "  +1.0s  a  STARTED\n"
        "  +2.0s  b  STARTED\n"
        "  +3.0s  b  CANCELLED\n"
        "  +4.0s  a  FAILED\n");
  Result json = RunCli({"watch", "a", "b", "-o", "json", "--server", server.address()});
  CHECK(json.code == kExitJobFailed);
  CHECK(std::count(json.out.begin(), json.out.end(), '\n') == 4);
  CHECK(RunCli({"watch", "a", "a", "--server", server.address()}).code == kExitUsage);
}

TEST_CASE("watch never claims an outcome the stream didn't deliver") {
  FakeServer server;
  server.service().watch_events = {Job(kId, pb::JobInfo::STARTED)};
  Result early = RunCli({"watch", kId, "--server", server.address()});
  CHECK(early.code == kExitError);
  CHECK(early.err == "k8s-job-executor: watch: the stream ended before every job stopped\n");
  server.service().watch_end = {grpc::StatusCode::UNAVAILABLE, "kubernetes is down"};
  Result down = RunCli({"watch", kId, "--server", server.address()});
  CHECK(down.code == kExitUnavailable);
  CHECK(down.err == "k8s-job-executor: watch: UNAVAILABLE: kubernetes is down\n");
  server.service().watch_end = {grpc::StatusCode::NOT_FOUND, "no such application"};
  server.service().watch_events.clear();
  CHECK(RunCli({"watch", kId, "--server", server.address()}).code == kExitNotFound);
}

TEST_CASE("the token file's content goes out as a bearer token and is never printed") {
  FakeServer server;
  server.service().required_token = "s3cret-token";
  server.service().jobs[kId] = Job(kId, pb::JobInfo::SUCCEEDED);
  std::string good = WriteFile("cli_test_good.token", "s3cret-token\n");
  std::string bad = WriteFile("cli_test_bad.token", "wrong-token");
  Result ok = RunCli({"status", kId, "--token-file", good, "--server", server.address()});
  CHECK(ok.code == 0);
  CHECK(server.service().recorded().authorizations.back() == "Bearer s3cret-token");
  CHECK(ok.err == "k8s-job-executor: warning: sending the bearer token without TLS\n");
  Result denied = RunCli({"status", kId, "--token-file", bad, "--server", server.address()});
  CHECK(denied.code == kExitAuth);
  Result none = RunCli({"status", kId, "--server", server.address()});
  CHECK(none.code == kExitAuth);
  CHECK(none.err.find("UNAUTHENTICATED: missing or invalid bearer token") != std::string::npos);
  for (const Result& r : {ok, denied, none}) {
    CHECK(r.out.find("s3cret") == std::string::npos);
    CHECK(r.err.find("s3cret") == std::string::npos);
    CHECK(r.err.find("wrong-token") == std::string::npos);
  }
  std::string empty = WriteFile("cli_test_empty.token", "\n");
  Result unreadable = RunCli({"status", kId, "--token-file", empty, "--server", server.address()});
  CHECK(unreadable.code == kExitUsage);
  CHECK(unreadable.err.find("--token-file: cli_test_empty.token is empty") != std::string::npos);
  for (const auto& f : {good, bad, empty}) std::remove(f.c_str());
}

TEST_CASE("the server comes from --server, else the environment") {
  FakeServer server;
  server.service().jobs[kId] = Job(kId, pb::JobInfo::SUCCEEDED);
  Result env =
      RunCli({"status", kId}, RealClock::Get(), {{"K8S_JOB_EXECUTOR_SERVER", server.address()}});
  CHECK(env.code == 0);
  // Nothing listens on port 1: the flag wins over the environment, and the call is UNAVAILABLE.
  Result flag = RunCli({"status", kId, "--server", "127.0.0.1:1"}, RealClock::Get(),
                       {{"K8S_JOB_EXECUTOR_SERVER", server.address()}});
  CHECK(flag.code == kExitUnavailable);
  CHECK(flag.err.find("status: UNAVAILABLE: ") != std::string::npos);
}

TEST_CASE("usage errors exit 2 before any call, and --help exits 0") {
  auto usage = [](const std::vector<std::string>& args) {
    Result r = RunCli(args);
    CHECK(r.code == kExitUsage);
    CHECK(r.out.empty());
    return r.err;
  };
  CHECK(usage({"status"}).find("takes exactly one EXECUTION_ID, got 0") != std::string::npos);
  CHECK(usage({"status", "a", "b"}).find("got 2: \"a\" \"b\"") != std::string::npos);
  CHECK(usage({"list", "x"}).find("takes no arguments, got 1: \"x\"") != std::string::npos);
  CHECK(usage({"cancel"}).find("takes at least one EXECUTION_ID") != std::string::npos);
  CHECK(usage({"status", "a", "--bogus"}).find("unknown flag --bogus") != std::string::npos);
  CHECK(usage({"status", "a", "-o", "xml"}).find("-o must be one of table, wide") !=
        std::string::npos);
  CHECK(usage({"status", "a", "--timeout", "soon"}).find("--timeout needs a positive duration") !=
        std::string::npos);
  CHECK(
      usage({"status", "a", "--tls-cert", "c.pem"}).find("--tls-cert and --tls-key go together") !=
      std::string::npos);
  CHECK(usage({"status", "a", "--tls-server-name", "x"}).find("needs TLS") != std::string::npos);
  CHECK(usage({"status", "a", "--tls-ca", "/nonexistent.pem"})
            .find("--tls-ca: can't read /nonexistent.pem") != std::string::npos);
  CHECK(usage({"list", "--page-size", "0"}).find("--page-size needs a number >= 1") !=
        std::string::npos);

  Result help = RunCli({"watch", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.rfind("usage: k8s-job-executor watch EXECUTION_ID...", 0) == 0);
  CHECK(help.out.find("--token-file FILE") != std::string::npos);
  CHECK(help.out.find("  4  the job was CANCELLED") != std::string::npos);
  CHECK(IsCommand("logs"));
  CHECK_FALSE(IsCommand("serve"));
  CHECK(CommandsHelp().find("  submit    submit a job") != std::string::npos);
}

TEST_CASE("usage errors quote an argument bounded, and name at most five of a glob's") {
  const std::string huge = std::string(8999, 'a') + "\x1b";
  std::vector<std::vector<std::string>> calls = {{huge},
                                                 {"list", "--page-size", huge},
                                                 {"status", "a", "-o", huge},
                                                 {"status", "a", "--timeout", huge},
                                                 {"logs", "a", "--tail", huge}};
  std::vector<std::string> glob = {"list"};
  for (int i = 0; i < 3000; ++i) glob.push_back("file-" + std::to_string(i));
  calls.push_back(glob);
  for (const auto& args : calls) {
    Result r = RunCli(args);
    INFO(r.err.substr(0, 200));
    CHECK(r.code == kExitUsage);
    std::string first_line = r.err.substr(0, r.err.find('\n'));
    CHECK(first_line.size() < 1024);
    CHECK_FALSE(HasControlByte(first_line));
  }
  CHECK(RunCli(glob).err.find("\"file-4\" and 2995 more") != std::string::npos);
}

}  // namespace
}  // namespace kje::cli
