// The verbs of `k8s-job-executor schedule` against the fake server: flags to request fields
// (the update mask above all), output, exit codes.

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/exit_codes.h"
#include "tests/cli/fake_job_executor.h"
#include "tests/cli/run_cli.h"

namespace kje::cli {
namespace {

using testing::FakeServer;
using testing::Job;
using testing::Result;
using testing::RunCli;
using testing::WriteFile;
namespace pb = jobexecutor::v1;

// The job file of a schedule: no jobId, the schedule id comes from the command line.
constexpr char kTemplateFile[] = R"(
metalake: lake
template:
  name: spark-pi
  executable: local:///opt/spark/examples/jars/spark-examples.jar
  arguments: [100]
  spark:
    className: org.apache.spark.examples.SparkPi
)";

std::vector<std::string> Paths(const pb::UpdateScheduleRequest& request) {
  return {request.update_mask().paths().begin(), request.update_mask().paths().end()};
}

pb::ScheduleInfo Stored(const std::string& id, const std::string& cron) {
  pb::ScheduleInfo info;
  info.set_schedule_id(id);
  info.set_namespace_("default");
  info.set_name("gravitino-job-" + id);
  info.mutable_spec()->set_schedule(cron);
  info.mutable_spec()->set_concurrency_policy(pb::ScheduleSpec::ALLOW);
  return info;
}

TEST_CASE("schedule create sends the template, the id and every spec flag") {
  FakeServer server;
  std::string file = WriteFile("schedule_test_template.yaml", kTemplateFile);
  Result r = RunCli({"schedule",
                     "create",
                     "nightly",
                     "-f",
                     file,
                     "--cron",
                     "0 3 * * *",
                     "--time-zone",
                     "Europe/Berlin",
                     "--concurrency-policy",
                     "forbid",
                     "--successful-history",
                     "3",
                     "--failed-history",
                     "0",
                     "--suspended",
                     "-n",
                     "spark-jobs",
                     "--conf",
                     "spark.executor.instances=2",
                     "--server",
                     server.address()});
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  auto rec = server.service().recorded();
  REQUIRE(rec.creates.size() == 1);
  const pb::CreateScheduleRequest& req = rec.creates[0];
  CHECK(req.schedule_id() == "nightly");
  CHECK(req.metalake() == "lake");
  CHECK(req.template_().name() == "spark-pi");
  CHECK(req.template_().arguments(0) == "100");
  CHECK(req.template_().spark().class_name() == "org.apache.spark.examples.SparkPi");
  CHECK(req.template_().spark().configs().at("spark.kubernetes.namespace") == "spark-jobs");
  CHECK(req.template_().spark().configs().at("spark.executor.instances") == "2");
  const pb::ScheduleSpec& spec = req.spec();
  CHECK(spec.schedule() == "0 3 * * *");
  CHECK(spec.time_zone() == "Europe/Berlin");
  CHECK(spec.concurrency_policy() == pb::ScheduleSpec::FORBID);
  CHECK(spec.successful_run_history_limit() == 3);
  // An explicit 0 is sent as set, not left to the operator's default of 1.
  CHECK(spec.has_failed_run_history_limit());
  CHECK(spec.failed_run_history_limit() == 0);
  CHECK(spec.suspend());
  CHECK(rec.had_deadline);
  // The schedule as `get` prints it.
  CHECK(r.out.rfind("SCHEDULE ID         nightly\n", 0) == 0);
  CHECK(r.out.find("NAMESPACE           spark-jobs\n") != std::string::npos);
  CHECK(r.out.find("CONCURRENCY         Forbid\n") != std::string::npos);
  CHECK(r.out.find("FAILED HISTORY      0\n") != std::string::npos);
  CHECK(r.out.find("SUSPENDED           yes\n") != std::string::npos);

  // Without the optional flags: nothing set that wasn't given.
  Result plain = RunCli({"schedule", "create", "hourly", "-f", file, "--cron", "@hourly",
                         "--server", server.address()});
  CHECK(plain.code == 0);
  rec = server.service().recorded();
  REQUIRE(rec.creates.size() == 2);
  const pb::ScheduleSpec& bare = rec.creates[1].spec();
  CHECK(bare.concurrency_policy() == pb::ScheduleSpec::CONCURRENCY_POLICY_UNSPECIFIED);
  CHECK_FALSE(bare.has_successful_run_history_limit());
  CHECK_FALSE(bare.has_failed_run_history_limit());
  CHECK_FALSE(bare.suspend());
  CHECK(bare.time_zone().empty());
  CHECK(plain.out.find("SUCCESSFUL HISTORY  1 (default)\n") != std::string::npos);
  std::remove(file.c_str());
}

TEST_CASE("schedule create takes the id from the job file's jobId, and -o json") {
  FakeServer server;
  std::string file =
      WriteFile("schedule_test_job.yaml", std::string("jobId: fromfile\n") + kTemplateFile);
  Result r = RunCli({"schedule", "create", "-f", file, "--cron", "@daily", "-o", "json", "--server",
                     server.address()});
  std::remove(file.c_str());
  CHECK(r.code == 0);
  auto rec = server.service().recorded();
  REQUIRE(rec.creates.size() == 1);
  CHECK(rec.creates[0].schedule_id() == "fromfile");
  CHECK(r.out.find("\"scheduleId\": \"fromfile\"") != std::string::npos);
  CHECK(r.out.find("\"adopted\": false") != std::string::npos);
}

TEST_CASE("schedule create of an existing id adopts the same spec, and refuses another") {
  FakeServer server;
  server.service().schedules["nightly"] = Stored("nightly", "0 3 * * *");
  std::vector<std::string> args = {
      "schedule", "create",       "nightly",          "--metalake", "lake",           "--name",
      "pi",       "--executable", "local:///app.jar", "--server",   server.address(), "--cron"};
  args.push_back("0 3 * * *");
  Result same = RunCli(args);
  CHECK(same.code == 0);
  CHECK(same.err == "schedule nightly already existed; adopted it\n");
  args.back() = "0 4 * * *";
  Result other = RunCli(args);
  // A conflict, as kubectl create of an existing object is: exit 1, saying what to do.
  CHECK(other.code == kExitError);
  CHECK(other.out.empty());
  CHECK(other.err.find("ALREADY_EXISTS") != std::string::npos);
  CHECK(other.err.find("differs in schedule") != std::string::npos);
  CHECK(other.err.find("run again with --adopt") != std::string::npos);
  CHECK(other.err.find("`k8s-job-executor schedule update nightly`") != std::string::npos);
  CHECK(server.service().recorded().updates.empty());
  CHECK(server.service().schedules["nightly"].spec().schedule() == "0 3 * * *");
}

TEST_CASE("schedule create --adopt gives an existing schedule the spec, saying what changed") {
  FakeServer server;
  std::string file = WriteFile("schedule_test_adopt.yaml", kTemplateFile);
  auto create = [&](std::vector<std::string> more) {
    std::vector<std::string> args = {"schedule", "create",   "nightly",       "-f",
                                     file,       "--server", server.address()};
    args.insert(args.end(), more.begin(), more.end());
    return RunCli(args);
  };
  REQUIRE(create({"--cron", "0 3 * * *", "--time-zone", "UTC", "--successful-history", "5"}).code ==
          0);

  SECTION("another spec: updated, exactly the fields that differ") {
    Result r = create({"--cron", "0 4 * * *", "--concurrency-policy", "Forbid", "--adopt"});
    CHECK(r.code == 0);
    auto rec = server.service().recorded();
    REQUIRE(rec.updates.size() == 1);
    const pb::UpdateScheduleRequest& update = rec.updates[0];
    CHECK(update.schedule_id() == "nightly");
    CHECK(Paths(update) == std::vector<std::string>{"schedule", "time_zone", "concurrency_policy",
                                                    "successful_run_history_limit"});
    // Unset in the create means the server's default, sent as a value.
    CHECK(update.spec().successful_run_history_limit() == 1);
    const pb::ScheduleSpec& now = server.service().schedules["nightly"].spec();
    CHECK(now.schedule() == "0 4 * * *");
    CHECK(now.time_zone().empty());
    CHECK(now.concurrency_policy() == pb::ScheduleSpec::FORBID);
    CHECK(now.successful_run_history_limit() == 1);
    CHECK(r.out.find("SCHEDULE            0 4 * * *\n") != std::string::npos);
    CHECK(r.err ==
          "schedule nightly already existed; adopted it, changing schedule \"0 3 * * *\" -> "
          "\"0 4 * * *\", time_zone \"UTC\" -> Local, concurrency_policy Allow -> Forbid, "
          "successful_run_history_limit 5 -> 1\n");
  }
  SECTION("the same spec: nothing to change") {
    Result r = create(
        {"--cron", "0 3 * * *", "--time-zone", "UTC", "--successful-history", "5", "--adopt"});
    CHECK(r.code == 0);
    CHECK(server.service().recorded().updates.empty());
    CHECK(r.err == "schedule nightly already existed; adopted it\n");
  }
  SECTION("another template: refused, nothing changed") {
    Result r = create({"--cron", "0 4 * * *", "--class", "org.example.Other", "--adopt"});
    CHECK(r.code == kExitError);
    CHECK(r.err.find("ALREADY_EXISTS") != std::string::npos);
    CHECK(r.err.find("differs in template") != std::string::npos);
    CHECK(r.err.find("--adopt changes a schedule's spec only") != std::string::npos);
    CHECK(server.service().recorded().updates.empty());
    CHECK(server.service().schedules["nightly"].spec().schedule() == "0 3 * * *");
  }
  SECTION("-o json: the schedule as it is now") {
    Result r = create({"--cron", "0 5 * * *", "--adopt", "-o", "json"});
    CHECK(r.code == 0);
    CHECK(r.out.find("\"schedule\": \"0 5 * * *\"") != std::string::npos);
    CHECK(r.out.find("\"adopted\": true") != std::string::npos);
  }
  std::remove(file.c_str());
}

TEST_CASE("schedule create refuses incomplete or malformed input before sending anything") {
  FakeServer server;
  std::string file = WriteFile("schedule_test_usage.yaml", kTemplateFile);
  auto usage = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--server", server.address()});
    Result r = RunCli(args);
    CHECK(r.code == kExitUsage);
    CHECK(r.out.empty());
    return r.err;
  };
  CHECK(usage({"schedule", "create", "s", "-f", file}).find("--cron is required") !=
        std::string::npos);
  CHECK(usage({"schedule", "create", "-f", file, "--cron", "@daily"})
            .find("give a SCHEDULE_ID, or a jobId in the job file") != std::string::npos);
  CHECK(usage({"schedule", "create", "s", "--cron", "@daily", "--metalake", "m", "--name", "n"})
            .find("template.executable: is required") != std::string::npos);
  CHECK(usage({"schedule", "create", "s", "-f", file, "--cron", "@daily", "--concurrency-policy",
               "sometimes"})
            .find("--concurrency-policy must be Allow, Forbid or Replace, got \"sometimes\"") !=
        std::string::npos);
  CHECK(usage({"schedule", "create", "s", "-f", file, "--cron", "@daily", "--failed-history", "-1"})
            .find("--failed-history needs a number >= 0, got \"-1\"") != std::string::npos);
  CHECK(usage({"schedule", "create", "a", "b", "-f", file, "--cron", "@daily"})
            .find("takes at most one SCHEDULE_ID, got 2") != std::string::npos);
  CHECK(usage({"schedule", "create", "s", "-f", "/nonexistent.yaml", "--cron", "@daily"})
            .find("/nonexistent.yaml: can't read the job file") != std::string::npos);
  std::remove(file.c_str());
  CHECK(server.service().recorded().creates.empty());
}

