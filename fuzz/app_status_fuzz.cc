// A SparkApplication's status is written by the operator and anyone with edit rights on the
// resource: the projection and the status mapping must take any JSON. Input: the application's
// JSON, then optionally a "%%" line and its driver pod's (or a PodList's) JSON.

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "rapidjson/document.h"
#include "spark/apache/app_projection.h"
#include "spark/apache/status_mapping.h"
#include "spark/driver_pod.h"

namespace spark = kje::spark;
namespace apache = kje::spark::apache;

namespace {

void CheckMapping(const spark::AppProjection& app, const spark::DriverPod* driver) {
  absl::Time now = absl::FromUnixSeconds(1778580000);  // 2026-05-12
  for (absl::Duration timeout :
       {absl::ZeroDuration(), absl::Minutes(10), absl::InfiniteDuration()}) {
    spark::JobStatusInfo info = apache::MapStatus(app, driver, now, timeout);
    FUZZ_CHECK(info.is_stopped == apache::IsStopped(app));
    FUZZ_CHECK(info.deleting == app.deleting());
    FUZZ_CHECK(info.operator_state == apache::OperatorState(app));
    FUZZ_CHECK(!info.finished_at.has_value() || spark::IsTerminal(info.status));
    FUZZ_CHECK(!info.no_status_timed_out || info.status == spark::JobStatus::kFailed);
    FUZZ_CHECK(!spark::JobStatusName(info.status).empty());
    if (info.status == spark::JobStatus::kCancelling) FUZZ_CHECK(app.cancel_requested());
    if (driver != nullptr)
      (void)spark::ShouldDeleteOrphanDriver(info, *driver, app.driver_container());
  }
  absl::Status adopt = spark::CheckAdoption(app, app.job_id());
  FUZZ_CHECK(adopt.ok() || absl::IsAlreadyExists(adopt));
  if (adopt.ok()) FUZZ_CHECK(!app.deleting());
  if (std::optional<apache::StateEntry> outcome = apache::LastOutcome(app)) {
    FUZZ_CHECK(apache::IsOutcomeState(outcome->state));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string_view> parts = kje::fuzz::SplitParts(kje::fuzz::AsText(data, size));
  absl::StatusOr<spark::AppProjection> app = apache::ProjectAppJson(parts[0]);
  if (!app.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(app.status()));
    return 0;
  }
  FUZZ_CHECK(!app->name().empty() && !app->namespace_().empty());
  const apache::StatusView status(*app);
  std::vector<apache::StateEntry> history(status.history().begin(), status.history().end());
  FUZZ_CHECK(history.size() == status.history().size());
  FUZZ_CHECK(std::is_sorted(history.begin(), history.end(),
                            [](const auto& a, const auto& b) { return a.id < b.id; }));
  // Packing loses nothing: the projection unpacked and packed again reads the same.
  FUZZ_CHECK(apache::StatusOf(spark::AppProjection(app->ToFields())).history.size() ==
             history.size());
  FUZZ_CHECK(app->current_message().size() <= spark::kMaxMessageBytes + 3);
  FUZZ_CHECK(app->unknown_current_state().empty() ||
             (!history.empty() && history.back().state == apache::AppState::kUnknown));
  FUZZ_CHECK(apache::HasState(*app) == !history.empty());
  // The name is the app's own bytes; the namespace is interned, shared by its apps and counted
  // in the interner's own bound, not by each app.
  FUZZ_CHECK(app->ApproximateBytes() >= sizeof(spark::AppProjection) + app->name().size());

  // A message cut to the cap stays valid UTF-8 when it was.
  rapidjson::Document doc;
  doc.Parse(parts[0].data(), parts[0].size());
  if (doc.IsObject() && doc.HasMember("status") && doc["status"].IsObject() &&
      doc["status"].HasMember("currentState") && doc["status"]["currentState"].IsObject() &&
      doc["status"]["currentState"].HasMember("message") &&
      doc["status"]["currentState"]["message"].IsString()) {
    const rapidjson::Value& m = doc["status"]["currentState"]["message"];
    if (kje::fuzz::IsValidUtf8(std::string_view(m.GetString(), m.GetStringLength()))) {
      FUZZ_CHECK(kje::fuzz::IsValidUtf8(app->current_message()));
    }
  }

  CheckMapping(*app, nullptr);
  if (parts.size() > 1) {
    rapidjson::Document pod_doc;
    pod_doc.Parse(parts[1].data(), parts[1].size());
    if (pod_doc.HasParseError()) return 0;
    std::vector<spark::DriverPod> pods = spark::ProjectDriverPods(pod_doc);
    absl::StatusOr<spark::DriverPod> single = spark::ProjectDriverPod(pod_doc);
    if (single.ok()) {
      pods.push_back(*single);
    } else {
      FUZZ_CHECK(absl::IsInvalidArgument(single.status()));
    }
    const spark::DriverPod* newest = spark::PickNewestDriver(pods);
    FUZZ_CHECK((newest == nullptr) == pods.empty());
    for (const spark::DriverPod& pod : pods) {
      std::optional<std::string> container = spark::LogContainer(pod);
      if (container) {
        FUZZ_CHECK(std::find(pod.container_names.begin(), pod.container_names.end(), *container) !=
                   pod.container_names.end());
      }
    }
    CheckMapping(*app, newest);
  }
  return 0;
}
