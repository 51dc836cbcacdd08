#include "cli/output.h"

#include <catch2/catch.hpp>

namespace kje::cli {
namespace {

using jobexecutor::v1::JobInfo;
using jobexecutor::v1::ScheduleInfo;
using jobexecutor::v1::ScheduleSpec;

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
  JobInfo listed = Info();
  listed.set_spark_application_id("gravitino-job-1-0");
  listed.set_attempts(1);
  listed.set_driver_ui_address("10.96.0.12:4040");
  std::string list = FormatJobList({Info(), listed});
  CHECK(list ==
        "EXECUTION ID                              JOB ID  STATUS   OPERATOR STATE  SPARK APP ID  "
        "     ATTEMPTS  DRIVER UI        STARTED               FINISHED\n"
        "default/sparkapp/default/gravitino-job-1  1       STARTED  RunningHealthy  -             "
        "     0         -                2026-01-01T00:00:00Z  -\n"
        "default/sparkapp/default/gravitino-job-1  1       STARTED  RunningHealthy  "
        "gravitino-job-1-0  1         10.96.0.12:4040  2026-01-01T00:00:00Z  -\n");
  std::string one = FormatJobInfo(Info());
  CHECK(one.find("STATUS          STARTED\n") != std::string::npos);
  CHECK(one.find("DRIVER POD      -\n") != std::string::npos);
  CHECK(one.find("SPARK APP ID    -\nATTEMPTS        0\nDRIVER UI       -\n") != std::string::npos);
  JobInfo detailed = Info();
  detailed.set_spark_application_id("spark-5e1c0a7e");
  detailed.set_attempts(2);
  detailed.set_driver_ui_address("10.96.0.12:4040");
  one = FormatJobInfo(detailed);
  CHECK(one.find("SPARK APP ID    spark-5e1c0a7e\n") != std::string::npos);
  CHECK(one.find("ATTEMPTS        2\n") != std::string::npos);
  CHECK(one.find("DRIVER UI       10.96.0.12:4040\n") != std::string::npos);
  CHECK(one.find("QUEUE") == std::string::npos);
}

TEST_CASE("status shows the queue when the job has one") {
  JobInfo queued = Info();
  queued.set_queue("root.analytics");
  const std::string one = FormatJobInfo(queued);
  CHECK(one.find("DRIVER UI       -\nQUEUE           root.analytics\nMESSAGE") !=
        std::string::npos);
}

TEST_CASE("a growing table prints its header once and never moves a column left") {
  GrowingTable table({"A", "BB"});
  CHECK(table.Format({{"x", "y"}}) == "A  BB\nx  y\n");
  CHECK(table.Format({}).empty());
  // A wider cell widens its column from then on; what was printed stays as it was.
  CHECK(table.Format({{"wide", "z"}}) == "wide  z\n");
  CHECK(table.Format({{"x", "y"}}) == "x     y\n");
}

ScheduleInfo Schedule() {
  ScheduleInfo info;
  info.set_schedule_id("nightly");
  info.set_namespace_("spark-jobs");
  info.set_name("gravitino-job-nightly");
  ScheduleSpec& spec = *info.mutable_spec();
  spec.set_schedule("0 3 * * *");
  spec.set_concurrency_policy(ScheduleSpec::FORBID);
  spec.set_failed_run_history_limit(0);
  info.set_schedule_state("Scheduled");
  info.mutable_last_run()->set_seconds(1767236400);
  info.set_last_run_name("gravitino-job-nightly-1767236400");
  info.mutable_next_run()->set_seconds(1767322800);
  return info;
}

TEST_CASE("a schedule prints its spec with the defaults named, its state, and its runs") {
  ScheduleInfo info = Schedule();
  CHECK(FormatSchedule(info) ==
        "SCHEDULE ID         nightly\n"
        "NAMESPACE           spark-jobs\n"
        "NAME                gravitino-job-nightly\n"
        "SCHEDULE            0 3 * * *\n"
        "TIME ZONE           Local\n"
        "CONCURRENCY         Forbid\n"
        "SUCCESSFUL HISTORY  1 (default)\n"
        "FAILED HISTORY      0\n"
        "SUSPENDED           no\n"
        "STATE               Scheduled\n"
        "REASON              -\n"
        "LAST CRON RUN       2026-01-01T03:00:00Z  gravitino-job-nightly-1767236400\n"
        "NEWEST RUN          -\n"
        "NEXT RUN            2026-01-02T03:00:00Z\n");
  JobInfo run = Info();
  run.set_execution_id("default/sparkapp/spark-jobs/gravitino-job-nightly-1767236400");
  *info.add_runs() = run;
  run.set_execution_id("default/sparkapp/spark-jobs/gravitino-job-nightly-1767150000");
  run.set_status(JobInfo::FAILED);
  run.set_operator_state("FAILED");
  run.mutable_finished_at()->set_seconds(1767225700);
  *info.add_runs() = run;
  info.mutable_spec()->set_time_zone("Europe/Berlin");
  info.mutable_spec()->set_suspend(true);
  info.set_reason("line\nbreak");
  std::string out = FormatSchedule(info);
  CHECK(out.find("TIME ZONE           Europe/Berlin\n") != std::string::npos);
  // The controller computes in the schedule's zone: its times are shown there, with the offset.
  CHECK(out.find(
            "LAST CRON RUN       2026-01-01T04:00:00+01:00  gravitino-job-nightly-1767236400\n") !=
        std::string::npos);
  CHECK(out.find("NEXT RUN            2026-01-02T04:00:00+01:00\n") != std::string::npos);
  // The newest run of either kind, and which kind it is.
  CHECK(out.find("NEWEST RUN          2026-01-01T01:00:00+01:00  gravitino-job-nightly-1767236400  "
                 "(cron)\n") != std::string::npos);
  ScheduleInfo manual = info;
  manual.mutable_runs(0)->set_execution_id("default/sparkapp/spark-jobs/gravitino-job-nightly-r7");
  CHECK(FormatSchedule(manual).find("gravitino-job-nightly-r7  (schedule run)\n") !=
        std::string::npos);
  // A zone this machine doesn't know: UTC, as for the controller's own zone.
  manual.mutable_spec()->set_time_zone("Mars/Olympus");
  CHECK(FormatSchedule(manual).find("NEXT RUN            2026-01-02T03:00:00Z\n") !=
        std::string::npos);
  CHECK(out.find("SUSPENDED           yes\n") != std::string::npos);
  CHECK(out.find("REASON              line break\n") != std::string::npos);
  CHECK(
      out.find(
          "\nRUNS (newest first)\n"
          "RUN                                                           STATUS   OPERATOR STATE  "
          "STARTED               FINISHED\n"
          "default/sparkapp/spark-jobs/gravitino-job-nightly-1767236400  STARTED  RunningHealthy  "
          "2026-01-01T00:00:00Z  -\n"
          "default/sparkapp/spark-jobs/gravitino-job-nightly-1767150000  FAILED   FAILED          "
          "2026-01-01T00:00:00Z  2026-01-01T00:01:40Z\n") != std::string::npos);
}

TEST_CASE("a schedule list has one row per schedule, the cron last") {
  ScheduleInfo fresh;
  fresh.set_schedule_id("new");
  fresh.mutable_spec()->set_schedule("@every 90m");
  fresh.mutable_spec()->set_suspend(true);
  CHECK(FormatScheduleList({Schedule(), fresh}) ==
        "SCHEDULE ID  STATE      SUSPENDED  LAST CRON RUN         NEXT RUN              "
        "CONCURRENCY  TIME ZONE  SCHEDULE\n"
        "nightly      Scheduled  no         2026-01-01T03:00:00Z  2026-01-02T03:00:00Z  "
        "Forbid       Local      0 3 * * *\n"
        "new          -          yes        -                     -                     "
        "-            Local      @every 90m\n");
  CHECK(PolicyName(ScheduleSpec::REPLACE) == "Replace");
  CHECK(PolicyName(ScheduleSpec::ALLOW) == "Allow");
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
