// The reconciler of the simulated apache/spark-kubernetes-operator. Like the real one it moves an
// application by one state per pass (each pass is one status write the clients can watch), and
// it finds everything it needs in the status and the pods. The simulated kubelet's progress of
// the driver pod is derived from the DriverRequested transition time, so it needs no memory
// either.

#include "kubesim/operator/operator.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kubesim/operator/app_status.h"
#include "kubesim/operator/driver.h"
#include "kubesim/operator/driver_log.h"
#include "kubesim/operator/driver_wait.h"
#include "kubesim/operator/executors.h"
#include "kubesim/operator/messages.h"
#include "kubesim/operator/v1_1/suspend.h"
#include "kubesim/sim/events.h"
#include "kubesim/sim/kubelet.h"
#include "kubesim/sim/s3_credentials.h"

namespace kubesim::op {
namespace {

namespace json = boost::json;
using internal::AppId;
using internal::JobConf;
using internal::PodStage;
using internal::Timeline;
using namespace internal;  // NOLINT: the operator's own vocabulary

// The operator counts attempts, restarts and history keys in Java longs, which wrap. Ours come
// from a status any client may write (INT64_MAX included), and a signed overflow is undefined.
int64_t Increment(int64_t n) { return static_cast<int64_t>(static_cast<uint64_t>(n) + 1); }

class Reconciler {
 public:
  Reconciler(const AppView& view, const Options& options)
      : view_(view),
        options_(options),
        app_(*view.app),
        now_(view.now_ms),
        conf_(internal::ReadJobConf(app_)),
        tol_(ReadTolerations(app_)) {}

  Actions Run() {
    const json::object* meta = ObjectAt(&app_, "metadata");
    bool has_finalizer = false;
    if (meta != nullptr) {
      if (const json::value* f = meta->if_contains("finalizers"); f && f->is_array()) {
        for (const auto& item : f->as_array()) {
          has_finalizer = has_finalizer || (item.is_string() && item.as_string() == kFinalizer);
        }
      }
    }
    const bool deleting = meta != nullptr && meta->contains("deletionTimestamp") &&
                          !meta->at("deletionTimestamp").is_null();
    if (const json::object* s = ObjectAt(&app_, "status")) status_ = *s;
    has_state_ = ObjectAt(&status_, "currentState") != nullptr;
    if (has_state_) {
      const json::object* current = ObjectAt(&status_, "currentState");
      state_ = StringAt(*current, "currentStateSummary");
      state_time_ = internal::ParseTime(StringAt(*current, "lastTransitionTime")).value_or(now_);
    }
    attempt_ = IntAt(ObjectAt(ObjectAt(&status_, "currentAttemptSummary"), "attemptInfo"), "id")
                   .value_or(0);
    driver_name_ = AppId(conf_.ns, conf_.name, attempt_) + "-driver";
    for (const json::object* pod : view_.pods) {
      const json::object* pm = ObjectAt(pod, "metadata");
      if (pm == nullptr || pm->contains("deletionTimestamp")) continue;
      if (StringAt(*pm, "name") == driver_name_) {
        driver_ = pod;
      } else if (internal::IsExecutorPod(*pod)) {
        // The driver's: an earlier attempt's go with their driver (garbage collection).
        const json::object* labels = ObjectAt(pm, "labels");
        if (labels != nullptr &&
            StringAt(*labels, "spark-app-selector") == AppId(conf_.ns, conf_.name, attempt_)) {
          executors_.push_back(pod);
        }
      } else {
        actions_.delete_pods.push_back(StringAt(*pm, "name"));  // a previous attempt's leftover
      }
    }

    if (deleting) {
      if (has_finalizer) Cleanup();
      return std::move(actions_);
    }
    if (!has_finalizer) actions_.add_finalizer = true;
    v1_1_ = options_.VersionFor(conf_.ns) == OperatorVersion::k1_1;
    if (v1_1_) hold_ = v1_1::HoldReason(app_);
    // A queued app's Workload, while it may still run; a suspended one has none.
    if (v1_1_ && v1_1::IsQueued(app_) && hold_ != v1_1::kSpecSuspend &&
        (!has_state_ || !IsTerminated(state_))) {
      actions_.write_objects.push_back(
          v1_1::KueueWorkload(app_, conf_.executor_instances, hold_.empty(), now_));
    }
    if (!has_state_ && !hold_.empty()) {
      // Held before the first status: none is written, a SuspendHeld event is.
      HoldWithoutStatus(meta);
      return Finish();
    }
    if (!has_state_) {
      if (v1_1_ && v1_1::IsQueued(app_)) {
        actions_.events.push_back(v1_1::KueueAdmittedEvent(app_, 0, now_));
      }
      status_ = json::object();
      status_["currentAttemptSummary"] = json::object{{"attemptInfo", AttemptInfo(0, 0, 0, 0)}};
      Transition("Submitted", kSubmittedMsg);
      Requeue(Due(now_, kStepMs));
      return Finish();
    }
    Step();
    return Finish();
  }