TEST_CASE("schedule get prints the schedule and its runs; a missing one is NOT_FOUND") {
  FakeServer server;
  pb::ScheduleInfo info = Stored("nightly", "0 3 * * *");
  info.set_schedule_state("Scheduled");
  info.mutable_next_run()->set_seconds(1767322800);
  *info.add_runs() =
      Job("default/sparkapp/default/gravitino-job-nightly-1767236400", pb::JobInfo::STARTED);
  *info.add_runs() =
      Job("default/sparkapp/default/gravitino-job-nightly-1767150000", pb::JobInfo::SUCCEEDED);
  server.service().schedules["nightly"] = info;
  Result r =
      RunCli({"schedule", "get", "nightly", "-n", "spark-jobs", "--server", server.address()});
  CHECK(r.code == 0);
  auto rec = server.service().recorded();
  REQUIRE(rec.gets.size() == 1);
  CHECK(rec.gets[0].schedule_id() == "nightly");
  CHECK(rec.gets[0].namespace_() == "spark-jobs");
  CHECK(r.out.find("STATE               Scheduled\n") != std::string::npos);
  CHECK(r.out.find("NEXT RUN            2026-01-02T03:00:00Z\n") != std::string::npos);
  CHECK(r.out.find("RUNS (newest first)\n") != std::string::npos);
  CHECK(r.out.find("default/sparkapp/default/gravitino-job-nightly-1767236400  STARTED") !=
        std::string::npos);
  CHECK(r.out.find("default/sparkapp/default/gravitino-job-nightly-1767150000  SUCCEEDED") !=
        std::string::npos);

  Result json = RunCli({"schedule", "get", "nightly", "-o", "json", "--server", server.address()});
  CHECK(json.code == 0);
  CHECK(json.out.find("\"scheduleState\": \"Scheduled\"") != std::string::npos);
  CHECK(json.out.find("\"concurrencyPolicy\": \"ALLOW\"") != std::string::npos);
  CHECK(server.service().recorded().gets.back().namespace_().empty());  // the server's

  Result missing = RunCli({"schedule", "get", "nope", "--server", server.address()});
  CHECK(missing.code == kExitNotFound);
  CHECK(missing.err == "k8s-job-executor: schedule get: NOT_FOUND: no such schedule\n");
}

