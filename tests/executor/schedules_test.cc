#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "k8s/errors.h"
#include "spark/kubeflow/backend.h"
#include "tests/executor/executor_fixture.h"
#include "tests/fakes/fake_kube_client.h"

namespace kje::executor {
namespace {

constexpr char kSchedule[] = "gravitino-job-nightly";

std::string ScheduleJson(const std::string& state, const std::string& reason = "",
                         bool deleting = false, bool suspended = false) {
  return absl::StrCat(
      R"({"apiVersion":"sparkoperator.k8s.io/v1beta2","kind":"ScheduledSparkApplication",)",
      R"("metadata":{"name":"gravitino-job-nightly","namespace":"jobs","uid":"u-1",)",
      deleting ? R"("deletionTimestamp":"2026-12-05T13:00:00Z","finalizers":["orphan"],)" : "",
      R"("resourceVersion":"3","labels":{"app.kubernetes.io/managed-by":"gravitino",)",
      R"("gravitino.apache.org/job-id":"nightly"}},)",
      R"("spec":{"schedule":"@hourly","concurrencyPolicy":"Allow","template":{},)", R"("suspend":)",
      suspended ? "true" : "false", "},", R"("status":{"scheduleState":")", state,
      R"(","reason":")", reason, R"(","nextRun":"2026-12-05T14:00:00Z"}})");
}

// A run of the schedule, created `second` seconds into the hour.
std::string RunJson(int second) {
  return absl::StrCat(
      R"({"apiVersion":"sparkoperator.k8s.io/v1beta2","kind":"SparkApplication","metadata":{)",
      R"("name":"gravitino-job-nightly-)", 1000 + second, R"(","namespace":"jobs","uid":"r-)",
      second, R"(","resourceVersion":"9","creationTimestamp":"2026-12-05T13:)", second / 60 + 10,
      ":", absl::StrFormat("%02d", second % 60), R"(Z","labels":{)",
      R"("sparkoperator.k8s.io/scheduled-app-name":"gravitino-job-nightly",)",
      R"("gravitino.apache.org/job-id":"nightly"}},"spec":{},)",
      R"("status":{"applicationState":{"state":"COMPLETED"}}})");
}

absl::Time Later() { return absl::Now() + absl::Seconds(30); }

TEST_CASE("GetSchedule reads every page of runs and shows the newest 100", "[schedules]") {
  Fixture f(/*cache_on=*/false, {}, 1024, spark::kubeflow::NewBackend());
  Result<ScheduleResult> got;
  f.executor->GetSchedule(kNs, "nightly", Later(), got.Callback());
  f.client->Complete(f.Next("get"), ScheduleJson("Scheduled"));
  // Three pages in name order, oldest first, as the API server pages them: 150 runs.
  std::vector<std::string> continues;
  for (int page = 0; page < 3; ++page) {
    auto list = f.Next("list");
    continues.push_back(list->list.continue_token);
    CHECK(list->list.label_selector ==
          absl::StrCat("sparkoperator.k8s.io/scheduled-app-name=", kSchedule));
    k8s::ListPage answer;
    for (int i = 0; i < 50; ++i) {
      answer.items.push_back(*k8s::ParsedJson::Parse(RunJson(page * 50 + i)));
    }
    answer.continue_token = page < 2 ? absl::StrCat("next-", page) : "";
    f.client->CompleteList(list, answer);
  }
  CHECK(continues == std::vector<std::string>{"", "next-0", "next-1"});
  const absl::StatusOr<ScheduleResult>& result = got.Get();
  REQUIRE(result.ok());
  REQUIRE(result->runs.size() == 100);
  CHECK(result->more_runs);
  CHECK(result->runs.front().name == "gravitino-job-nightly-1149");  // the newest
  CHECK(result->runs.back().name == "gravitino-job-nightly-1050");
}

TEST_CASE("GetSchedule with few runs shows them all", "[schedules]") {
  Fixture f(/*cache_on=*/false, {}, 1024, spark::kubeflow::NewBackend());
  Result<ScheduleResult> got;
  f.executor->GetSchedule(kNs, "nightly", Later(), got.Callback());
  f.client->Complete(f.Next("get"), ScheduleJson("Scheduled"));
  k8s::ListPage answer;
  answer.items = testing::Items({RunJson(1), RunJson(2)});
  f.client->CompleteList(f.Next("list"), answer);
  const absl::StatusOr<ScheduleResult>& result = got.Get();
  REQUIRE(result.ok());
  REQUIRE(result->runs.size() == 2);
  CHECK_FALSE(result->more_runs);
  CHECK(result->runs.front().name == "gravitino-job-nightly-1002");
}

spark::ScheduleUpdate NewCron() {
  spark::ScheduleUpdate update;
  update.cron = "*/5 * * * *";
  return update;
}