 private:
  Actions Finish() {
    if (dirty_) actions_.status = std::move(status_);
    return std::move(actions_);
  }

  int64_t Due(int64_t base, int64_t operator_ms) const {
    return base + internal::ScaledMs(operator_ms, options_.time_scale);
  }

  void Requeue(int64_t at) {
    if (!actions_.requeue_at_ms || at < *actions_.requeue_at_ms) actions_.requeue_at_ms = at;
  }

  static json::object AttemptInfo(int64_t id, int64_t restarts, int64_t failures,
                                  int64_t scheduling_failures) {
    return json::object{{"failureRestartCounter", failures},
                        {"id", id},
                        {"restartCounter", restarts},
                        {"schedulingFailureRestartCounter", scheduling_failures}};
  }

  json::object& History() {
    json::value& h = status_["stateTransitionHistory"];
    if (!h.is_object()) h = json::object();
    return h.as_object();
  }

  int64_t NextKey() {
    int64_t max_key = -1;
    for (const auto& [k, e] : Entries(&History())) max_key = std::max(max_key, k);
    const json::object* prev =
        ObjectAt(ObjectAt(&status_, "previousAttemptSummary"), "stateTransitionHistory");
    for (const auto& [k, e] : Entries(prev)) max_key = std::max(max_key, k);
    return Increment(max_key);
  }

  void Transition(const std::string& state, const char* message,
                  const json::object* driver_status = nullptr) {
    Transition(state, message != nullptr ? std::optional<std::string>(message) : std::nullopt,
               driver_status);
  }

  void Transition(const std::string& state, std::optional<std::string> message,
                  const json::object* driver_status) {
    json::object entry;
    entry["currentStateSummary"] = state;
    entry["lastTransitionTime"] = internal::FormatStatusTime(now_);
    if (message) entry["message"] = *message;
    if (driver_status != nullptr) entry["lastObservedDriverStatus"] = *driver_status;
    // The key first: History() may insert the map, which must not race the lookup.
    const std::string key = std::to_string(NextKey());
    History()[key] = entry;
    status_["currentState"] = std::move(entry);
    state_ = state;
    state_time_ = now_;
    dirty_ = true;
  }

  // When the current attempt's driver was requested (the kubelet's clock starts there).
  int64_t RequestedAt() {
    auto entries = Entries(&History());
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
      if (StringAt(*it->second, "currentStateSummary") == "DriverRequested") {
        return internal::ParseTime(StringAt(*it->second, "lastTransitionTime")).value_or(now_);
      }
    }
    return state_time_;
  }

  void DeleteAllPods() {
    for (const json::object* pod : view_.pods) {
      const json::object* pm = ObjectAt(pod, "metadata");
      if (pm == nullptr || pm->contains("deletionTimestamp")) continue;
      std::string name = StringAt(*pm, "name");
      if (std::find(actions_.delete_pods.begin(), actions_.delete_pods.end(), name) ==
          actions_.delete_pods.end()) {
        actions_.delete_pods.push_back(name);
      }
    }
  }