TEST_CASE("schedule list reads every page with the namespace and selector") {
  FakeServer server;
  for (int i = 1; i <= 5; ++i) {
    std::string id = "s" + std::to_string(i);
    server.service().schedules[id] = Stored(id, "@every " + std::to_string(i) + "h");
  }
  Result r = RunCli({"schedule", "list", "-n", "ns", "-l", "team=data", "--page-size", "2",
                     "--server", server.address()});
  CHECK(r.code == 0);
  auto rec = server.service().recorded();
  REQUIRE(rec.schedule_lists.size() == 3);
  for (const auto& req : rec.schedule_lists) {
    CHECK(req.namespace_() == "ns");
    CHECK(req.label_selector() == "team=data");
    CHECK(req.page_size() == 2);
  }
  CHECK(rec.schedule_lists[0].page_token().empty());
  CHECK(rec.schedule_lists[1].page_token() == "2");
  CHECK(rec.schedule_lists[2].page_token() == "4");
  CHECK(r.out.rfind("SCHEDULE ID  STATE", 0) == 0);
  for (int i = 1; i <= 5; ++i) {
    CHECK(r.out.find("\ns" + std::to_string(i) + "  ") != std::string::npos);
    CHECK(r.out.find("@every " + std::to_string(i) + "h\n") != std::string::npos);
  }
  Result json = RunCli({"schedule", "list", "-o", "json", "--server", server.address()});
  CHECK(json.code == 0);
  size_t count = 0;
  for (size_t pos = 0; (pos = json.out.find("\"scheduleId\"", pos)) != std::string::npos; ++pos) {
    ++count;
  }
  CHECK(count == 5);
  CHECK(json.out.find("\"nextPageToken\": \"\"") != std::string::npos);
  Result bad = RunCli({"schedule", "list", "--page-size", "0", "--server", server.address()});
  CHECK(bad.code == kExitUsage);
}

