#include "spark/waiting.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "rapidjson/document.h"
#include "spark/apache/status_mapping.h"

namespace kje::spark {
namespace {

DriverPod Pod(const std::string& status_json) {
  rapidjson::Document doc;
  doc.Parse(
      (R"({"metadata":{"name":"pi-driver"},"spec":{"containers":[{"name":"spark-kubernetes-driver"}]},"status":)" +
       status_json + "}")
          .c_str());
  REQUIRE(!doc.HasParseError());
  auto pod = ProjectDriverPod(doc);
  REQUIRE(pod.ok());
  return *pod;
}

WaitingEvent Event(std::string kind, std::string reason, std::string type, std::string message,
                   int64_t at) {
  return WaitingEvent{std::move(kind), std::move(reason), std::move(type), std::move(message),
                      absl::FromUnixSeconds(at)};
}

constexpr const char* kUnschedulable =
    R"({"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",)"
    R"("reason":"Unschedulable","message":"0/3 nodes are available: 3 node(s) didn't match )"
    R"(Pod's node affinity/selector."}]})";

TEST_CASE("waiting: the pod's own state says it first", "[waiting]") {
  const DriverPod unschedulable = Pod(kUnschedulable);
  auto waiting = PodWaiting(unschedulable);
  REQUIRE(waiting);
  CHECK(waiting->reason == WaitingReason::kUnschedulable);
  CHECK(waiting->message ==
        "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.");

  const DriverPod pulling = Pod(
      R"({"phase":"Pending","conditions":[{"type":"PodScheduled","status":"True"}],)"
      R"("containerStatuses":[{"name":"spark-kubernetes-driver","state":{"waiting":)"
      R"({"reason":"ImagePullBackOff","message":"Back-off pulling image \"r.invalid/s:1\""}}}]})");
  waiting = PodWaiting(pulling);
  REQUIRE(waiting);
  CHECK(waiting->reason == WaitingReason::kImagePull);
  CHECK(waiting->message ==
        "container spark-kubernetes-driver: ImagePullBackOff: Back-off pulling image "
        "\"r.invalid/s:1\"");

  const DriverPod config = Pod(
      R"({"phase":"Pending","containerStatuses":[{"name":"spark-kubernetes-driver","state":)"
      R"({"waiting":{"reason":"CreateContainerConfigError","message":"secret \"db\" not found"}}}]})");
  waiting = PodWaiting(config);
  REQUIRE(waiting);
  CHECK(waiting->reason == WaitingReason::kContainerConfig);

  // The usual steps of a start are no reason to report.
  CHECK_FALSE(PodWaiting(
      Pod(R"({"phase":"Pending","containerStatuses":[{"name":"spark-kubernetes-driver","state":)"
          R"({"waiting":{"reason":"ContainerCreating"}}}]})")));
  CHECK_FALSE(PodWaiting(Pod(R"({"phase":"Running"})")));

  // PodScheduled false with neither reason nor message (found by waiting_fuzz): still said.
  waiting = PodWaiting(
      Pod(R"({"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False"}]})"));
  REQUIRE(waiting);
  CHECK(waiting->reason == WaitingReason::kUnschedulable);
  CHECK(waiting->message == "the driver pod isn't scheduled yet");
  waiting = PodWaiting(Pod(
      R"({"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"SchedulingGated"}]})"));
  REQUIRE(waiting);
  CHECK(waiting->message == "SchedulingGated");
}

TEST_CASE("waiting: an image pull names the kubelet's error, not only the back-off", "[waiting]") {
  const DriverPod pulling = Pod(
      R"({"phase":"Pending","containerStatuses":[{"name":"spark-kubernetes-driver","state":)"
      R"({"waiting":{"reason":"ImagePullBackOff","message":"Back-off pulling image \"x\""}}}]})");
  const std::vector<WaitingEvent> events = {
      Event("Pod", "Failed", "Warning",
            "Failed to pull image \"x\": lookup r.invalid: no such host", 10),
      Event("Pod", "BackOff", "Normal", "Back-off pulling image \"x\"", 12),
  };
  WaitingInputs in;
  in.driver = &pulling;
  in.events = &events;
  const Waiting waiting = ReadWaiting(in);
  CHECK(waiting.reason == WaitingReason::kImagePull);
  CHECK(waiting.message == "Failed to pull image \"x\": lookup r.invalid: no such host");
}