  // The DELETE of the application: release everything, record it, and let go of the object
  // after the termination requeue period.
  void Cleanup() {
    if (has_state_ && state_ == "ResourceReleased") {
      const json::object* current = ObjectAt(&status_, "currentState");
      bool just_shut_down = current != nullptr && StringAt(*current, "message") == kShutdownMsg;
      int64_t due = Due(state_time_, tol_.termination_requeue_ms);
      if (just_shut_down && now_ < due) {
        Requeue(due);
        return;
      }
      DeleteAllPods();
      actions_.remove_finalizer = true;
      return;
    }
    if (!has_state_) {
      actions_.remove_finalizer = true;
      return;
    }
    DeleteAllPods();
    Transition("ResourceReleased", kShutdownMsg);
    Requeue(Due(now_, tol_.termination_requeue_ms));
    actions_.status = status_;
  }

  // The simulated kubelet: moves the driver pod to where its timeline says it is now.
  void RunKubelet() {
    if (driver_ == nullptr) return;
    const int64_t requested = RequestedAt();
    if (const json::object* s = ObjectAt(driver_, "status")) driver_status_ = *s;
    internal::DriverWait wait = internal::CheckDriverWait(
        conf_, attempt_, *driver_, requested, now_, view_.lookup, options_.time_scale, &actions_);
    if (wait.next_ms) Requeue(*wait.next_ms);
    if (wait.held) {
      if (wait.status) driver_status_ = std::move(*wait.status);
      return;
    }
    timeline_ =
        internal::DriverTimeline(conf_, attempt_, requested, options_.time_scale, wait.delay_ms);
    PodStage shown = internal::StageOf(*driver_, conf_.driver_container);
    PodStage due = internal::StageAt(*timeline_, now_);
    const bool never_ran = conf_.outcome == internal::Outcome::kEvictBeforeStart;
    // spark-submit fetches the dependencies as the container starts; a failure ends the driver.
    std::optional<sim::FetchOutcome> fetched;
    if (shown < PodStage::kRunning && due >= PodStage::kRunning && !never_ran) {
      sim::S3aAccess s3a = conf_.s3a;
      s3a.credentials = sim::PodS3Credentials(*driver_, conf_.driver_container, view_.lookup);
      fetched =
          sim::FetchAll(conf_.dependencies, s3a, view_.fetch, timeline_->started_ms.value_or(now_));
      if (fetched->failed) {
        conf_.outcome = internal::Outcome::kFail;
        timeline_->ended_ms = timeline_->started_ms;
        due = PodStage::kTerminated;
      }
    }
    if (due > shown) {
      driver_status_ = internal::DriverPodStatus(conf_, attempt_, *timeline_, due);
      actions_.pod_status.push_back({driver_name_, driver_status_});
      KubeletEvents(shown, due);
      std::string text;
      if (fetched && fetched->failed) {
        actions_.logs.push_back({driver_name_, conf_.driver_container, std::move(fetched->log)});
        return;
      }
      if (fetched) text += fetched->log;
      if (shown < PodStage::kRunning && !never_ran) {
        text += internal::DriverLogStart(conf_, attempt_, *timeline_);
        for (const std::string& sidecar : conf_.sidecars) {
          actions_.logs.push_back({driver_name_, sidecar, sidecar + ": sidecar started\n"});
        }
      }
      if (due == PodStage::kTerminated && !never_ran) {
        text += internal::DriverLogEnd(conf_, attempt_, *timeline_);
      }
      if (!text.empty()) {
        actions_.logs.push_back({driver_name_, conf_.driver_container, std::move(text)});
      }
    }
    if (due == PodStage::kPending && timeline_->started_ms) Requeue(*timeline_->started_ms);
    if (due < PodStage::kTerminated && timeline_->ended_ms) Requeue(*timeline_->ended_ms);
    if (conf_.executor_instances > 0) {
      internal::ExecutorsPass pass =
          internal::RunExecutors(conf_, attempt_, *driver_, DriverStage(), executors_, now_,
                                 view_.lookup, options_.time_scale, &actions_);
      ready_executors_ = pass.ready;
      if (pass.next_ms) Requeue(*pass.next_ms);
    }
  }