TEST_CASE("schedule update's mask names exactly the fields given") {
  FakeServer server;
  server.service().schedules["nightly"] = Stored("nightly", "0 3 * * *");
  auto update = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"schedule", "update", "nightly"});
    args.insert(args.end(), {"--server", server.address()});
    Result r = RunCli(args);
    CHECK(r.code == 0);
    return server.service().recorded().updates.back();
  };
  pb::UpdateScheduleRequest cron = update({"--cron", "0 4 * * *"});
  CHECK(Paths(cron) == std::vector<std::string>{"schedule"});
  CHECK(cron.spec().schedule() == "0 4 * * *");
  CHECK(cron.schedule_id() == "nightly");
  CHECK(cron.namespace_().empty());

  pb::UpdateScheduleRequest all =
      update({"-n", "spark-jobs", "--suspended", "--failed-history", "2", "--successful-history",
              "0", "--concurrency-policy", "Replace", "--time-zone", "UTC", "--cron", "@daily"});
  CHECK(Paths(all) == std::vector<std::string>{"schedule", "time_zone", "concurrency_policy",
                                               "successful_run_history_limit",
                                               "failed_run_history_limit", "suspend"});
  CHECK(all.namespace_() == "spark-jobs");
  CHECK(all.spec().schedule() == "@daily");
  CHECK(all.spec().time_zone() == "UTC");
  CHECK(all.spec().concurrency_policy() == pb::ScheduleSpec::REPLACE);
  CHECK(all.spec().successful_run_history_limit() == 0);
  CHECK(all.spec().failed_run_history_limit() == 2);
  CHECK(all.spec().suspend());

  // An empty zone is a value (Local), so the path is sent.
  pb::UpdateScheduleRequest zone = update({"--time-zone="});
  CHECK(Paths(zone) == std::vector<std::string>{"time_zone"});
  CHECK(zone.spec().time_zone().empty());

  Result shown = RunCli(
      {"schedule", "update", "nightly", "--successful-history", "7", "--server", server.address()});
  CHECK(shown.out.find("SUCCESSFUL HISTORY  7\n") != std::string::npos);
  CHECK(shown.out.find("TIME ZONE           Local\n") != std::string::npos);

  size_t sent = server.service().recorded().updates.size();
  Result nothing = RunCli({"schedule", "update", "nightly", "--server", server.address()});
  CHECK(nothing.code == kExitUsage);
  CHECK(nothing.err.find("nothing to change") != std::string::npos);
  Result bad = RunCli(
      {"schedule", "update", "nightly", "--failed-history", "x", "--server", server.address()});
  CHECK(bad.code == kExitUsage);
  CHECK(server.service().recorded().updates.size() == sent);
  Result missing =
      RunCli({"schedule", "update", "nope", "--cron", "@daily", "--server", server.address()});
  CHECK(missing.code == kExitNotFound);
}

