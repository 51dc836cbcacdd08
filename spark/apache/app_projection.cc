// The operator's part of the projection is: a varint attempt id, the suspend reason's bytes (its
// length's low bit says whether the queue's bytes follow them: most apps have no queue, which
// then costs nothing; the next two bits are the Restart), then the history, a run of entries: the
// state, a byte of flags, then the id and times present as zigzag varints of their difference from
// the previous id or time (ids count up by one and times by seconds, so most take one or two
// bytes).

#include "spark/apache/app_projection.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "spark/apache/queue.h"
#include "spark/driver_pod.h"
#include "spark/job_status.h"
#include "spark/json_util.h"
#include "spark/names.h"

namespace kje::spark::apache {
namespace {

using packing::GetBytes;
using packing::GetDelta;
using packing::GetSigned;
using packing::GetVarint;
using packing::PutBytes;
using packing::PutDelta;
using packing::PutSigned;
using packing::PutVarint;

// The operator's default total restart limit.
constexpr int64_t kDefaultMaxRestartAttempts = 3;

// What the operator does when the current attempt stops, as it decides it: the policy applies,
// and the restart it would count stays within maxRestartAttempts (and, on a failure,
// maxRestartOnFailure). A restartCounterResetMillis the attempt outlasted resets the counters
// when it stops, which only the operator can tell then: without it this may say kNone where the
// operator restarts, never the other way round (the service writes no reset).
Restart RestartOf(const rapidjson::Value* config, const rapidjson::Value* attempt) {
  const std::string_view policy = json::String(config, "restartPolicy").value_or("Never");
  Restart restart = Restart::kNone;
  if (policy == "OnFailure") restart = Restart::kOnFailure;
  if (policy == "OnInfrastructureFailure") restart = Restart::kOnInfrastructureFailure;
  if (policy == "Always") restart = Restart::kAlways;
  if (restart == Restart::kNone) return restart;
  const int64_t max = json::Int(config, "maxRestartAttempts").value_or(kDefaultMaxRestartAttempts);
  const int64_t restarts =
      json::Int(attempt, "restartCounter").value_or(json::Int(attempt, "id").value_or(0));
  if (restarts < 0 || restarts >= max) return Restart::kNone;
  if (std::optional<int64_t> max_failures = json::Int(config, "maxRestartOnFailure");
      max_failures && restart == Restart::kOnFailure &&
      json::Int(attempt, "failureRestartCounter").value_or(0) >= *max_failures) {
    return Restart::kNone;
  }
  return restart;
}

// The top bit of the projection's state byte: the history isn't empty.
constexpr uint8_t kHasStateBit = 0x80;

AppState CurrentState(const AppProjection& app) {
  return static_cast<AppState>(app.operator_state() & ~kHasStateBit);
}

enum EntryFlag : uint8_t {
  kCurrentId = 1,  // the id is kCurrentStateId (not encoded)
  kHasTransition = 2,
  kHasDriverStarted = 4,
  kHasDriverFinished = 8,
};

void PackHistory(const std::vector<StateEntry>& history, std::string& out) {
  uint64_t previous_id = 0;
  uint64_t previous_time = 0;
  for (const StateEntry& entry : history) {
    uint8_t flags = 0;
    if (entry.id == kCurrentStateId) flags |= kCurrentId;
    if (entry.transition_time != kNoTime) flags |= kHasTransition;
    if (entry.driver_started != kNoTime) flags |= kHasDriverStarted;
    if (entry.driver_finished != kNoTime) flags |= kHasDriverFinished;
    out.push_back(static_cast<char>(entry.state));
    out.push_back(static_cast<char>(flags));
    if (!(flags & kCurrentId)) PutDelta(out, previous_id, entry.id);
    if (flags & kHasTransition) PutDelta(out, previous_time, entry.transition_time);
    if (flags & kHasDriverStarted) PutDelta(out, previous_time, entry.driver_started);
    if (flags & kHasDriverFinished) PutDelta(out, previous_time, entry.driver_finished);
  }
}

EpochMillis HistoryStarted(const std::vector<StateEntry>& history) {
  EpochMillis earliest = kNoTime;
  EpochMillis first_started = kNoTime;  // stays kNoTime if the first started entry has no time
  bool started = false;
  for (const StateEntry& entry : history) {
    if (entry.driver_started != kNoTime &&
        (earliest == kNoTime || entry.driver_started < earliest)) {
      earliest = entry.driver_started;
    }
    if (!started && IsStartedState(entry.state)) {
      started = true;
      first_started = entry.transition_time;
    }
  }
  return earliest != kNoTime ? earliest : first_started;
}

// Java's Long.parseLong, which the reference uses on history keys: an optional sign and decimal
// digits, nothing else, within int64.
std::optional<int64_t> ParseHistoryId(std::string_view key) {
  std::string_view digits = key;
  bool negative = false;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  // Parse with the sign attached so that int64's minimum is accepted, as Java does.
  // Appended in place: at -O3, GCC 12 warns (-Wrestrict, wrongly) on "-" + std::string.
  std::string text;
  text.reserve(digits.size() + 1);
  if (negative) text.push_back('-');
  text.append(digits);
  int64_t id = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return id;
}

struct RawEntry {
  int64_t id;
  std::string_view summary;
  const rapidjson::Value* value;
};

StateEntry ToEntry(const RawEntry& raw, std::string_view driver_container) {
  StateEntry entry;
  entry.id = raw.id;
  entry.state = ParseAppState(raw.summary);
  entry.transition_time = json::Time(raw.value, "lastTransitionTime");
  if (const rapidjson::Value* driver = json::Member(raw.value, "lastObservedDriverStatus")) {
    ContainerTimes times = DriverContainerTimes(*driver, driver_container);
    entry.driver_started = times.started;
    entry.driver_finished = times.finished;
  }
  return entry;
}

// The history (sorted, the current state appended when it was trimmed away) and the current
// state's message, unknown spelling and suspend reason.
void ProjectHistory(const rapidjson::Value* status, AppFields& fields, ApacheStatus& out) {
  std::vector<RawEntry> raw;
  const rapidjson::Value* history = json::Member(status, "stateTransitionHistory");
  if (history != nullptr && history->IsObject()) {
    raw.reserve(history->MemberCount());
    for (const auto& member : history->GetObject()) {
      std::optional<int64_t> id = ParseHistoryId(json::View(member.name));
      std::optional<std::string_view> summary = json::String(&member.value, "currentStateSummary");
      if (!id || !summary) continue;
      raw.push_back(RawEntry{*id, *summary, &member.value});
    }
  }
  std::stable_sort(raw.begin(), raw.end(),
                   [](const RawEntry& a, const RawEntry& b) { return a.id < b.id; });
  const rapidjson::Value* current = json::Member(status, "currentState");
  std::optional<std::string_view> current_summary = json::String(current, "currentStateSummary");
  // The history may have been trimmed on a restart; the current state is the truth.
  if (current_summary && (raw.empty() || raw.back().summary != *current_summary)) {
    raw.push_back(RawEntry{kCurrentStateId, *current_summary, current});
  }
  out.history.reserve(raw.size());
  for (const RawEntry& entry : raw) out.history.push_back(ToEntry(entry, fields.driver_container));
  if (raw.empty()) return;
  if (out.history.back().state == AppState::kUnknown) {
    fields.unknown_current_state = std::string(raw.back().summary);
  }
  const rapidjson::Value* message_source = current != nullptr ? current : raw.back().value;
  fields.current_message = CapMessage(json::String(message_source, "message").value_or(""));
  if (IsSuspendedState(out.history.back().state)) {
    std::optional<std::string_view> reason = json::String(current, "suspendReason");
    out.suspend_reason = std::string(reason && !reason->empty() ? *reason : kSuspendReasonSpec);
  }
}

}  // namespace

void SetStatus(const ApacheStatus& status, AppFields& fields) {
  // The state, and whether there is one at all in the top bit, so that HasState, which every
  // Status asks, needn't decode the packed part.
  fields.operator_state =
      status.history.empty()
          ? 0
          : static_cast<uint8_t>(kHasStateBit | static_cast<uint8_t>(status.history.back().state));
  fields.status_started = HistoryStarted(status.history);
  fields.operator_status.clear();
  PutSigned(fields.operator_status, status.attempt_id);
  const bool has_queue = !status.queue.empty();
  PutVarint(fields.operator_status, (status.suspend_reason.size() << 3) |
                                        (static_cast<uint64_t>(status.restart) << 1) |
                                        (has_queue ? 1 : 0));
  fields.operator_status.append(status.suspend_reason);
  if (has_queue) PutBytes(fields.operator_status, status.queue);
  PackHistory(status.history, fields.operator_status);
}

StatusView::StatusView(const AppProjection& app)
    : current_state_(CurrentState(app)), history_started_(app.status_started()) {
  std::string_view packed = app.operator_status();
  if (packed.empty()) return;  // a projection made without SetStatus
  const char* at = packed.data();
  attempt_id_ = GetSigned(at);
  const uint64_t reason_and_queue = GetVarint(at);
  restart_ = static_cast<Restart>((reason_and_queue >> 1) & 3);
  suspend_reason_ = std::string_view(at, reason_and_queue >> 3);
  at += suspend_reason_.size();
  if (reason_and_queue & 1) queue_ = GetBytes(at);
  history_ = packed.substr(static_cast<size_t>(at - packed.data()));
}

ApacheStatus StatusOf(const AppProjection& app) {
  const StatusView view(app);
  ApacheStatus status;
  for (const StateEntry& entry : view.history()) status.history.push_back(entry);
  status.suspend_reason = std::string(view.suspend_reason());
  status.attempt_id = view.attempt_id();
  status.restart = view.restart();
  status.queue = std::string(view.queue());
  return status;
}

void HistoryDecoder::operator()(const char*& at, StateEntry& entry) {
  entry.state = static_cast<AppState>(static_cast<uint8_t>(*at++));
  auto flags = static_cast<uint8_t>(*at++);
  entry.id = (flags & kCurrentId) ? kCurrentStateId : GetDelta(at, previous_id);
  entry.transition_time = (flags & kHasTransition) ? GetDelta(at, previous_time) : kNoTime;
  entry.driver_started = (flags & kHasDriverStarted) ? GetDelta(at, previous_time) : kNoTime;
  entry.driver_finished = (flags & kHasDriverFinished) ? GetDelta(at, previous_time) : kNoTime;
}

StateEntry HistoryView::back() const {
  StateEntry last;
  for (const StateEntry& entry : *this) last = entry;
  return last;
}

StateEntry HistoryView::operator[](size_t i) const {
  Iterator it = begin();
  std::advance(it, i);
  return *it;
}

absl::StatusOr<AppProjection> ProjectApp(const rapidjson::Value& app) {
  absl::StatusOr<AppFields> projected = ProjectMetadata(app);
  if (!projected.ok()) return projected.status();
  AppFields& fields = *projected;
  const rapidjson::Value* spec = json::Member(app, "spec");
  if (const rapidjson::Value* suspend = json::Member(spec, "suspend")) {
    fields.suspend_requested = suspend->IsBool() && suspend->GetBool();
  }
  fields.driver_container = DriverContainerName(spec);
  const rapidjson::Value* spark_conf = json::Member(spec, "sparkConf");
  fields.spark_app_id = std::string(json::String(spark_conf, kConfAppId).value_or(""));

  const rapidjson::Value* status = json::Member(app, "status");
  ApacheStatus apache;
  apache.attempt_id =
      json::Int(json::Member(json::Member(status, "currentAttemptSummary"), "attemptInfo"), "id")
          .value_or(0);
  apache.restart =
      RestartOf(json::Member(json::Member(spec, "applicationTolerations"), "restartConfig"),
                json::Member(json::Member(status, "currentAttemptSummary"), "attemptInfo"));
  std::string_view queue = json::String(spark_conf, kConfDriverQueueLabel).value_or("");
  if (queue.empty()) queue = json::String(spark_conf, kConfVolcanoQueue).value_or("");
  apache.queue = std::string(queue);
  ProjectHistory(status, fields, apache);
  SetStatus(apache, fields);
  return AppProjection(fields);
}

absl::StatusOr<AppProjection> ProjectAppJson(std::string_view json_text) {
  return ProjectJsonWith(json_text, ProjectApp);
}

std::string_view OperatorState(const AppProjection& app) {
  if (!HasState(app)) return "";
  const AppState state = CurrentState(app);
  if (state == AppState::kUnknown) return app.unknown_current_state();
  return AppStateName(state);
}

bool HasState(const AppProjection& app) { return (app.operator_state() & kHasStateBit) != 0; }

bool IsHeldWithoutStatus(const AppProjection& app) {
  return app.suspend_requested() || app.kueue_queued();
}

bool IsStopped(const AppProjection& app) {
  if (!HasState(app)) return false;
  const AppState state = CurrentState(app);
  if (IsOutcomeState(state)) return !RestartsAfter(StatusView(app).restart(), state);
  return IsStoppedState(state);
}

bool RestartsAfter(Restart restart, AppState stopped) {
  switch (restart) {
    case Restart::kNone:
      return false;
    case Restart::kAlways:
      return IsOutcomeState(stopped);
    case Restart::kOnFailure:
      return IsFailedState(stopped);
    case Restart::kOnInfrastructureFailure:
      return stopped == AppState::kSchedulingFailure || stopped == AppState::kDriverStartTimedOut ||
             stopped == AppState::kExecutorsStartTimedOut;
  }
  return false;
}

}  // namespace kje::spark::apache
