#include "spark/apache/app_projection.h"

#include <malloc.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "test_json.h"

namespace kje::spark::apache {
namespace {

using testing::App;
using testing::AppMeta;
using testing::PodStatus;
using testing::Running;
using testing::State;
using testing::Status;
using testing::Terminated;

AppProjection Project(const std::string& json) {
  absl::StatusOr<AppProjection> app = ProjectAppJson(json);
  REQUIRE(app.ok());
  return *std::move(app);
}

TEST_CASE("Metadata - labels and annotations are projected") {
  AppMeta meta;
  meta.cancel_requested = true;
  meta.deletion = "2026-05-12T10:03:00Z";
  meta.job_id = "77";
  AppProjection app = Project(App("", meta));
  CHECK(app.name() == "gravitino-job-1");
  CHECK(app.namespace_() == "spark-jobs");
  CHECK(app.uid() == "u-1");
  CHECK(app.resource_version() == "42");
  CHECK(app.job_id() == "77");
  CHECK(app.metalake() == "ml");
  CHECK(app.managed_by_us());
  CHECK(std::count(app.labels().begin(), app.labels().end(),
                   LabelsView::Label("gravitino.apache.org/job-id", "77")) == 1);
  CHECK(std::count(app.labels().begin(), app.labels().end(),
                   LabelsView::Label("app.kubernetes.io/managed-by", "gravitino")) == 1);
  CHECK(app.cancel_requested());
  CHECK(app.deleting());
  CHECK(app.creation_time() == ParseRfc3339Millis("2026-05-12T10:00:00Z"));
  CHECK(app.deletion_time() == ParseRfc3339Millis("2026-05-12T10:03:00Z"));
  CHECK(StatusView(app).history().empty());
  CHECK_FALSE(HasState(app));
  CHECK_FALSE(IsStopped(app));
  CHECK(OperatorState(app).empty());
}

TEST_CASE("Only the exact value true requests a cancel") {
  AppMeta meta;
  meta.cancel_requested = true;
  for (const char* value : {"True", "TRUE", "yes", "1", "", " true"}) {
    meta.cancel_value = value;
    INFO(value);
    CHECK_FALSE(Project(App("", meta)).cancel_requested());
  }
  CHECK_FALSE(Project(App("")).cancel_requested());
}

TEST_CASE("An unparsable deletionTimestamp still means deleting") {
  AppMeta meta;
  meta.deletion = "soon";
  AppProjection app = Project(App("", meta));
  CHECK(app.deleting());
  CHECK(app.deletion_time() == kNoTime);
}

TEST_CASE("History is sorted numerically - not as strings") {
  std::string status = Status({{"10", State("Succeeded", "2026-05-12T10:00:10Z")},
                               {"2", State("DriverRequested", "2026-05-12T10:00:02Z")},
                               {"9", State("RunningHealthy", "2026-05-12T10:00:09Z")},
                               {"0", State("Submitted", "2026-05-12T10:00:00Z")}});
  AppProjection app = Project(App(status));
  REQUIRE(StatusView(app).history().size() == 4);
  CHECK(StatusView(app).history()[0].id == 0);
  CHECK(StatusView(app).history()[1].id == 2);
  CHECK(StatusView(app).history()[2].id == 9);
  CHECK(StatusView(app).history()[3].id == 10);
  CHECK(StatusView(app).history()[3].state == AppState::kSucceeded);
  CHECK(OperatorState(app) == "Succeeded");
  CHECK(IsStopped(app));
}

TEST_CASE("The current state is appended when the history doesn't end with it") {
  std::string status = Status({{"6", State("ScheduledToRestart", "2026-05-12T10:00:06Z")},
                               {"7", State("DriverRequested", "2026-05-12T10:00:07Z")}},
                              State("RunningHealthy", "2026-05-12T10:00:20Z", "", "running"));
  AppProjection app = Project(App(status));
  REQUIRE(StatusView(app).history().size() == 3);
  CHECK(StatusView(app).history().back().id == kCurrentStateId);
  CHECK(StatusView(app).history().back().state == AppState::kRunningHealthy);
  CHECK(StatusView(app).history().back().transition_time ==
        ParseRfc3339Millis("2026-05-12T10:00:20Z"));
  CHECK(app.current_message() == "running");
}

TEST_CASE("The current state is not duplicated when the history ends with it") {
  std::string status = Status({{"0", State("Submitted", "2026-05-12T10:00:00Z")},
                               {"1", State("DriverRequested", "2026-05-12T10:00:01Z")}},
                              State("DriverRequested", "2026-05-12T10:00:01Z", "", "requested"));
  AppProjection app = Project(App(status));
  REQUIRE(StatusView(app).history().size() == 2);
  CHECK(StatusView(app).history().back().id == 1);
  CHECK(app.current_message() == "requested");
}

TEST_CASE("Entries with a non-numeric id or without a string summary are skipped") {
  std::string status = Status({{"x", State("Failed", "2026-05-12T10:00:00Z")},
                               {"1.5", State("Failed", "2026-05-12T10:00:00Z")},
                               {"", State("Failed", "2026-05-12T10:00:00Z")},
                               {"99999999999999999999", State("Failed", "2026-05-12T10:00:00Z")},
                               {"3", R"({"currentStateSummary":7})"},
                               {"4", R"({"lastTransitionTime":"2026-05-12T10:00:00Z"})"},
                               {"5", R"("not an object")"},
                               {"+1", State("Submitted", "2026-05-12T10:00:00Z")},
                               {"-1", State("DriverRequested", "2026-05-12T10:00:00Z")}});
  AppProjection app = Project(App(status));
  REQUIRE(StatusView(app).history().size() == 2);
  CHECK(StatusView(app).history()[0].id == -1);
  CHECK(StatusView(app).history()[0].state == AppState::kDriverRequested);
  CHECK(StatusView(app).history()[1].id == 1);
  CHECK(StatusView(app).history()[1].state == AppState::kSubmitted);
}

TEST_CASE("A status with only currentState has a one-entry history") {
  AppProjection app = Project(
      App(R"({"currentState":)" + State("Submitted", "2025-01-01T00:00:00Z", "", "test") + "}"));
  REQUIRE(StatusView(app).history().size() == 1);
  CHECK(StatusView(app).history()[0].state == AppState::kSubmitted);
  CHECK(app.current_message() == "test");
}

TEST_CASE("Malformed status parts read as absent") {
  for (const char* status : {R"("oops")", "[]", "null", R"({"stateTransitionHistory":[]})",
                             R"({"stateTransitionHistory":null,"currentState":5})",
                             R"({"currentState":{"currentStateSummary":null}})"}) {
    INFO(status);
    AppProjection app = Project(App(status));
    CHECK(StatusView(app).history().empty());
  }
}

TEST_CASE("Driver container times come from lastObservedDriverStatus") {
  std::string failed =
      State("Failed", "2026-05-12T10:00:40.9Z",
            PodStatus({{"spark-kubernetes-driver",
                        Terminated("2026-05-12T10:00:02Z", "2026-05-12T10:00:40Z")}}));
  AppProjection app = Project(App(Status({{"5", failed}})));
  REQUIRE(StatusView(app).history().size() == 1);
  CHECK(StatusView(app).history()[0].driver_started == ParseRfc3339Millis("2026-05-12T10:00:02Z"));
  CHECK(StatusView(app).history()[0].driver_finished == ParseRfc3339Millis("2026-05-12T10:00:40Z"));
  CHECK(StatusView(app).history()[0].transition_time ==
        ParseRfc3339Millis("2026-05-12T10:00:40.9Z"));
}

TEST_CASE("Unparsable transition and container times are absent") {
  std::string state =
      State("Failed", "not-a-time", PodStatus({{"spark-kubernetes-driver", Terminated("x", "y")}}));
  AppProjection app = Project(App(Status({{"1", state}})));
  REQUIRE(StatusView(app).history().size() == 1);
  CHECK(StatusView(app).history()[0].transition_time == kNoTime);
  CHECK(StatusView(app).history()[0].driver_started == kNoTime);
  CHECK(StatusView(app).history()[0].driver_finished == kNoTime);
}

TEST_CASE("An unknown current state keeps its spelling") {
  AppProjection app = Project(App(Status({{"0", State("Submitted", "2026-05-12T10:00:00Z")},
                                          {"1", State("Hibernating", "2026-05-12T10:00:01Z")}})));
  REQUIRE(StatusView(app).history().size() == 2);
  CHECK(StatusView(app).history().back().state == AppState::kUnknown);
  CHECK(OperatorState(app) == "Hibernating");
  CHECK_FALSE(IsStopped(app));
}

TEST_CASE("An unknown current state differing from an unknown last entry is appended") {
  std::string status = Status({{"1", State("Hibernating", "2026-05-12T10:00:01Z")}},
                              State("Dreaming", "2026-05-12T10:00:02Z"));
  AppProjection app = Project(App(status));
  REQUIRE(StatusView(app).history().size() == 2);
  CHECK(OperatorState(app) == "Dreaming");
}

TEST_CASE("Long messages are capped on a UTF-8 boundary") {
  std::string message;
  while (message.size() < 5000) message += "é";  // two bytes each
  std::string status = R"({"currentState":)" +
                       State("SchedulingFailure", "2026-05-12T10:00:01Z", "", "x" + message) + "}";
  AppProjection app = Project(App(status));
  CHECK(app.current_message().size() <= kMaxMessageBytes + 3);
  CHECK(app.current_message().size() >= kMaxMessageBytes - 1);
  CHECK(app.current_message().substr(0, 3) == "x\xC3\xA9");
  CHECK(app.current_message().substr(app.current_message().size() - 5) == "\xC3\xA9...");
}

TEST_CASE("A message quoting a sensitive conf is masked when projected") {
  std::string status =
      R"({"currentState":)" +
      State("Failed", "2026-05-12T10:00:01Z", "",
            "spark-submit: --conf spark.ssl.keyPassword=hunter2 --conf spark.executor.cores=2") +
      "}";
  AppProjection app = Project(App(status));
  CHECK(app.current_message() ==
        "spark-submit: --conf spark.ssl.keyPassword=****** --conf spark.executor.cores=2");
}

TEST_CASE("Objects without metadata.name or namespace are INVALID_ARGUMENT") {
  for (const char* json :
       {"{}", "[]", "7", R"({"metadata":{"name":"a"}})", R"({"metadata":{"namespace":"a"}})",
        R"({"metadata":{"name":1,"namespace":"a"}})", R"({"metadata":{"name":"a","namespace":""}})",
        R"({"metadata":{"name":"","namespace":"a"}})"}) {
    INFO(json);
    CHECK(ProjectAppJson(json).status().code() == absl::StatusCode::kInvalidArgument);
  }
  CHECK(ProjectAppJson("{not json").status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("A projection is far smaller than its JSON") {
  std::string json = testing::ReadTestData("04-restart-onfailure-trimmed-history.json");
  AppProjection app = Project(json);
  CHECK(StatusView(app).history().size() == 7);
  // 100k applications must fit in well under 200 MB.
  CHECK(app.ApproximateBytes() < 1000);
  CHECK(app.ApproximateBytes() * 4 < json.size());
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPlainMalloc = false;
#else
constexpr bool kPlainMalloc = true;
#endif

TEST_CASE("100k projections take far less than 200 MB of heap") {
  if (!kPlainMalloc) {
    WARN("skipped: a sanitizer's allocator doesn't report through mallinfo2");
    return;
  }
  // A realistic app: a long name and job id, a uid, a finished history of 7 states with driver
  // times and a 300-byte message.
  AppMeta meta;
  meta.name = "gravitino-job-688822913391439376";
  meta.job_id = "688822913391439376";
  std::string failed =
      State("Failed", "2026-05-12T10:00:40.9Z",
            PodStatus({{"spark-kubernetes-driver",
                        Terminated("2026-05-12T10:00:02Z", "2026-05-12T10:00:40Z")}}),
            std::string(300, 'm'));
  std::string status =
      Status({{"0", State("Submitted", "2026-05-12T10:00:00Z")},
              {"1", State("DriverRequested", "2026-05-12T10:00:01Z")},
              {"2", State("DriverStarted", "2026-05-12T10:00:02Z")},
              {"3", State("DriverReady", "2026-05-12T10:00:03Z")},
              {"4", State("RunningHealthy", "2026-05-12T10:00:04Z")},
              {"5", failed},
              {"6", State("ResourceReleased", "2026-05-12T10:00:41Z")}},
             State("ResourceReleased", "2026-05-12T10:00:41Z", "", std::string(300, 'm')));
  AppProjection one = Project(App(status, meta));
  REQUIRE(StatusView(one).history().size() == 7);
  constexpr size_t kApps = 100000;
  size_t before = mallinfo2().uordblks;
  std::vector<AppProjection> apps;
  apps.reserve(kApps);
  for (size_t i = 0; i < kApps; ++i) apps.push_back(one);
  size_t used = mallinfo2().uordblks - before;
  INFO("bytes per projection: " << used / kApps << ", estimated " << one.ApproximateBytes());
  CHECK(used < size_t{200} << 20);
  // The packed projection: about 480 bytes for this app with its 300-byte message (1.4 KB when
  // each field was its own std::string).
  CHECK(used / kApps < 640);
  // The estimate the cache can use is within a third of the truth.
  CHECK(one.ApproximateBytes() * 3 > used / kApps * 2);
  CHECK(one.ApproximateBytes() * 2 < used / kApps * 3);
}

}  // namespace
}  // namespace kje::spark::apache

namespace kje::spark::apache {
namespace {

TEST_CASE("Operator 1.1 fields: spec.suspend - the Kueue label - suspendReason - attempt id") {
  std::string json = R"({"metadata":{"name":"a","namespace":"n","labels":{
      "kueue.x-k8s.io/queue-name":"q"}},"spec":{"suspend":true,"sparkConf":{
      "spark.kubernetes.driver.podTemplateContainerName":"main"}},"status":{
      "currentState":{"currentStateSummary":"Suspended","suspendReason":"KueueEviction",
      "lastObservedDriverStatus":{"containerStatuses":[{"name":"sidecar","state":{"running":{
      "startedAt":"2026-05-12T10:00:01Z"}}},{"name":"main","state":{"terminated":{
      "startedAt":"2026-05-12T10:00:02Z","finishedAt":"2026-05-12T10:00:03Z"}}}]}},
      "currentAttemptSummary":{"attemptInfo":{"id":3}}}})";
  AppProjection app = Project(json);
  CHECK(app.suspend_requested());
  CHECK(app.kueue_queued());
  CHECK(IsHeldWithoutStatus(app));
  CHECK(app.has_status());
  CHECK(StatusView(app).attempt_id() == 3);
  CHECK(StatusView(app).suspend_reason() == "KueueEviction");
  CHECK(app.driver_container() == "main");
  REQUIRE(StatusView(app).history().size() == 1);
  // lastObservedDriverStatus is read for the app's own driver container, not the sidecar.
  CHECK(StatusView(app).history()[0].driver_started == ParseRfc3339Millis("2026-05-12T10:00:02Z"));
  CHECK(StatusView(app).history()[0].driver_finished == ParseRfc3339Millis("2026-05-12T10:00:03Z"));
  CHECK(OperatorState(app) == "Suspended");
  CHECK(app.ApproximateBytes() > sizeof(AppProjection));