TEST_CASE("schedule suspend and resume update only suspend") {
  FakeServer server;
  server.service().schedules["nightly"] = Stored("nightly", "0 3 * * *");
  Result suspended =
      RunCli({"schedule", "suspend", "nightly", "-n", "ns", "--server", server.address()});
  CHECK(suspended.code == 0);
  CHECK(suspended.out == "suspended: nightly\n");
  auto rec = server.service().recorded();
  REQUIRE(rec.updates.size() == 1);
  CHECK(Paths(rec.updates[0]) == std::vector<std::string>{"suspend"});
  CHECK(rec.updates[0].spec().suspend());
  CHECK(rec.updates[0].namespace_() == "ns");
  CHECK(server.service().schedules["nightly"].spec().suspend());

  Result resumed = RunCli({"schedule", "resume", "nightly", "--server", server.address()});
  CHECK(resumed.code == 0);
  CHECK(resumed.out == "resumed: nightly\n");
  rec = server.service().recorded();
  REQUIRE(rec.updates.size() == 2);
  CHECK(Paths(rec.updates[1]) == std::vector<std::string>{"suspend"});
  CHECK_FALSE(rec.updates[1].spec().suspend());
  CHECK_FALSE(server.service().schedules["nightly"].spec().suspend());

  Result json =
      RunCli({"schedule", "suspend", "nightly", "-o", "json", "--server", server.address()});
  CHECK(json.out.find("\"suspend\": true") != std::string::npos);
  CHECK(RunCli({"schedule", "resume", "--server", server.address()}).code == kExitUsage);
}

TEST_CASE("schedule run sends the run id, or makes one from the time and prints it") {
  FakeServer server;
  server.service().schedules["nightly"] = Stored("nightly", "0 3 * * *");
  Result r = RunCli({"schedule", "run", "nightly", "--run-id", "a1", "--server", server.address()});
  CHECK(r.code == 0);
  CHECK(r.out == "default/sparkapp/default/gravitino-job-nightly-ra1\n");
  CHECK(r.err.empty());
  Result again =
      RunCli({"schedule", "run", "nightly", "--run-id", "a1", "--server", server.address()});
  CHECK(again.code == 0);
  CHECK(again.out == r.out);
  CHECK(again.err == "run a1 of schedule nightly already existed; adopted it\n");

  FakeClock clock(absl::FromUnixMillis(1767225600123));  // 2026-01-01T00:00:00.123Z
  Result made =
      RunCli({"schedule", "run", "nightly", "-n", "ns", "--server", server.address()}, clock);
  CHECK(made.code == 0);
  CHECK(made.out == "default/sparkapp/default/gravitino-job-nightly-r20260101000000123\n");
  CHECK(made.err ==
        "run id 20260101000000123 (to retry without starting a second run: --run-id "
        "20260101000000123)\n");
  auto rec = server.service().recorded();
  REQUIRE(rec.runs.size() == 3);
  CHECK(rec.runs[2].run_id() == "20260101000000123");
  CHECK(rec.runs[2].namespace_() == "ns");
  CHECK(rec.runs[2].schedule_id() == "nightly");
  // A millisecond later is another run.
  clock.Advance(absl::Milliseconds(1));
  Result next = RunCli({"schedule", "run", "nightly", "--server", server.address()}, clock);
  CHECK(next.out == "default/sparkapp/default/gravitino-job-nightly-r20260101000000124\n");

  Result json = RunCli(
      {"schedule", "run", "nightly", "--run-id", "b2", "-o", "json", "--server", server.address()});
  CHECK(json.out.find("\"executionId\": \"default/sparkapp/default/gravitino-job-nightly-rb2\"") !=
        std::string::npos);
  Result missing =
      RunCli({"schedule", "run", "nope", "--run-id", "a", "--server", server.address()});
  CHECK(missing.code == kExitNotFound);
}