  // What the kubelet records as it moves the driver from `shown` to `due`: the start of its
  // containers, and an eviction (which stops what was running).
  void KubeletEvents(PodStage shown, PodStage due) {
    const bool never_ran = conf_.outcome == internal::Outcome::kEvictBeforeStart;
    const bool evicted = conf_.outcome == internal::Outcome::kEvict || never_ran;
    const Timeline& t = *timeline_;
    if (shown < PodStage::kRunning && !never_ran && t.started_ms) {
      const int64_t pull = internal::ScaledMs(sim::kKubeletPullMs, options_.time_scale);
      sim::AppendStartEvents(*driver_, std::max(t.created_ms, *t.started_ms - pull), *t.started_ms,
                             false, &actions_.events);
    }
    if (due != PodStage::kTerminated || !evicted) return;
    const int64_t at = t.ended_ms.value_or(now_);
    sim::AppendEvictedEvent(*driver_, StringAt(driver_status_, "message"), at, &actions_.events);
    if (never_ran) return;
    json::object running = *driver_;
    running["status"] = internal::DriverPodStatus(conf_, attempt_, t, PodStage::kRunning);
    sim::AppendKillingEvents(running, at, &actions_.events);
  }

  // The driver container's status in the driver pod's status, or nullptr.
  const json::object* DriverContainerStatus() const {
    const json::value* cs = driver_status_.if_contains("containerStatuses");
    if (cs == nullptr || !cs->is_array()) return nullptr;
    for (const auto& c : cs->as_array()) {
      if (c.is_object() && StringAt(c.as_object(), "name") == conf_.driver_container) {
        return &c.as_object();
      }
    }
    return nullptr;
  }

  // The exit code of a terminated driver container, if it has one.
  std::optional<int64_t> DriverExitCode() const {
    const json::object* state = ObjectAt(DriverContainerStatus(), "state");
    return IntAt(ObjectAt(state, "terminated"), "exitCode");
  }

  PodStage DriverStage() const {
    std::string phase = StringAt(driver_status_, "phase");
    // Sidecars keep the pod Running: the driver container tells that the driver ended.
    if (phase == "Running" && DriverExitCode()) return PodStage::kTerminated;
    if (phase == "Running") return PodStage::kRunning;
    if (phase == "Succeeded" || phase == "Failed") return PodStage::kTerminated;
    return PodStage::kPending;
  }

  // Creates the attempt's driver (or adopts one of that name) and records the request.
  void RequestDriver() {
    if (conf_.client_mode) {
      Transition("Failed", kClientModeMsg);
      Requeue(Due(now_, kStepMs));
      return;
    }
    if (!conf_.image) {
      Transition("SchedulingFailure", kNoImageStack);
      Requeue(Due(now_, kStepMs));
      return;
    }
    Transition("DriverRequested", kDriverRequestedMsg);
    if (driver_ == nullptr) {
      Timeline t = internal::DriverTimeline(conf_, attempt_, now_, options_.time_scale);
      actions_.create_pods.push_back(internal::BuildDriverPod(app_, conf_, attempt_, t));
      sim::AppendScheduleEvents(actions_.create_pods.back(), now_, &actions_.events);
      if (t.started_ms) Requeue(*t.started_ms);
      // The kubelet gets the pod at once: whatever holds it shows from the next pass.
      Requeue(now_ + 1);
    } else {
      Requeue(now_);
    }
    if (tol_.driver_start_timeout_ms > 0) Requeue(Due(now_, tol_.driver_start_timeout_ms));
  }

  int64_t RestartBackoff() {
    const json::object* prev =
        ObjectAt(ObjectAt(&status_, "previousAttemptSummary"), "stateTransitionHistory");
    std::string stopped;
    for (const auto& [k, e] : Entries(prev)) {
      std::string s = StringAt(*e, "currentStateSummary");
      if (IsStopping(s)) stopped = s;
    }
    if (stopped == "SchedulingFailure" && tol_.backoff_on_scheduling_failure_ms) {
      return *tol_.backoff_on_scheduling_failure_ms;
    }
    if (IsFailure(stopped) && stopped != "SchedulingFailure" && tol_.backoff_on_failure_ms) {
      return *tol_.backoff_on_failure_ms;
    }
    return tol_.restart_backoff_ms;
  }

