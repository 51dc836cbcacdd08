#include "spark/waiting.h"

#include <algorithm>
#include <array>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "spark/json_util.h"
#include "spark/names.h"

namespace kje::spark {
namespace {

constexpr std::array<std::pair<WaitingReason, std::string_view>, 9> kNames = {{
    {WaitingReason::kUnschedulable, "UNSCHEDULABLE"},
    {WaitingReason::kImagePull, "IMAGE_PULL"},
    {WaitingReason::kContainerConfig, "CONTAINER_CONFIG"},
    {WaitingReason::kAdmissionRefused, "ADMISSION_REFUSED"},
    {WaitingReason::kQueueAdmission, "QUEUE_ADMISSION"},
    {WaitingReason::kQueueDisabled, "QUEUE_DISABLED"},
    {WaitingReason::kNoOperator, "NO_OPERATOR"},
    {WaitingReason::kSuspended, "SUSPENDED"},
    {WaitingReason::kExecutorsPending, "EXECUTORS_PENDING"},
}};

Waiting Because(WaitingReason reason, std::string message) {
  Waiting waiting;
  waiting.reason = reason;
  waiting.message = std::move(message);
  return waiting;
}

// The kubelet's reasons for a container that can't get its image.
bool IsImageReason(std::string_view reason) {
  return reason == "ErrImagePull" || reason == "ImagePullBackOff" || reason == "InvalidImageName" ||
         reason == "ErrImageNeverPull" || reason == "RegistryUnavailable" ||
         reason == "ImageInspectError";
}

// The kubelet's reasons for a container it can't build from the pod's spec (a missing Secret or
// ConfigMap, a bad reference).
bool IsConfigReason(std::string_view reason) {
  return reason == "CreateContainerConfigError" || reason == "CreateContainerError";
}

// The kubelet's "Failed" Events: the pull error itself ("Failed to pull image ..."), or the
// waiting reason it repeats ("Error: ErrImagePull", "Error: secret "x" not found").
WaitingReason KubeletFailure(std::string_view message) {
  if (message.starts_with("Failed to pull image") || message.starts_with("Error: ErrImagePull") ||
      message.starts_with("Error: ImagePullBackOff") ||
      message.starts_with("Error: InvalidImageName")) {
    return WaitingReason::kImagePull;
  }
  if (message.starts_with("Error: ")) return WaitingReason::kContainerConfig;
  return WaitingReason::kNone;
}

// The newest event first; events without a time count as oldest, and among equals the later in
// the list (the API server's order) wins.
std::vector<const WaitingEvent*> NewestFirst(const std::vector<WaitingEvent>& events) {
  std::vector<const WaitingEvent*> sorted;
  sorted.reserve(events.size());
  for (const WaitingEvent& event : events) sorted.push_back(&event);
  std::stable_sort(sorted.begin(), sorted.end(), [](const WaitingEvent* a, const WaitingEvent* b) {
    return a->last_seen.value_or(absl::InfinitePast()) >
           b->last_seen.value_or(absl::InfinitePast());
  });
  std::stable_partition(sorted.begin(), sorted.end(),
                        [](const WaitingEvent* e) { return e->last_seen.has_value(); });
  return sorted;
}

// The message of the newest kubelet event that says why the image can't be pulled: a
// back-off's own message ("Back-off pulling image ...") names the image but not the error.
std::optional<std::string> PullError(const std::vector<WaitingEvent>* events) {
  if (events == nullptr) return std::nullopt;
  for (const WaitingEvent* event : NewestFirst(*events)) {
    if (event->object_kind == "Pod" && event->reason == "Failed" &&
        event->message.starts_with("Failed to pull image")) {
      return event->message;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view WaitingReasonName(WaitingReason reason) {
  for (const auto& [value, name] : kNames) {
    if (value == reason) return name;
  }
  return "";
}

std::optional<WaitingReason> ParseWaitingReason(std::string_view name) {
  for (const auto& [value, spelt] : kNames) {
    if (absl::EqualsIgnoreCase(ToAbsl(spelt), ToAbsl(name))) return value;
  }
  return std::nullopt;
}

std::optional<Waiting> PodWaiting(const DriverPod& pod) {
  for (const PodHold& hold : pod.holds) {
    if (!hold.container.empty()) continue;
    // Any reason of a false PodScheduled (Unschedulable, SchedulingGated): the scheduler can't
    // or won't place the pod yet.
    // A condition without either still holds the pod; a reason always comes with words.
    std::string message = !hold.message.empty()  ? hold.message
                          : !hold.reason.empty() ? hold.reason
                                                 : "the driver pod isn't scheduled yet";
    return Because(WaitingReason::kUnschedulable, CapMessage(message));
  }
  for (const PodHold& hold : pod.holds) {
    WaitingReason reason = IsImageReason(hold.reason)    ? WaitingReason::kImagePull
                           : IsConfigReason(hold.reason) ? WaitingReason::kContainerConfig
                                                         : WaitingReason::kNone;
    if (reason == WaitingReason::kNone) continue;
    std::string message =
        absl::StrCat("container ", ToAbsl(hold.container), ": ", ToAbsl(hold.reason));
    if (!hold.message.empty()) absl::StrAppend(&message, ": ", ToAbsl(hold.message));
    return Because(reason, CapMessage(message));
  }
  return std::nullopt;
}

WaitingReason EventWaitingReason(const WaitingEvent& event, OperatorEventReason operator_reason) {
  if (event.object_kind == "Pod") {
    if (event.reason == "FailedScheduling") return WaitingReason::kUnschedulable;
    if (event.reason == "FailedMount" || event.reason == "FailedAttachVolume") {
      return WaitingReason::kContainerConfig;
    }
    if (event.reason == "Failed" && event.type == "Warning") return KubeletFailure(event.message);
    if (event.reason == "BackOff" && event.message.starts_with("Back-off pulling image")) {
      return WaitingReason::kImagePull;
    }
    return WaitingReason::kNone;
  }
  // The API server refusing a pod the operator creates: a quota, a LimitRange, a webhook.
  if (event.reason == "FailedCreate" && event.type == "Warning") {
    return WaitingReason::kAdmissionRefused;
  }
  return operator_reason != nullptr ? operator_reason(event.reason) : WaitingReason::kNone;
}

Waiting AppWaiting(const AppProjection& app, const JobStatusInfo& info, bool has_state) {
  if (info.status == JobStatus::kStarted) {
    if (info.executors_pending.empty()) return Waiting{};
    return Because(WaitingReason::kExecutorsPending, CapMessage(info.executors_pending));
  }
  if (info.held || info.suspended) {
    if (app.kueue_queued()) {
      std::string_view queue = app.labels().Find(kLabelKueueQueueName).value_or("");
      return Because(WaitingReason::kQueueAdmission,
                     CapMessage(absl::StrCat("held until Kueue admits its workload (queue \"",
                                             ToAbsl(queue), "\")")));
    }
    std::string message = "held by spec.suspend";
    if (!info.suspend_reason.empty() && info.suspend_reason != kSuspendReasonSpec) {
      message = absl::StrCat("held suspended: ", ToAbsl(info.suspend_reason));
    }
    return Because(WaitingReason::kSuspended, CapMessage(message));
  }
  if (!has_state) {
    return Because(WaitingReason::kNoOperator,
                   "no Spark operator has written a status yet: is the namespace reconciled by "
                   "one, and is it running?");
  }
  return Waiting{};
}

std::optional<std::string> KueuePendingMessage(const rapidjson::Value& workload) {
  const rapidjson::Value* conditions = json::Member(json::Member(workload, "status"), "conditions");
  if (conditions == nullptr || !conditions->IsArray()) return std::nullopt;
  // The false condition's message: no quota yet (QuotaReserved), else admission checks pending
  // (Admitted).
  std::string_view quota, admitted;
  for (const rapidjson::Value& condition : conditions->GetArray()) {
    const std::optional<std::string_view> type = json::String(&condition, "type");
    const bool is_true = json::String(&condition, "status") == "True";
    const std::string_view message = json::String(&condition, "message").value_or("");
    if (type == "Admitted") {
      if (is_true) return std::nullopt;
      admitted = message;
    } else if (type == "QuotaReserved" && !is_true) {
      quota = message;
    }
  }
  const std::string_view message = !quota.empty() ? quota : admitted;
  if (message.empty()) return std::nullopt;
  return CapMessage(absl::StrCat("Kueue: ", ToAbsl(message)));
}

Waiting ReadWaiting(const WaitingInputs& inputs) {
  if (inputs.driver != nullptr) {
    if (std::optional<Waiting> pod = PodWaiting(*inputs.driver)) {
      if (pod->reason == WaitingReason::kImagePull) {
        if (auto error = PullError(inputs.events)) pod->message = CapMessage(*error);
      }
      return *std::move(pod);
    }
  }
  if (inputs.events != nullptr) {
    // The newest event of each object settles what that object says: an older warning has been
    // overtaken by whatever happened since (a pod scheduled after a FailedScheduling).
    bool pod_settled = inputs.driver == nullptr;  // no driver: old pods' events don't count
    bool app_settled = false;
    for (const WaitingEvent* event : NewestFirst(*inputs.events)) {
      bool& settled = event->object_kind == "Pod" ? pod_settled : app_settled;
      if (settled) continue;
      settled = true;
      WaitingReason reason = EventWaitingReason(*event, inputs.operator_reason);
      if (reason == WaitingReason::kNone) continue;
      return Because(reason, CapMessage(event->message.empty() ? event->reason : event->message));
    }
  }
  return inputs.app;
}

}  // namespace kje::spark