TEST_CASE("schedule delete sends keep-runs and says what it did") {
  FakeServer server;
  server.service().schedules["a"] = Stored("a", "@daily");
  server.service().schedules["b"] = Stored("b", "@daily");
  Result r = RunCli({"schedule", "delete", "a", "--server", server.address()});
  CHECK(r.code == 0);
  CHECK(r.out == "deleted: a\n");
  Result kept = RunCli({"schedule", "delete", "b", "--keep-runs", "-n", "ns", "-o", "json",
                        "--server", server.address()});
  CHECK(kept.code == 0);
  CHECK(kept.out == "{\n \"existed\": true\n}\n");
  server.service().schedules["b"] = Stored("b", "@daily");
  Result table = RunCli({"schedule", "delete", "b", "--keep-runs", "--server", server.address()});
  CHECK(table.out == "deleted: b (its runs kept)\n");
  auto rec = server.service().recorded();
  REQUIRE(rec.deletes.size() == 3);
  CHECK_FALSE(rec.deletes[0].keep_runs());
  CHECK(rec.deletes[1].keep_runs());
  CHECK(rec.deletes[1].namespace_() == "ns");
  CHECK(rec.deletes[1].schedule_id() == "b");
  CHECK(server.service().schedules.empty());
}

TEST_CASE("schedule delete of a schedule that doesn't exist exits 6 unless --ignore-not-found") {
  FakeServer server;
  server.service().schedules["nightly"] = Stored("nightly", "@daily");
  Result typo = RunCli({"schedule", "delete", "nigthly", "--server", server.address()});
  CHECK(typo.code == kExitNotFound);
  CHECK(typo.out.empty());
  CHECK(typo.err ==
        "k8s-job-executor: schedule delete: NOT_FOUND: no schedule \"nigthly\" in the server's "
        "namespace; nothing was deleted\n"
        "k8s-job-executor: `schedule list` shows the schedules there; with --ignore-not-found a "
        "missing one is no error\n");
  Result json = RunCli({"schedule", "delete", "nigthly", "-n", "spark-jobs", "-o", "json",
                        "--server", server.address()});
  CHECK(json.code == kExitNotFound);
  CHECK(json.out.empty());
  CHECK(json.err.find("NOT_FOUND: no schedule \"nigthly\" in namespace \"spark-jobs\"; nothing "
                      "was deleted\n") != std::string::npos);
  CHECK(server.service().schedules.count("nightly") == 1);

  Result ignored =
      RunCli({"schedule", "delete", "nigthly", "--ignore-not-found", "--server", server.address()});
  CHECK(ignored.code == 0);
  CHECK(ignored.out == "not found, nothing deleted: nigthly\n");
  CHECK(ignored.err.empty());
  Result ignored_json = RunCli({"schedule", "delete", "nigthly", "--ignore-not-found", "-o", "json",
                                "--server", server.address()});
  CHECK(ignored_json.code == 0);
  CHECK(ignored_json.out == "{\n \"existed\": false\n}\n");
  Result there =
      RunCli({"schedule", "delete", "nightly", "--ignore-not-found", "--server", server.address()});
  CHECK(there.code == 0);
  CHECK(there.out == "deleted: nightly\n");
  CHECK(server.service().schedules.empty());
}

TEST_CASE("schedule delete against a server older than `existed` reports what it always did") {
  FakeServer server;
  server.service().delete_says_existed = false;
  Result r = RunCli({"schedule", "delete", "gone", "--server", server.address()});
  CHECK(r.code == 0);
  CHECK(r.out == "deleted: gone\n");
  Result json = RunCli({"schedule", "delete", "gone", "-o", "json", "--server", server.address()});
  CHECK(json.code == 0);
  CHECK(json.out == "{}\n");
}