TEST_CASE("waiting: the newest event of each object settles what that object says", "[waiting]") {
  const DriverPod creating = Pod(R"({"phase":"Pending"})");
  // Scheduled after a FailedScheduling: the old warning no longer holds.
  std::vector<WaitingEvent> events = {
      Event("Pod", "FailedScheduling", "Warning", "0/3 nodes are available", 10),
      Event("Pod", "Scheduled", "Normal", "Successfully assigned", 20),
  };
  WaitingInputs in;
  in.driver = &creating;
  in.events = &events;
  CHECK(ReadWaiting(in).reason == WaitingReason::kNone);
  // A volume that can't be mounted keeps the pod ContainerCreating: only its event says why.
  events.push_back(Event("Pod", "FailedMount", "Warning",
                         "MountVolume.SetUp failed for volume \"db\" : secret \"db\" not found",
                         30));
  Waiting waiting = ReadWaiting(in);
  CHECK(waiting.reason == WaitingReason::kContainerConfig);
  CHECK(waiting.message == "MountVolume.SetUp failed for volume \"db\" : secret \"db\" not found");
  // Without a driver, pod events are an earlier pod's: they don't count.
  in.driver = nullptr;
  CHECK(ReadWaiting(in).reason == WaitingReason::kNone);
  // The application's own events: a refused pod.
  events.push_back(Event("SparkApplication", "FailedCreate", "Warning",
                         "pods \"pi-driver\" is forbidden: exceeded quota: compute", 40));
  waiting = ReadWaiting(in);
  CHECK(waiting.reason == WaitingReason::kAdmissionRefused);
  CHECK(waiting.message == "pods \"pi-driver\" is forbidden: exceeded quota: compute");
}

TEST_CASE("waiting: an operator's events are its backend's to read", "[waiting]") {
  const std::vector<WaitingEvent> events = {
      Event("SparkApplication", "KueueAdmissionPending", "Normal",
            "waiting for Kueue to admit the workload", 10),
  };
  WaitingInputs in;
  in.events = &events;
  CHECK(ReadWaiting(in).reason == WaitingReason::kNone);  // no classifier: nothing known
  in.operator_reason = &apache::WaitingEventReason;
  const Waiting waiting = ReadWaiting(in);
  CHECK(waiting.reason == WaitingReason::kQueueAdmission);
  CHECK(waiting.message == "waiting for Kueue to admit the workload");
  CHECK(apache::WaitingEventReason("KueueDisabled") == WaitingReason::kQueueDisabled);
  CHECK(apache::WaitingEventReason("SuspendHeld") == WaitingReason::kNone);
}

TEST_CASE("waiting: what the application says by itself", "[waiting]") {
  AppFields fields;
  fields.name = "pi";
  fields.namespace_ = "jobs";
  JobStatusInfo info;
  CHECK(AppWaiting(AppProjection(fields), info, /*has_state=*/false).reason ==
        WaitingReason::kNoOperator);
  CHECK(AppWaiting(AppProjection(fields), info, /*has_state=*/true).reason == WaitingReason::kNone);
  info.held = true;
  CHECK(AppWaiting(AppProjection(fields), info, false).reason == WaitingReason::kSuspended);
  fields.kueue_queued = true;
  fields.labels = {{"kueue.x-k8s.io/queue-name", "team-a"}};
  const Waiting queued = AppWaiting(AppProjection(fields), info, false);
  CHECK(queued.reason == WaitingReason::kQueueAdmission);
  CHECK(queued.message == "held until Kueue admits its workload (queue \"team-a\")");
  // A started job waits only for executors the operator reports pending.
  JobStatusInfo started;
  started.status = JobStatus::kStarted;
  CHECK(AppWaiting(AppProjection(fields), started, true).reason == WaitingReason::kNone);
  started.executors_pending = "1 of 2 executors are pending";
  CHECK(AppWaiting(AppProjection(fields), started, true) ==
        Waiting{WaitingReason::kExecutorsPending, "1 of 2 executors are pending", ""});
  // The app's own word is what's left when nothing more specific is found.
  WaitingInputs in;
  in.app = queued;
  CHECK(ReadWaiting(in) == queued);
}

TEST_CASE("waiting: a Kueue Workload's verdict until it is admitted", "[waiting]") {
  auto message = [](const char* conditions) {
    rapidjson::Document doc;
    doc.Parse((std::string(R"({"status":{"conditions":)") + conditions + "}}").c_str());
    return KueuePendingMessage(doc);
  };
  CHECK(message(R"([{"type":"QuotaReserved","status":"False","reason":"Pending",)"
                R"("message":"insufficient unused quota for cpu"}])") ==
        "Kueue: insufficient unused quota for cpu");
  // Quota reserved, admission checks pending: the Admitted condition says why.
  CHECK(message(R"([{"type":"QuotaReserved","status":"True","message":"Quota reserved"},)"
                R"({"type":"Admitted","status":"False","message":"waiting for checks"}])") ==
        "Kueue: waiting for checks");
  CHECK_FALSE(
      message(R"([{"type":"QuotaReserved","status":"True"},)"
              R"({"type":"Admitted","status":"True","message":"The workload is admitted"}])"));
  CHECK_FALSE(message(R"([])"));
  CHECK_FALSE(message(R"("not a list")"));
}

}  // namespace
}  // namespace kje::spark
