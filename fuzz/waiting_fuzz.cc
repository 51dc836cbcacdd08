// Why a job waits is read from what the API server returns about its driver pod and from the
// Events of the pod and the application: any JSON a cluster (or whoever can write Events) may
// hold. Input: the pod, then an EventList, as parts (fuzz_check.h's SplitParts).
// Invariants: the reading never fails; the message stays within the projection's cap; a pod the
// scheduler can't place is reported so, whatever the Events say; a reason always comes with
// something to read.

#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "k8s/event.h"
#include "rapidjson/document.h"
#include "spark/apache/status_mapping.h"
#include "spark/waiting.h"

using kje::spark::DriverPod;
using kje::spark::Waiting;
using kje::spark::WaitingEvent;
using kje::spark::WaitingInputs;
using kje::spark::WaitingReason;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string_view> parts = kje::fuzz::SplitParts(kje::fuzz::AsText(data, size));
  std::optional<DriverPod> pod;
  rapidjson::Document pod_doc;
  if (!parts.empty()) {
    pod_doc.Parse(parts[0].data(), parts[0].size());
    if (!pod_doc.HasParseError()) {
      auto projected = kje::spark::ProjectDriverPod(pod_doc);
      if (projected.ok()) pod = *std::move(projected);
    }
  }
  std::vector<WaitingEvent> events;
  if (parts.size() > 1) {
    rapidjson::Document list;
    list.Parse(parts[1].data(), parts[1].size());
    if (!list.HasParseError() && list.IsObject() && list.HasMember("items") &&
        list["items"].IsArray()) {
      for (const rapidjson::Value& item : list["items"].GetArray()) {
        auto event = kje::k8s::ProjectEvent(item);
        if (!event.ok()) continue;
        events.push_back(WaitingEvent{event->object_kind, event->reason, event->type,
                                      event->message, event->last_seen});
      }
    }
  }
  WaitingInputs inputs;
  inputs.driver = pod ? &*pod : nullptr;
  inputs.events = &events;
  inputs.operator_reason = &kje::spark::apache::WaitingEventReason;
  const Waiting waiting = kje::spark::ReadWaiting(inputs);
  FUZZ_CHECK(waiting.message.size() <= kje::spark::kMaxMessageBytes + 3);
  if (waiting.reason != WaitingReason::kNone) FUZZ_CHECK(!waiting.message.empty());
  if (pod) {
    for (const auto& hold : pod->holds) {
      FUZZ_CHECK(hold.message.size() <= kje::spark::kMaxMessageBytes + 3);
      if (hold.container.empty()) FUZZ_CHECK(waiting.reason == WaitingReason::kUnschedulable);
    }
  }
  return 0;
}
