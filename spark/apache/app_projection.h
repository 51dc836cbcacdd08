#pragma once

// The projection of an apache/spark-kubernetes-operator SparkApplication (spark.apache.org/v1):
// its state history and attempt, packed into the operator's part of the neutral AppProjection,
// and the questions about it that only this operator's rules answer.

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "rapidjson/document.h"
#include "spark/apache/app_state.h"
#include "spark/app_projection.h"
#include "spark/time_util.h"

namespace kje::spark::apache {

// The id given to status.currentState when it is appended behind a trimmed history.
inline constexpr int64_t kCurrentStateId = std::numeric_limits<int64_t>::max();

// One entry of status.stateTransitionHistory.
struct StateEntry {
  int64_t id = 0;
  EpochMillis transition_time = kNoTime;  // lastTransitionTime
  // The driver container's times from lastObservedDriverStatus, when the entry has one.
  EpochMillis driver_started = kNoTime;
  EpochMillis driver_finished = kNoTime;
  AppState state = AppState::kUnknown;
};

// What the operator does when the current attempt stops, by spec.applicationTolerations'
// restartConfig and the attempt's counters: kNone when its policy is Never or its restarts are
// used up (maxRestartAttempts, default 3; maxRestartOnFailure on failures).
enum class Restart : uint8_t {
  kNone = 0,
  kOnFailure = 1,                // after any failed state
  kOnInfrastructureFailure = 2,  // after SchedulingFailure or a start timeout
  kAlways = 3,                   // after Succeeded too
};

// Whether the operator starts another attempt after `stopped` (an outcome state).
bool RestartsAfter(Restart restart, AppState stopped);

// What the projection keeps of this operator's status.
struct ApacheStatus {
  // The history sorted numerically by id, with status.currentState appended (id
  // kCurrentStateId) when the history doesn't end with it. Empty: no state yet.
  std::vector<StateEntry> history;
  // status.currentState.suspendReason when the current state is Suspended (SpecSuspend when the
  // operator left it out); "" otherwise.
  std::string suspend_reason;
  // status.currentAttemptSummary.attemptInfo.id: a resume or a restart counts it up.
  int64_t attempt_id = 0;
  Restart restart = Restart::kNone;
  // The queue spec.sparkConf gives the pods' scheduler: the driver's queue label (YuniKorn),
  // else spark.kubernetes.job.queue (Volcano); "" for none. Kueue's is the app's label.
  std::string queue;
};

// Packs `status` into the operator's part of `fields`: the current state, when the history says
// the driver started (the earliest driver start any entry saw, else the first started state's
// transition time), and the rest.
void SetStatus(const ApacheStatus& status, AppFields& fields);
// The status back, unpacked (tests, and the round trip of a projection).
ApacheStatus StatusOf(const AppProjection& app);

// Decodes the history's entries: ids and times are differences from the previous ones.
struct HistoryDecoder {
  void operator()(const char*& at, StateEntry& entry);
  uint64_t previous_id = 0;
  uint64_t previous_time = 0;
};

// The history as the projection packs it.
class HistoryView : public packing::PackedRange<StateEntry, HistoryDecoder> {
 public:
  using PackedRange::PackedRange;
  StateEntry front() const { return *begin(); }
  StateEntry back() const;
  StateEntry operator[](size_t i) const;
};

// The operator's part of a projection, read in place; lives as long as the projection.
class StatusView {
 public:
  explicit StatusView(const AppProjection& app);
  // history().back().state without decoding the history; kUnknown when it is empty.
  AppState current_state() const { return current_state_; }
  // When the history says the driver started (SetStatus), without decoding it.
  EpochMillis history_started() const { return history_started_; }
  std::string_view suspend_reason() const { return suspend_reason_; }
  int64_t attempt_id() const { return attempt_id_; }
  Restart restart() const { return restart_; }
  std::string_view queue() const { return queue_; }
  HistoryView history() const { return HistoryView(history_); }

 private:
  AppState current_state_;
  EpochMillis history_started_;
  std::string_view suspend_reason_;
  int64_t attempt_id_ = 0;
  Restart restart_ = Restart::kNone;
  std::string_view queue_;
  std::string_view history_;
};

// ProjectMetadata's fields and errors, plus spec.suspend, the Kueue queue label, the driver
// container, spec.sparkConf's spark.app.id and queue, and the status's history, attempt and
// suspendReason.
absl::StatusOr<AppProjection> ProjectApp(const rapidjson::Value& app);
absl::StatusOr<AppProjection> ProjectAppJson(std::string_view json);

// The operator's name of the current state; "" when there is no state.
std::string_view OperatorState(const AppProjection& app);
// Whether the application has any state: no status means the operator hasn't reconciled it.
bool HasState(const AppProjection& app);
// Whether a missing state is a hold rather than a loss: spec.suspend or a Kueue queue label (an
// operator 1.1 writes no status for either until it lets the app run).
bool IsHeldWithoutStatus(const AppProjection& app);
// Whether the current state is an outcome (Succeeded or a failure) that no restart follows, or a
// stopped state; a stopped app has a state (HasState).
bool IsStopped(const AppProjection& app);

}  // namespace kje::spark::apache