TEST_CASE("a server without schedules: every verb exits 1 with its message and a hint") {
  FakeServer server;
  server.service().schedules["a"] = Stored("a", "@daily");
  server.service().schedule_status = {
      grpc::StatusCode::FAILED_PRECONDITION,
      "schedules need kubeflow/spark-operator (its ScheduledSparkApplication); this server runs "
      "spark.apache.org/v1 (the `operator` setting)"};
  std::string file = WriteFile("schedule_test_apache.yaml", kTemplateFile);
  std::vector<std::vector<std::string>> calls = {
      {"schedule", "create", "a", "-f", file, "--cron", "@daily"},
      {"schedule", "get", "a"},
      {"schedule", "list"},
      {"schedule", "update", "a", "--cron", "@hourly"},
      {"schedule", "suspend", "a"},
      {"schedule", "resume", "a"},
      {"schedule", "run", "a", "--run-id", "x"},
      {"schedule", "delete", "a"}};
  for (auto args : calls) {
    std::string verb = args[1];
    args.insert(args.end(), {"--server", server.address()});
    Result r = RunCli(args);
    INFO(verb << ": " << r.err);
    CHECK(r.code == kExitError);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("k8s-job-executor: schedule " + verb +
                          ": FAILED_PRECONDITION: schedules need kubeflow/spark-operator",
                      0) == 0);
    CHECK(r.err.find("\nk8s-job-executor: schedules need a server whose `operator` setting is "
                     "kubeflow; this one runs jobs (submit) only\n") != std::string::npos);
  }
  std::remove(file.c_str());
  // Another FAILED_PRECONDITION (the API server refused the service's token) gets no such hint.
  server.service().schedule_status = {grpc::StatusCode::FAILED_PRECONDITION,
                                      "the API server refused the service's credentials"};
  Result other = RunCli({"schedule", "get", "a", "--server", server.address()});
  CHECK(other.code == kExitError);
  CHECK(other.err.find("operator") == std::string::npos);
  server.service().schedule_status = {grpc::StatusCode::PERMISSION_DENIED, "namespace x"};
  CHECK(RunCli({"schedule", "list", "--server", server.address()}).code == kExitAuth);
  CHECK(RunCli({"schedule", "get", "a", "--server", "127.0.0.1:1", "--timeout", "5s"}).code ==
        kExitUnavailable);
}

TEST_CASE("schedule alone, an unknown verb and --help") {
  Result alone = RunCli({"schedule"});
  CHECK(alone.code == kExitUsage);
  CHECK(alone.out.empty());
  CHECK(alone.err.rfind("usage: k8s-job-executor schedule <verb>", 0) == 0);
  for (const char* verb :
       {"create", "get", "list", "update", "suspend", "resume", "run", "delete"}) {
    CHECK(alone.err.find(std::string("\n  ") + verb + " ") != std::string::npos);
  }
  Result help = RunCli({"schedule", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out == alone.err);
  Result bogus = RunCli({"schedule", "bogus"});
  CHECK(bogus.code == kExitUsage);
  CHECK(bogus.err.find("k8s-job-executor schedule: no verb \"bogus\"") != std::string::npos);
  Result verb_help = RunCli({"schedule", "update", "--help"});
  CHECK(verb_help.code == 0);
  CHECK(verb_help.out.rfind("usage: k8s-job-executor schedule update SCHEDULE_ID", 0) == 0);
  CHECK(verb_help.out.find("--concurrency-policy POLICY") != std::string::npos);
  CHECK(verb_help.out.find("  6  NOT_FOUND") != std::string::npos);
  Result get = RunCli({"schedule", "get"});
  CHECK(get.code == kExitUsage);
  CHECK(get.err.find("k8s-job-executor schedule get: takes exactly one SCHEDULE_ID, got 0") !=
        std::string::npos);
  CHECK(get.err.find("run `k8s-job-executor schedule get --help` for usage") != std::string::npos);
  CHECK(RunCli({"schedule", "list", "x"}).err.find("takes no arguments") != std::string::npos);
  CHECK(IsCommand("schedule"));
  CHECK_FALSE(IsCommand("schedule create"));
  CHECK(RunCli({"schedule create", "x"}).code == kExitUsage);
  CHECK(CommandsHelp().find("\n  schedule  create, get, list") != std::string::npos);
}

}  // namespace
}  // namespace kje::cli
