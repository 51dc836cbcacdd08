// The status mapping over the operator samples in testdata/
// (synthetic full objects built from the 0.9.0 code paths, and the verbatim unit-test status).

#include <catch2/catch.hpp>
#include <string>

#include "spark/apache/status_mapping.h"
#include "test_json.h"

namespace kje::spark::apache {
namespace {

using testing::Pod;
using testing::ReadTestData;
using testing::T;
using testing::Terminated;

const absl::Duration kTimeout = absl::Minutes(10);
const absl::Time kSoon = T("2026-05-12T10:05:00Z");  // 5 min after the samples' creation

AppProjection Sample(const std::string& file) {
  std::string json = ReadTestData(file);
  REQUIRE_FALSE(json.empty());
  absl::StatusOr<AppProjection> app = ProjectAppJson(json);
  REQUIRE(app.ok());
  return *std::move(app);
}

TEST_CASE("Sample 01: no status yet is QUEUED - then FAILED after the timeout") {
  AppProjection app = Sample("01-created-no-status.json");
  CHECK_FALSE(HasState(app));
  CHECK(MapStatus(app, nullptr, kSoon, kTimeout).status == JobStatus::kQueued);
  JobStatusInfo late = MapStatus(app, nullptr, T("2026-05-12T10:10:01Z"), kTimeout);
  CHECK(late.status == JobStatus::kFailed);
  CHECK(late.no_status_timed_out);
}

TEST_CASE("Sample 02: Submitted is QUEUED") {
  JobStatusInfo info = MapStatus(Sample("02-submitted.json"), nullptr, kSoon, kTimeout);
  CHECK(info.status == JobStatus::kQueued);
  CHECK(info.operator_state == "Submitted");
  CHECK(info.message == "Spark application has been created on Kubernetes Cluster.");
}

TEST_CASE("Sample 03: success - times from history or from the driver pod") {
  AppProjection app = Sample("03-succeeded-resource-released.json");
  CHECK(StatusView(app).history().size() == 7);
  JobStatusInfo info = MapStatus(app, nullptr, kSoon, kTimeout);
  CHECK(info.status == JobStatus::kSucceeded);
  CHECK(info.operator_state == "ResourceReleased");
  CHECK(info.is_stopped);
  // DriverReady's and Succeeded's transitions, at millisecond precision.
  CHECK(*info.started_at == T("2026-05-12T10:00:09.533Z"));
  CHECK(*info.finished_at == T("2026-05-12T10:00:31.208Z"));

  rapidjson::Document pod_json;
  std::string pod_text = Pod(
      "pi-0-driver", "2026-05-12T10:00:01Z", "Succeeded",
      {{"spark-kubernetes-driver", Terminated("2026-05-12T10:00:09Z", "2026-05-12T10:00:30Z")}});
  pod_json.Parse(pod_text.c_str());
  absl::StatusOr<DriverPod> pod = ProjectDriverPod(pod_json);
  REQUIRE(pod.ok());
  info = MapStatus(app, &*pod, kSoon, kTimeout);
  CHECK(*info.started_at == T("2026-05-12T10:00:09Z"));
  CHECK(*info.finished_at == T("2026-05-12T10:00:30Z"));
  CHECK_FALSE(ShouldDeleteOrphanDriver(info, *pod, app.driver_container()));
}

TEST_CASE("Sample 04: a restarted app with a trimmed history failed") {
  AppProjection app = Sample("04-restart-onfailure-trimmed-history.json");
  REQUIRE(StatusView(app).history().size() == 7);
  CHECK(StatusView(app).history().front().id == 6);
  CHECK(StatusView(app).history().back().id == 12);
  JobStatusInfo info = MapStatus(app, nullptr, kSoon, kTimeout);
  CHECK(info.status == JobStatus::kFailed);
  CHECK(info.message == "The maximum number of restart attempts (1) has been exceeded.");
  // The second attempt's driver container (the first attempt's history was trimmed away).
  CHECK(*info.started_at == T("2026-05-12T10:01:12Z"));
  CHECK(*info.finished_at == T("2026-05-12T10:01:50Z"));
}

TEST_CASE("Sample 05: a driver start timeout failed without starting") {
  AppProjection app = Sample("05-driver-start-timed-out.json");
  JobStatusInfo info = MapStatus(app, nullptr, kSoon, kTimeout);
  CHECK(info.status == JobStatus::kFailed);
  CHECK_FALSE(info.started_at.has_value());
  CHECK(*info.finished_at == T("2026-05-12T10:00:33Z"));

  // Its driver is still pending: an orphan to delete.
  rapidjson::Document pod_json;
  std::string pod_text =
      Pod("spark-example-driver-start-timeout-0-driver", "2026-05-12T10:00:01Z", "Pending",
          {{"spark-kubernetes-driver", R"({"waiting":{"reason":"ImagePullBackOff"}})"}});
  pod_json.Parse(pod_text.c_str());
  absl::StatusOr<DriverPod> pod = ProjectDriverPod(pod_json);
  REQUIRE(pod.ok());
  info = MapStatus(app, &*pod, kSoon, kTimeout);
  CHECK(info.status == JobStatus::kFailed);
  CHECK(ShouldDeleteOrphanDriver(info, *pod, app.driver_container()));
}

TEST_CASE("Sample 06: a retained failure with the driver container's times") {
  JobStatusInfo info =
      MapStatus(Sample("06-failed-retained-on-failure.json"), nullptr, kSoon, kTimeout);
  CHECK(info.status == JobStatus::kFailed);
  CHECK(info.operator_state == "TerminatedWithoutReleaseResources");
  CHECK(*info.started_at == T("2026-05-12T10:00:02Z"));
  CHECK(*info.finished_at == T("2026-05-12T10:00:20Z"));
}

TEST_CASE("Sample 07: deleted while running") {
  std::string json = ReadTestData("07-deleting-cancelled.json");
  rapidjson::Document document;
  document.Parse(json.c_str());
  REQUIRE_FALSE(document.HasParseError());
  absl::StatusOr<AppProjection> app = ProjectApp(document);
  REQUIRE(app.ok());
  // Without our annotation: deleted by someone else, no outcome.
  JobStatusInfo info = MapStatus(*app, nullptr, kSoon, kTimeout);
  CHECK(info.status == JobStatus::kFailed);
  CHECK(info.message == "Spark application has been shutdown as requested.");
  CHECK(*info.started_at == T("2026-05-12T10:00:08.1Z"));
  CHECK(*info.finished_at == T("2026-05-12T10:03:00Z"));

  // With it: cancelled, at the deletion time.
  rapidjson::Value annotations(rapidjson::kObjectType);
  annotations.AddMember("gravitino.apache.org/cancel-requested", "true", document.GetAllocator());
  document["metadata"].AddMember("annotations", annotations, document.GetAllocator());
  app = ProjectApp(document);
  REQUIRE(app.ok());
  info = MapStatus(*app, nullptr, kSoon, kTimeout);
  CHECK(info.status == JobStatus::kCancelled);
  CHECK(*info.finished_at == T("2026-05-12T10:03:00Z"));
}

TEST_CASE("Verbatim: a status with only currentState") {
  std::string status = ReadTestData("unit-test-status-missing-history.json");
  REQUIRE_FALSE(status.empty());
  absl::StatusOr<AppProjection> app = ProjectAppJson(
      R"({"metadata":{"name":"a","namespace":"b","creationTimestamp":"2025-01-01T00:00:00Z"},"status":)" +
      status + "}");
  REQUIRE(app.ok());
  REQUIRE(StatusView(*app).history().size() == 1);
  JobStatusInfo info = MapStatus(*app, nullptr, T("2025-01-02T00:00:00Z"), kTimeout);
  CHECK(info.status == JobStatus::kQueued);
  CHECK(info.operator_state == "Submitted");
  CHECK(info.message == "test");
}

TEST_CASE("Verbatim: the docs' restart fragment (keys 5 - 6 - 11 - 12) succeeded") {
  // docs/spark_custom_resources.md, as JSON.
  absl::StatusOr<AppProjection> app = ProjectAppJson(R"({"metadata":{"name":"a","namespace":"b"},
      "status":{"stateTransitionHistory":{
        "5":{"currentStateSummary":"Failed"},
        "6":{"currentStateSummary":"ScheduledToRestart"},
        "11":{"currentStateSummary":"Succeeded"},
        "12":{"currentStateSummary":"TerminatedWithoutReleaseResources"}}}})");
  REQUIRE(app.ok());
  JobStatusInfo info = MapStatus(*app, nullptr, kSoon, kTimeout);
  CHECK(info.status == JobStatus::kSucceeded);
  CHECK(info.operator_state == "TerminatedWithoutReleaseResources");
  CHECK_FALSE(info.finished_at.has_value());  // the fragment has no times
}

}  // namespace
}  // namespace kje::spark::apache