  // After a stopping state: restart when the policy and the limits allow, else terminate.
  void StopAttempt() {
    int64_t due = Due(state_time_, kStepMs);
    if (now_ < due) {
      Requeue(due);
      return;
    }
    const std::string stopped = state_;
    const bool restart =
        tol_.restart_policy == "Always" ||
        (tol_.restart_policy == "OnFailure" && IsFailure(stopped)) ||
        (tol_.restart_policy == "OnInfrastructureFailure" && IsInfrastructureFailure(stopped));
    std::optional<std::string> exceeded;
    if (restart) {
      const json::object* info =
          ObjectAt(ObjectAt(&status_, "currentAttemptSummary"), "attemptInfo");
      int64_t restarts = IntAt(info, "restartCounter").value_or(0);
      int64_t failures = IntAt(info, "failureRestartCounter").value_or(0);
      int64_t scheduling = IntAt(info, "schedulingFailureRestartCounter").value_or(0);
      auto entries = Entries(&History());
      int64_t attempt_start =
          entries.empty()
              ? state_time_
              : internal::ParseTime(StringAt(*entries.front().second, "lastTransitionTime"))
                    .value_or(state_time_);
      bool reset = tol_.restart_counter_reset_ms >= 0 &&
                   state_time_ - attempt_start >=
                       internal::ScaledMs(tol_.restart_counter_reset_ms, options_.time_scale);
      if (reset) restarts = failures = scheduling = 0;
      restarts = Increment(restarts);
      bool scheduling_failure = stopped == "SchedulingFailure";
      bool failure = IsFailure(stopped) && !scheduling_failure;
      failures = failure ? Increment(failures) : 0;
      scheduling = scheduling_failure ? Increment(scheduling) : 0;
      if (restarts > tol_.max_restart_attempts) {
        exceeded = "The maximum number of restart attempts (" +
                   std::to_string(tol_.max_restart_attempts) + ") has been exceeded.";
      } else if (scheduling_failure && tol_.max_restart_on_scheduling_failure &&
                 scheduling > *tol_.max_restart_on_scheduling_failure) {
        exceeded = "The maximum number of restart attempts on consecutive scheduling failures (" +
                   std::to_string(*tol_.max_restart_on_scheduling_failure) + ") has been exceeded.";
      } else if (failure && tol_.max_restart_on_failure &&
                 failures > *tol_.max_restart_on_failure) {
        exceeded = "The maximum number of restart attempts on consecutive failures (" +
                   std::to_string(*tol_.max_restart_on_failure) + ") has been exceeded.";
      }
      if (!exceeded) {
        DeleteAllPods();
        // History trimming (the operator's default): the finished attempt's history moves to
        // previousAttemptSummary; keys keep counting.
        json::object previous;
        previous["attemptInfo"] = info != nullptr ? *info : AttemptInfo(attempt_, 0, 0, 0);
        previous["stateTransitionHistory"] = History();
        int64_t next_key = NextKey();
        status_["previousAttemptSummary"] = std::move(previous);
        status_["stateTransitionHistory"] = json::object();
        status_["currentAttemptSummary"] = json::object{
            {"attemptInfo", AttemptInfo(Increment(attempt_), restarts, failures, scheduling)}};
        json::object entry;
        entry["currentStateSummary"] = "ScheduledToRestart";
        entry["lastTransitionTime"] = internal::FormatStatusTime(now_);
        if (tol_.retain_policy != "Never") entry["message"] = kRestartRetainMsg;
        History()[std::to_string(next_key)] = entry;
        status_["currentState"] = std::move(entry);
        state_ = "ScheduledToRestart";
        state_time_ = now_;
        dirty_ = true;
        Requeue(Due(now_, RestartBackoff()));
        return;
      }
    }
    const bool retain =
        tol_.retain_policy == "Always" || (tol_.retain_policy == "OnFailure" && IsFailure(stopped));
    if (retain) {
      std::string message = kTerminatedWithoutReleaseMsg;
      if (exceeded) message += " " + *exceeded;
      Transition("TerminatedWithoutReleaseResources", message, nullptr);
      RequeueTerminated();
      return;
    }
    DeleteAllPods();
    Transition("ResourceReleased", exceeded, nullptr);
    RequeueTerminated();
  }

  // When the current attempt stopped for good: its first terminated state.
  int64_t StoppedAt() {
    auto entries = Entries(&History());
    int64_t at = state_time_;
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
      std::string s = StringAt(*it->second, "currentStateSummary");
      if (!IsTerminated(s)) break;
      at = internal::ParseTime(StringAt(*it->second, "lastTransitionTime")).value_or(at);
    }
    return at;
  }