TEST_CASE("UpdateSchedule of the cron clears nextRun for the controller", "[schedules]") {
  Fixture f(/*cache_on=*/false, {}, 1024, spark::kubeflow::NewBackend());
  Result<ScheduleResult> updated;
  f.executor->UpdateSchedule(kNs, "nightly", NewCron(), Later(), updated.Callback());
  f.client->Complete(f.Next("get"), ScheduleJson("Scheduled"));
  auto patch = f.Next("patch");
  CHECK(patch->ref.subresource.empty());
  CHECK(patch->body == R"({"spec":{"schedule":"*/5 * * * *"}})");
  f.client->Complete(patch, ScheduleJson("Scheduled"));
  auto status = f.Next("patch");
  CHECK(status->ref.subresource == "status");
  CHECK(status->body == R"({"status":{"nextRun":null}})");
  f.client->Complete(status, ScheduleJson("Scheduled"));
  REQUIRE(updated.Get().ok());
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("A resume that moves the cron resumes last, once the next run is moved", "[schedules]") {
  // Resumed first, the controller would fire the next run the old cron computed at once.
  Fixture f(/*cache_on=*/false, {}, 1024, spark::kubeflow::NewBackend());
  Result<ScheduleResult> updated;
  spark::ScheduleUpdate update = NewCron();
  update.suspended = false;
  f.executor->UpdateSchedule(kNs, "nightly", update, Later(), updated.Callback());
  f.client->Complete(f.Next("get"), ScheduleJson("Scheduled", "", false, /*suspended=*/true));
  auto spec = f.Next("patch");
  CHECK(spec->ref.subresource.empty());
  CHECK(spec->body == R"({"spec":{"schedule":"*/5 * * * *"}})");  // still suspended
  f.client->Complete(spec, ScheduleJson("Scheduled", "", false, true));
  auto status = f.Next("patch");
  CHECK(status->ref.subresource == "status");
  CHECK(status->body == R"({"status":{"nextRun":null}})");
  f.client->Complete(status, ScheduleJson("Scheduled", "", false, true));
  auto resume = f.Next("patch");
  CHECK(resume->ref.subresource.empty());
  CHECK(resume->body == R"({"spec":{"suspend":false}})");
  f.client->Complete(resume, ScheduleJson("Scheduled"));
  REQUIRE(updated.Get().ok());
  CHECK_FALSE(updated.Get()->schedule.spec.suspended);
  CHECK_FALSE(f.client->HasPendingCall());

  // A resume alone keeps the next run (one overdue run, as the controller does), in one write.
  Result<ScheduleResult> resumed;
  spark::ScheduleUpdate only_resume;
  only_resume.suspended = false;
  f.executor->UpdateSchedule(kNs, "nightly", only_resume, Later(), resumed.Callback());
  f.client->Complete(f.Next("get"), ScheduleJson("Scheduled", "", false, true));
  auto one = f.Next("patch");
  CHECK(one->body == R"({"spec":{"suspend":false}})");
  f.client->Complete(one, ScheduleJson("Scheduled"));
  REQUIRE(resumed.Get().ok());
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("UpdateSchedule of a FailedValidation schedule has it validated again, not recreated",
          "[schedules]") {
  Fixture f(/*cache_on=*/false, {}, 1024, spark::kubeflow::NewBackend());
  Result<ScheduleResult> updated;
  spark::ScheduleUpdate limits;
  limits.failed_run_history_limit = 3;  // not even the cron: the spec was fixed by hand
  f.executor->UpdateSchedule(kNs, "nightly", limits, Later(), updated.Callback());
  f.client->Complete(f.Next("get"), ScheduleJson("FailedValidation", "bad cron"));
  f.client->Complete(f.Next("patch"), ScheduleJson("FailedValidation", "bad cron"));
  auto status = f.Next("patch");
  CHECK(status->ref.subresource == "status");
  CHECK(status->body == R"({"status":{"nextRun":null,"scheduleState":null,"reason":null}})");
  f.client->Complete(status, ScheduleJson(""));
  const absl::StatusOr<ScheduleResult>& result = updated.Get();
  REQUIRE(result.ok());
  CHECK(result->schedule.state.empty());    // the controller has not been by yet
  CHECK_FALSE(f.client->HasPendingCall());  // no delete, no create
}

TEST_CASE("UpdateSchedule of the limits alone leaves the status alone", "[schedules]") {
  Fixture f(/*cache_on=*/false, {}, 1024, spark::kubeflow::NewBackend());
  Result<ScheduleResult> updated;
  spark::ScheduleUpdate limits;
  limits.successful_run_history_limit = 4;
  f.executor->UpdateSchedule(kNs, "nightly", limits, Later(), updated.Callback());
  f.client->Complete(f.Next("get"), ScheduleJson("Scheduled"));
  f.client->Complete(f.Next("patch"), ScheduleJson("Scheduled"));
  REQUIRE(updated.Get().ok());
  CHECK_FALSE(f.client->HasPendingCall());
}

spark::ScheduleSpec Hourly() {
  spark::ScheduleSpec spec;
  spec.cron = "@hourly";
  return spec;
}

TEST_CASE("CreateSchedule adopts its own schedule on a retry, never one being deleted",
          "[schedules]") {
  for (bool deleting : {false, true}) {
    INFO("deleting " << deleting);
    Fixture f(/*cache_on=*/false, {}, 1024, spark::kubeflow::NewBackend());
    Result<ScheduleResult> created;
    f.executor->CreateSchedule("nightly", "lake", Template(), Hourly(), Later(),
                               created.Callback());
    f.client->Complete(f.Next("create"), k8s::MakeApiStatus({409, "AlreadyExists", "exists"}));
    f.client->Complete(f.Next("get"), ScheduleJson("Scheduled", "", deleting));
    const absl::StatusOr<ScheduleResult>& result = created.Get();
    if (deleting) {
      // Deleted with keep_runs a moment ago, it lingers until its runs are freed.
      REQUIRE(result.status().code() == absl::StatusCode::kAlreadyExists);
      CHECK(absl::StrContains(result.status().message(), "is being deleted"));
    } else {
      REQUIRE(result.ok());
      CHECK(result->adopted);
    }
  }
}

}  // namespace
}  // namespace kje::executor