  AppProjection plain = Project(R"({"metadata":{"name":"a","namespace":"n"},
      "spec":{"suspend":false},"status":{"currentState":{"currentStateSummary":"Suspended"}}})");
  CHECK_FALSE(plain.suspend_requested());
  CHECK_FALSE(plain.kueue_queued());
  CHECK(StatusView(plain).suspend_reason() == "SpecSuspend");  // absent means SpecSuspend
  CHECK(plain.driver_container() == "spark-kubernetes-driver");
  CHECK(StatusView(plain).attempt_id() == 0);

  for (const char* missing : {R"(,"status":null)", "", R"(,"status":{})"}) {
    INFO(missing);
    AppProjection none =
        Project(absl::StrCat(R"({"metadata":{"name":"a","namespace":"n"})", missing, "}"));
    CHECK_FALSE(none.has_status());
  }
  CHECK(Project(R"({"metadata":{"name":"a","namespace":"n"},"status":{"x":1}})").has_status());
}

TEST_CASE("Packed: the history reads back as it was given, extreme ids and times included") {
  ApacheStatus status;
  status.history = {
      {std::numeric_limits<int64_t>::min(), kNoTime, kNoTime, kNoTime, AppState::kSubmitted},
      {-1, 1778580000000, kNoTime, kNoTime, AppState::kDriverRequested},
      {7, 1778580001000, 1778580000500, kNoTime, AppState::kDriverStarted},
      {3, std::numeric_limits<int64_t>::min() + 1, kNoTime, std::numeric_limits<int64_t>::max(),
       AppState::kFailed},
      {kCurrentStateId, 1778580041000, 1778580002000, 1778580040000, AppState::kUnknown},
  };
  status.suspend_reason = "KueueEviction";
  status.attempt_id = -3;
  AppFields fields;
  fields.name = "a";
  fields.namespace_ = "n";
  SetStatus(status, fields);
  const AppProjection app(fields);
  const ApacheStatus back = StatusOf(app);
  REQUIRE(back.history.size() == status.history.size());
  for (size_t i = 0; i < status.history.size(); ++i) {
    INFO("entry " << i);
    CHECK(back.history[i].id == status.history[i].id);
    CHECK(back.history[i].transition_time == status.history[i].transition_time);
    CHECK(back.history[i].driver_started == status.history[i].driver_started);
    CHECK(back.history[i].driver_finished == status.history[i].driver_finished);
    CHECK(back.history[i].state == status.history[i].state);
  }
  CHECK(back.suspend_reason == "KueueEviction");
  CHECK(back.attempt_id == -3);
  const StatusView view(app);
  CHECK(view.history().back().id == kCurrentStateId);
  CHECK(view.history()[3].driver_finished == std::numeric_limits<int64_t>::max());
  // Kept beside the history: the earliest driver start of any entry.
  CHECK(view.history_started() == 1778580000500);
  CHECK(view.current_state() == AppState::kUnknown);
  // And through a copy of the fields, as the executor re-packs an edited projection.
  CHECK(StatusOf(AppProjection(app.ToFields())).history.size() == 5);

  AppFields none;
  SetStatus(ApacheStatus{}, none);
  const AppProjection empty(none);
  CHECK(StatusView(empty).history().empty());
  CHECK(StatusView(empty).history_started() == kNoTime);
  CHECK_FALSE(HasState(empty));
  // A projection made without SetStatus reads as one without a status.
  CHECK(StatusView(AppProjection()).history().empty());
  CHECK(StatusView(AppProjection()).attempt_id() == 0);
}

}  // namespace
}  // namespace kje::spark::apache