  void RequeueTerminated() {
    if (state_ == "TerminatedWithoutReleaseResources") {
      int64_t keep = std::numeric_limits<int64_t>::max();
      if (tol_.retain_duration_ms >= 0) keep = tol_.retain_duration_ms;
      if (tol_.ttl_after_stop_ms >= 0) keep = std::min(keep, tol_.ttl_after_stop_ms);
      if (keep != std::numeric_limits<int64_t>::max()) Requeue(Due(state_time_, keep));
      return;
    }
    if (tol_.ttl_after_stop_ms >= 0) Requeue(Due(StoppedAt(), tol_.ttl_after_stop_ms));
  }

  void Terminated() {
    if (state_ == "TerminatedWithoutReleaseResources") {
      int64_t keep = std::numeric_limits<int64_t>::max();
      if (tol_.retain_duration_ms >= 0) keep = tol_.retain_duration_ms;
      if (tol_.ttl_after_stop_ms >= 0) keep = std::min(keep, tol_.ttl_after_stop_ms);
      if (keep == std::numeric_limits<int64_t>::max()) return;  // retained for good
      int64_t due = Due(state_time_, keep);
      if (now_ < due) {
        Requeue(due);
        return;
      }
      DeleteAllPods();
      Transition("ResourceReleased", kRetainExpiredMsg);
      RequeueTerminated();
      return;
    }
    DeleteAllPods();  // released means no pods, whoever recreated them
    if (tol_.ttl_after_stop_ms >= 0) {
      int64_t due = Due(StoppedAt(), tol_.ttl_after_stop_ms);
      if (now_ >= due) {
        actions_.delete_app = true;
      } else {
        Requeue(due);
      }
    }
  }

  void Step() {
    if (v1_1_ && SuspendStep()) return;
    if (state_ == "Submitted") {
      int64_t due = Due(state_time_, kStepMs);
      if (now_ < due) {
        Requeue(due);
      } else {
        RequestDriver();
      }
      return;
    }
    if (state_ == "ScheduledToRestart") {
      int64_t due = Due(state_time_, RestartBackoff());
      if (now_ < due) {
        Requeue(due);
      } else {
        RequestDriver();
      }
      return;
    }
    if (IsStarting(state_) || IsRunning(state_)) {
      RunKubelet();
      if (driver_ == nullptr) {
        int64_t due = Due(state_time_, kDriverGraceMs);
        if (state_ == "DriverRequested" && now_ < due) {
          Requeue(due);
          return;
        }
        const int64_t confirmed = Due(state_time_, kMissingDriverGraceMs);
        if (now_ < confirmed) {
          Requeue(std::min(confirmed, Due(now_, kMissingDriverRequeueMs)));
          return;
        }
        Transition("Failed", kDriverRemovedMsg);
        Requeue(Due(now_, kStepMs));
        return;
      }
      ObserveDriver();
      return;
    }
    if (IsStopping(state_)) {
      StopAttempt();
      return;
    }
    if (IsTerminated(state_)) {
      Terminated();
      return;
    }
    Transition("Failed", kUnknownStateMsg);
    Requeue(Due(now_, kStepMs));
  }

