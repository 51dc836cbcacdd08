#pragma once

// Why a job waits, read the way a person reads `kubectl describe`: the driver pod's own state
// first (its scheduling condition, its containers' waiting reasons), then the newest warning
// Event of the pod or the application, then what the application itself says (no status yet,
// held suspended, held by a queue). Pure: the executor fetches the pod and the Events, and each
// operator's backend classifies the Events its operator records.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "rapidjson/document.h"
#include "spark/app_projection.h"
#include "spark/driver_pod.h"
#include "spark/job_status.h"

namespace kje::spark {

// JobInfo.WaitingReason, value for value.
enum class WaitingReason : uint8_t {
  kNone = 0,
  kUnschedulable = 1,
  kImagePull = 2,
  kContainerConfig = 3,
  kAdmissionRefused = 4,
  kQueueAdmission = 5,
  kQueueDisabled = 6,
  kNoOperator = 7,
  kSuspended = 8,
  kExecutorsPending = 9,
};

// The proto's spelling ("UNSCHEDULABLE"); "" for kNone.
std::string_view WaitingReasonName(WaitingReason reason);
// The reason spelt as WaitingReasonName spells it, case-insensitively; nullopt otherwise.
std::optional<WaitingReason> ParseWaitingReason(std::string_view name);

struct Waiting {
  WaitingReason reason = WaitingReason::kNone;
  std::string message;  // capped as the projection caps a message (CapMessage)
  // The driver pod the lookup found, "" when there was none or none was looked up: a job's
  // driver_pod while the operator names none yet.
  std::string pod;

  bool operator==(const Waiting&) const = default;
};

// An Event as the reading needs it.
struct WaitingEvent {
  std::string object_kind;  // "Pod", or the application's kind
  std::string reason;
  std::string type;  // "Normal" or "Warning"
  std::string message;
  std::optional<absl::Time> last_seen;
};

// What the pod itself says: its PodScheduled condition false as Unschedulable, or a container
// waiting on its image or on its configuration. nullopt when it says nothing of the kind.
std::optional<Waiting> PodWaiting(const DriverPod& pod);

// Classifies one Event's reason as far as the pod's and Kueue's own recorders go; the
// operator's reasons are its backend's (`operator_reason`, kNone when it has none).
using OperatorEventReason = WaitingReason (*)(std::string_view reason);
WaitingReason EventWaitingReason(const WaitingEvent& event, OperatorEventReason operator_reason);

// What the application says by itself, with no lookup: no status at all while it isn't held
// (no operator reconciles it), held by a queue (labelled for Kueue), or held suspended.
// `has_state` is the backend's HasState.
Waiting AppWaiting(const AppProjection& app, const JobStatusInfo& info, bool has_state);

struct WaitingInputs {
  const DriverPod* driver = nullptr;                  // the current driver pod, if any
  const std::vector<WaitingEvent>* events = nullptr;  // the app's and the driver's
  OperatorEventReason operator_reason = nullptr;
  // What the application says without any lookup (AppWaiting); kNone when nothing.
  Waiting app;
};

// Kueue's Workloads of a job: found by this label, whose value is the application's uid.
inline constexpr std::string_view kLabelKueueJobUid = "kueue.x-k8s.io/job-uid";

// What a Kueue Workload says of a job it hasn't admitted: its QuotaReserved (else Admitted)
// condition's message while that is false, e.g. "couldn't assign flavors to pod set driver:
// insufficient unused quota for cpu in flavor default-flavor, 1 more needed"; nullopt when it is
// admitted or says nothing.
std::optional<std::string> KueuePendingMessage(const rapidjson::Value& workload);

// The reason to report: the pod's own state, else the newest classified Event, else the app's.
Waiting ReadWaiting(const WaitingInputs& inputs);

}  // namespace kje::spark