  // One step of the starting and running states, from what the driver pod shows.
  void ObserveDriver() {
    const PodStage stage = DriverStage();
    const bool pod_failed = StringAt(driver_status_, "phase") == "Failed";
    const bool failed = pod_failed || DriverExitCode().value_or(0) != 0;
    const json::value* statuses = driver_status_.if_contains("containerStatuses");
    const bool no_containers =
        statuses == nullptr || !statuses->is_array() || statuses->as_array().empty();
    // 1.0 takes a terminal driver that never reported a container for a pending one, until the
    // start timeout (apache/spark-kubernetes-operator#863); 1.1 fails it at once (SPARK-59729).
    const bool lost_before_start = stage == PodStage::kTerminated && no_containers && !v1_1_;
    if (stage == PodStage::kTerminated && !lost_before_start &&
        (IsRunning(state_) || !EverStarted())) {
      if (!failed && StringAt(driver_status_, "phase") != "Succeeded") {
        Transition("Succeeded", kCriticalExitedZeroMsg, &driver_status_);
      } else if (!failed) {
        Transition("Succeeded", kSucceededMsg);
      } else if (StringAt(driver_status_, "reason") == "Evicted") {
        Transition("DriverEvicted", kFailedContainerMsg, &driver_status_);
      } else {
        Transition("Failed", kFailedContainerMsg, &driver_status_);
      }
      Requeue(Due(now_, kStepMs));
      return;
    }
    if (state_ == "DriverRequested") {
      if (EverStarted()) {
        Transition("DriverStarted", kDriverStartedMsg);
        Requeue(now_);
      } else if (tol_.driver_start_timeout_ms > 0 &&
                 now_ >= Due(state_time_, tol_.driver_start_timeout_ms)) {
        Transition("DriverStartTimedOut", kStartTimedOutMsg, &driver_status_);
        Requeue(Due(now_, kStepMs));
      } else if (tol_.driver_start_timeout_ms > 0) {
        Requeue(Due(state_time_, tol_.driver_start_timeout_ms));
      }
      return;
    }
    if (state_ == "DriverStarted") {
      if (EverStarted()) {
        // The pod turns Ready together with its only container.
        Transition("DriverReady", kDriverReadyMsg);
        Requeue(Due(now_, kRunningMs));
      } else if (tol_.driver_ready_timeout_ms > 0 &&
                 now_ >= Due(state_time_, tol_.driver_ready_timeout_ms)) {
        Transition("DriverReadyTimedOut", kStartTimedOutMsg, &driver_status_);
        Requeue(Due(now_, kStepMs));
      }
      return;
    }
    if (state_ == "DriverReady" || state_ == "InitializedBelowThresholdExecutors") {
      // Without simulated executors, the requested ones are taken to be up.
      int64_t due = Due(state_time_, kRunningMs);
      if (now_ < due) {
        Requeue(due);
      } else if (WaitForExecutors()) {
        return;
      } else {
        Transition("RunningHealthy", kRunningHealthyMsg);
        // A short job's driver may have ended already: the kubelet won't requeue for an end it
        // has shown, so come back to record the outcome.
        if (stage == PodStage::kTerminated) Requeue(Due(now_, kStepMs));
      }
      return;
    }
    // Running: nothing to do until the kubelet ends the driver (RunKubelet requeued for that).
  }

  // With simulated executors and instanceConfig.initExecutors: whether the app still waits for
  // enough of them to be ready (InitializedBelowThresholdExecutors once some are), until the
  // executor start timeout.
  bool WaitForExecutors() {
    if (conf_.executor_instances == 0 || tol_.init_executors <= 0) return false;
    if (ready_executors_ >= tol_.init_executors) return false;
    if (tol_.executor_start_timeout_ms > 0 &&
        now_ >= Due(state_time_, tol_.executor_start_timeout_ms)) {
      Transition("ExecutorsStartTimedOut", kExecutorsStartTimedOutMsg);
      Requeue(Due(now_, kStepMs));
      return true;
    }
    if (ready_executors_ > 0 && state_ == "DriverReady") {
      Transition("InitializedBelowThresholdExecutors", kBelowThresholdMsg);
    }
    if (tol_.executor_start_timeout_ms > 0) {
      Requeue(Due(state_time_, tol_.executor_start_timeout_ms));
    }
    return true;
  }

  // Operator 1.1: no status while held; a SuspendHeld event per republish period.
  void HoldWithoutStatus(const json::object* meta) {
    int64_t created =
        meta != nullptr ? ParseTime(StringAt(*meta, "creationTimestamp")).value_or(now_) : now_;
    int64_t period_ms = internal::ScaledMs(v1_1::kSuspendHeldRepublishMs, options_.time_scale);
    int64_t period = period_ms > 0 ? std::max<int64_t>(0, now_ - created) / period_ms : 0;
    actions_.events.push_back(v1_1::SuspendHeldEvent(app_, hold_, period, created, now_));
    Requeue(created + (period + 1) * period_ms);
    if (hold_ == v1_1::kKueueEviction) KueuePending(created, "created");
  }

  // Operator 1.1: a queued app waiting for admission since `since` republishes
  // KueueAdmissionPending, one event per wait (`episode`).
  void KueuePending(int64_t since, const std::string& episode) {
    const int64_t period_ms =
        internal::ScaledMs(v1_1::kKueuePendingRepublishMs, options_.time_scale);
    const int64_t period = period_ms > 0 ? std::max<int64_t>(0, now_ - since) / period_ms : 0;
    actions_.events.push_back(v1_1::KueueAdmissionPendingEvent(app_, episode, period, since, now_));
    Requeue(since + (period + 1) * period_ms);
  }

  // Operator 1.1's suspend and resume; true when it took this pass.
  bool SuspendStep() {
    if (state_ == "Suspended") {
      if (driver_ != nullptr || !view_.pods.empty()) {
        // Whatever the retain policy: a suspended attempt keeps no pods.
        DeleteAllPods();
        if (!actions_.delete_pods.empty()) return true;
      }
      if (!hold_.empty()) {  // stays suspended until resumed
        if (hold_ == v1_1::kKueueEviction) {
          KueuePending(state_time_, std::to_string(attempt_) + "|" + state_);
        }
        return true;
      }
      // Resume: a new attempt from Submitted, without backoff and outside the restart limits.
      const json::object* current = ObjectAt(&status_, "currentState");
      if (current != nullptr && StringAt(*current, "suspendReason") == v1_1::kKueueEviction) {
        actions_.events.push_back(v1_1::KueueAdmittedEvent(app_, Increment(attempt_), now_));
      }
      status_ =
          v1_1::ResumedStatus(status_, NextKey(), internal::FormatStatusTime(now_), kSubmittedMsg);
      state_ = "Submitted";
      state_time_ = now_;
      dirty_ = true;
      Requeue(Due(now_, kStepMs));
      return true;
    }
    if (hold_.empty()) return false;
    // Held before the driver is requested: the app waits where it is.
    if (state_ == "Submitted" || state_ == "ScheduledToRestart") {
      if (hold_ == v1_1::kKueueEviction) {
        KueuePending(state_time_, std::to_string(attempt_) + "|" + state_);
      }
      return true;
    }
    if (IsStarting(state_) || IsRunning(state_)) {
      RunKubelet();
      if (driver_ != nullptr && DriverStage() == PodStage::kTerminated) {
        return false;  // the driver already ended: the attempt ends as usual
      }
      Transition("Suspended", v1_1::SuspendedMessage(hold_), nullptr);
      for (json::value* state :
           {&status_["currentState"], &History()[std::to_string(NextKey() - 1)]}) {
        if (state->is_object()) state->as_object()["suspendReason"] = hold_;
      }
      Requeue(Due(now_, kStepMs));
      return true;
    }
    return false;
  }

  // Whether the driver container ever ran (running now, or terminated after a start).
  bool EverStarted() const {
    const json::value* cs = driver_status_.if_contains("containerStatuses");
    if (cs == nullptr || !cs->is_array()) return false;
    for (const auto& c : cs->as_array()) {
      if (!c.is_object()) continue;
      const json::object* state = ObjectAt(&c.as_object(), "state");
      if (ObjectAt(state, "running") != nullptr) return true;
      const json::object* terminated = ObjectAt(state, "terminated");
      if (terminated != nullptr && terminated->contains("startedAt")) return true;
    }
    return false;
  }

  const AppView& view_;
  const Options& options_;
  const json::object& app_;
  const int64_t now_;
  JobConf conf_;  // a failed dependency fetch turns its outcome to kFail
  const Tolerations tol_;
  Actions actions_;
  json::object status_;
  bool has_state_ = false;
  bool dirty_ = false;
  std::string state_;
  int64_t state_time_ = 0;
  int64_t attempt_ = 0;
  std::string driver_name_;
  const json::object* driver_ = nullptr;
  std::vector<const json::object*> executors_;  // the attempt's
  int64_t ready_executors_ = 0;
  bool v1_1_ = false;
  std::string hold_;  // operator 1.1: why the app must be held now (v1_1::HoldReason)
  json::object driver_status_;
  std::optional<Timeline> timeline_;
};

}  // namespace

Actions Reconcile(const AppView& view, const Options& options) {
  if (view.app == nullptr) return {};
  return Reconciler(view, options).Run();
}

}  // namespace kubesim::op
