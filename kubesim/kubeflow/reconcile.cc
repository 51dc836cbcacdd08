// The state machine of the Kubeflow operator's SparkApplication controller, one state per pass.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "kubesim/kubeflow/app.h"
#include "kubesim/kubeflow/kubeflow.h"
#include "kubesim/kubeflow/pods.h"
#include "kubesim/sim/clock.h"
#include "kubesim/sim/events.h"

namespace kubesim::kubeflow {
namespace internal {
namespace {

namespace json = boost::json;

// Operator-time delay between the passes of a transient state (SUCCEEDING, FAILING, ...): the
// real operator requeues at once; a little time lets clients watch each state.
constexpr int64_t kStepMs = 200;
constexpr int kWebUIPort = 4040;

// The cluster IP a Service of that name would get: stable per name, inside kubeadm's default
// service range 10.96.0.0/12, never its network or broadcast address.
std::string ClusterIp(const std::string& ns, const std::string& service) {
  uint32_t hash = 2166136261u;
  for (char c : ns + "/" + service) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  uint32_t host = hash % ((1u << 20) - 2) + 1;
  return "10." + std::to_string(96 + (host >> 16)) + "." + std::to_string((host >> 8) & 255) + "." +
         std::to_string(host & 255);
}

bool IsTerminated(const std::string& s) { return s == kCompleted || s == kFailed; }

std::string ExecutorStateOf(const json::object& pod) {
  const json::object* status = ObjectAt(&pod, "status");
  std::string phase = status != nullptr ? StringAt(*status, "phase") : "";
  if (phase == "Pending" || phase.empty()) return "PENDING";
  if (phase == "Running") return "RUNNING";
  if (phase == "Succeeded") return "COMPLETED";
  if (phase == "Failed") return "FAILED";
  return "UNKNOWN";
}

const json::object* DriverTerminated(const json::object& pod) {
  const json::object* status = ObjectAt(&pod, "status");
  const json::value* cs = status != nullptr ? status->if_contains("containerStatuses") : nullptr;
  if (cs == nullptr || !cs->is_array()) return nullptr;
  for (const json::value& c : cs->get_array()) {
    if (!c.is_object() || StringAt(c.get_object(), "name") != kDriverContainer) continue;
    return ObjectAt(ObjectAt(&c.get_object(), "state"), "terminated");
  }
  return nullptr;
}

int64_t ExitCode(const json::object* terminated) {
  const json::value* v = terminated != nullptr ? terminated->if_contains("exitCode") : nullptr;
  return v != nullptr && v->is_int64() ? v->get_int64() : -1;
}

class Pass {
 public:
  Pass(const sim::AppView& view, const Options& options)
      : app_(*view.app),
        options_(options),
        now_(view.now_ms),
        job_(ReadJob(app_)),
        old_(ReadStatus(app_)),
        status_(old_),
        lookup_(view.lookup),
        fetch_(view.fetch) {
    for (const json::object* p : view.pods) {
      if (p != nullptr) pods_.push_back(*p);
    }
  }

  sim::Actions Run() {
    if (std::optional<int64_t> at =
            RunKubelet(job_, old_, options_, now_, lookup_, &pods_, &actions_, fetch_)) {
      Due(*at);
    }
    if (job_.deleting) {
      // No finalizer: garbage collection takes the pods; the operator deletes the driver too,
      // and writes nothing more.
      DeleteDriver();
      actions_.requeue_at_ms = due_;
      return std::move(actions_);
    }
    if (!old_.present) {
      Event("SparkApplicationAdded",
            "SparkApplication " + job_.name + " was added, enqueuing it for submission", "Normal",
            job_.uid);
    }
    if (job_.recorded_spec_hash != job_.spec_hash) {
      actions_.set_annotations[kSpecHashAnnotation] = job_.spec_hash;
      // A status without a recorded hash is one written before kubesim recorded it: as after
      // an operator restart, nothing is compared.
      if (old_.present && !job_.recorded_spec_hash.empty() && old_.state != kInvalidating) {
        status_.state = kInvalidating;
        status_.error_message.clear();
        return Finish();
      }
    }
    const std::string& s = old_.state;
    if (job_.suspend && !IsTerminated(s) && s != kSuspending && s != kSuspended &&
        s != kInvalidating) {
      Enter(kSuspending, "SparkApplicationSuspending", "Normal");
      return Finish();
    }
    if (s == kNew) {
      Submit();
    } else if (s == kSubmitted || s == kRunning || s == kUnknown) {
      ObserveDriver();
    } else if (s == kSucceeding) {
      Succeeding();
    } else if (s == kFailing) {
      Failing();
    } else if (s == kSubmissionFailed) {
      SubmissionFailed();
    } else if (s == kPendingRerun || s == kResuming) {
      if (OldDriverGone()) Submit();
    } else if (s == kInvalidating) {
      DeleteDriver();
      ResetForRerun(true);
      Enter(kPendingRerun, "SparkApplicationPendingRerun", "Normal");
    } else if (s == kSuspending) {
      DeleteDriver();
      Enter(kSuspended, "SparkApplicationSuspended", "Normal");
    } else if (s == kSuspended) {
      if (!job_.suspend) Enter(kResuming, "SparkApplicationResuming", "Normal");
    } else if (IsTerminated(s)) {
      Terminated();
    }
    return Finish();
  }

 private:
  void Due(int64_t at) { due_ = due_ ? std::min(*due_, at) : at; }
  int64_t Scaled(int64_t ms) const { return sim::ScaledMs(ms, options_.time_scale); }

  sim::Actions Finish() {
    if (!old_.present ||
        json::serialize(StatusJson(status_)) != json::serialize(StatusJson(old_))) {
      actions_.status = StatusJson(status_);
      // The new state is handled by the next pass.
      if (status_.state != old_.state) Due(now_ + Scaled(kStepMs));
    }
    actions_.requeue_at_ms = due_;
    return std::move(actions_);
  }

  void Event(const std::string& reason, const std::string& message, const char* type,
             const std::string& key) {
    sim::Involved app{kApiVersion, "SparkApplication", job_.ns, job_.name, job_.uid, "", ""};
    sim::EventSpec spec;
    spec.reason = reason;
    spec.message = message;
    spec.type = type;
    spec.source = {kComponent, ""};
    spec.key = job_.uid + "|" + key;
    spec.first_ms = now_;
    actions_.events.push_back(sim::MakeEvent(app, spec));
  }

  // The key that makes an event of one state once per occurrence.
  std::string OccurrenceKey() const {
    return status_.submission_id + "|" + std::to_string(status_.submission_attempts) + "|" +
           std::to_string(status_.execution_attempts) + "|" + old_.state;
  }

  void Enter(const char* state, const char* reason, const char* type,
             const std::string& message = "") {
    status_.state = state;
    std::string text = message;
    if (text.empty()) {
      std::string s = state;
      std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) {
        return c == '_' ? ' ' : static_cast<char>(std::tolower(c));
      });
      text = "SparkApplication " + job_.name + " is " + s;
    }
    Event(reason, text, type, OccurrenceKey());
  }

  const json::object* FindPod(const std::string& name) const {
    for (const json::object& p : pods_) {
      if (StringAt(*ObjectAt(&p, "metadata"), "name") == name) return &p;
    }
    return nullptr;
  }

  // The run's driver: the status's pod, not being deleted.
  const json::object* Driver() const {
    const json::object* p =
        FindPod(status_.pod_name.empty() ? job_.driver_pod_name : status_.pod_name);
    return p != nullptr && !IsDeleting(*p) ? p : nullptr;
  }

  void DeleteDriver() {
    for (const std::string& name : {status_.pod_name, job_.driver_pod_name}) {
      const json::object* p = name.empty() ? nullptr : FindPod(name);
      if (p == nullptr || IsDeleting(*p)) continue;
      if (std::find(actions_.delete_pods.begin(), actions_.delete_pods.end(), name) ==
          actions_.delete_pods.end()) {
        actions_.delete_pods.push_back(name);
      }
    }
  }

  // The previous run's driver must be gone before a resubmission may create its namesake.
  bool OldDriverGone() {
    bool gone = FindPod(job_.driver_pod_name) == nullptr;
    if (!gone) {
      DeleteDriver();
      Due(now_ + Scaled(kStepMs));
    }
    return gone;
  }

  void Submit() {
    const std::string id = SubmissionId(job_, status_);
    status_.submission_id = id;
    status_.submission_attempts += 1;
    status_.last_submission_ms = now_;
    status_.pod_name = job_.driver_pod_name;
    const json::object* existing = FindPod(job_.driver_pod_name);
    bool adopted = existing != nullptr && Label(*existing, kLabelSubmissionId) == id;
    std::string error;
    if (job_.outcome == Outcome::kSubmissionFail) {
      error =
          "failed to run spark-submit: Exception in thread \"main\" "
          "org.apache.spark.SparkException: kubesim: spark-submit failed as requested "
          "(kubesim.outcome=submission-fail)\n\tat org.apache.spark.deploy.SparkSubmit."
          "prepareSubmitEnvironment(SparkSubmit.scala:1007)\n\tat "
          "org.apache.spark.deploy.SparkSubmit.main(SparkSubmit.scala)";
    } else if (existing != nullptr && !adopted) {
      error = "failed to run spark-submit: driver pod " + job_.driver_pod_name + " already exist";
    }
    if (!error.empty()) {
      status_.error_message = error;
      Enter(kSubmissionFailed, "SparkApplicationSubmissionFailed", "Warning",
            "failed to submit SparkApplication " + job_.name + ": " + error);
      const RestartPolicy& rp = job_.restart;
      if (rp.type != "Never") {
        Due(now_ + Scaled(rp.on_submission_failure_interval_ms * status_.submission_attempts));
      }
      return;
    }
    status_.error_message.clear();
    status_.execution_attempts += 1;
    status_.ui_service_name = job_.name + "-ui-svc";
    status_.ui_port = kWebUIPort;
    status_.ui_address =
        ClusterIp(job_.ns, status_.ui_service_name) + ":" + std::to_string(kWebUIPort);
    if (!adopted) {
      actions_.create_pods.push_back(BuildDriverPod(job_, id, now_, options_.time_scale));
      sim::AppendScheduleEvents(actions_.create_pods.back(), now_, &actions_.events);
    }
    Enter(kSubmitted, "SparkApplicationSubmitted", "Normal",
          "SparkApplication " + job_.name + " was submitted successfully");
    Due(now_ + Scaled(options_.driver_pod_creation_grace_ms) + 1000);
  }

  // executorState from the run's executor pods; executors gone are judged by the app's state.
  void UpdateExecutors(bool driver_running) {
    std::map<std::string, std::string> next;
    for (const json::object& p : pods_) {
      if (Label(p, kLabelRole) != "executor" ||
          Label(p, kLabelSubmissionId) != status_.submission_id) {
        continue;
      }
      next[StringAt(*ObjectAt(&p, "metadata"), "name")] = ExecutorStateOf(p);
    }
    const std::string& s = status_.state;
    for (const auto& [name, state] : status_.executor_state) {
      if (next.contains(name)) continue;
      if (state == "COMPLETED" || state == "FAILED") {
        next[name] = state;
      } else if (s == kSucceeding || s == kCompleted) {
        next[name] = "COMPLETED";
      } else if (s == kFailing || s == kFailed) {
        next[name] = "FAILED";
      } else {
        next[name] = driver_running ? "UNKNOWN" : state;
      }
    }
    for (const auto& [name, state] : next) {
      auto old = status_.executor_state.find(name);
      if (old != status_.executor_state.end() && old->second == state) continue;
      std::string reason = "SparkExecutor" + std::string(1, state[0]) + [](std::string t) {
        std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) {
          return c == '_' ? ' ' : static_cast<char>(std::tolower(c));
        });
        return t;
      }(state.substr(1));
      Event(reason, "Executor " + name + " is " + state, state == "FAILED" ? "Warning" : "Normal",
            status_.submission_id + "|" + name + "|" + state);
    }
    status_.executor_state = std::move(next);
  }

  void ObserveDriver() {
    const json::object* d = Driver();
    if (d == nullptr) {
      int64_t deadline = status_.last_submission_ms.value_or(now_) + 999 +
                         Scaled(options_.driver_pod_creation_grace_ms);
      if (old_.state == kSubmitted && now_ < deadline) {
        Due(deadline);
        return;
      }
      status_.error_message = "driver pod not found";
      status_.termination_ms = now_;
      Event("SparkDriverNotFound", "Driver " + status_.pod_name + " not found", "Warning",
            OccurrenceKey());
      status_.state = kFailing;
      UpdateExecutors(false);
      return;
    }
    std::string app_id = Label(*d, kLabelAppSelector);
    for (const json::object& p : pods_) {
      // Spark's executors carry the id the driver registered: theirs wins.
      if (Label(p, kLabelRole) == "executor" &&
          Label(p, kLabelSubmissionId) == status_.submission_id &&
          !Label(p, kLabelAppSelector).empty()) {
        app_id = Label(p, kLabelAppSelector);
      }
    }
    if (!app_id.empty()) status_.app_id = app_id;
    const json::object* pst = ObjectAt(d, "status");
    std::string phase = pst != nullptr ? StringAt(*pst, "phase") : "";
    const json::object* terminated = DriverTerminated(*d);
    std::string next = kSubmitted;
    if (phase == "Running")
      next = terminated == nullptr ? kRunning : ExitCode(terminated) == 0 ? kSucceeding : kFailing;
    if (phase == "Succeeded") next = kSucceeding;
    if (phase == "Failed") next = ExitCode(terminated) == 0 ? kSucceeding : kFailing;
    if (phase == "Unknown") next = kUnknown;
    const std::string key = status_.submission_id + "|" + next;
    const std::string driver = "Driver " + status_.pod_name;
    if (next == kSubmitted && old_.app_id.empty() && !app_id.empty()) {
      Event("SparkDriverPending", driver + " is pending", "Normal", key);
    }
    if (next != old_.state) {
      if (next == kRunning) Event("SparkDriverRunning", driver + " is running", "Normal", key);
      if (next == kUnknown) {
        Event("SparkDriverUnknown", driver + " in unknown state", "Warning", key);
      }
      if (next == kSucceeding) {
        Event("SparkDriverCompleted", driver + " completed", "Normal", key);
      }
      if (next == kFailing) {
        std::string reason = terminated != nullptr ? StringAt(*terminated, "reason") : "";
        status_.error_message =
            "driver container failed with ExitCode: " + std::to_string(ExitCode(terminated)) +
            ", Reason: " + reason;
        Event("SparkDriverFailed", driver + " failed", "Warning", key);
      }
    }
    if ((next == kSucceeding || next == kFailing) && next != old_.state) {
      status_.termination_ms = now_;
    }
    status_.state = next;
    UpdateExecutors(next == kRunning);
  }

  bool ShouldRetry() const {
    const RestartPolicy& rp = job_.restart;
    if (rp.type == "Always") return true;
    if (rp.type != "OnFailure") return false;
    if (old_.state == kFailing) {
      return rp.on_failure_retries && status_.execution_attempts <= *rp.on_failure_retries;
    }
    if (old_.state == kSubmissionFailed) {
      return rp.on_submission_failure_retries &&
             status_.submission_attempts <= *rp.on_submission_failure_retries;
    }
    return false;
  }

  // Status reset on the way to PENDING_RERUN: a rerun keeps its execution count (the
  // OnFailure budget) unless the spec changed, which starts the count again.
  void ResetForRerun(bool invalidated) {
    status_.app_id.clear();
    status_.submission_attempts = 0;
    status_.last_submission_ms.reset();
    status_.pod_name.clear();
    status_.ui_service_name.clear();
    status_.ui_port = 0;
    status_.ui_address.clear();
    status_.error_message.clear();
    status_.executor_state.clear();
    if (invalidated) {
      status_.execution_attempts = 0;
      status_.termination_ms.reset();
    }
  }

  void Succeeding() {
    UpdateExecutors(false);
    if (job_.restart.type == "Always") {
      DeleteDriver();
      ResetForRerun(false);
      Enter(kPendingRerun, "SparkApplicationPendingRerun", "Normal");
      return;
    }
    Enter(kCompleted, "SparkApplicationCompleted", "Normal",
          "SparkApplication " + job_.name + " completed");
    ScheduleTtl();
  }

  void Failing() {
    UpdateExecutors(false);
    if (ShouldRetry()) {
      int64_t due = status_.termination_ms.value_or(now_) +
                    Scaled(job_.restart.on_failure_interval_ms * status_.execution_attempts);
      if (now_ < due) {
        Due(due);
        return;
      }
      DeleteDriver();
      ResetForRerun(false);
      Enter(kPendingRerun, "SparkApplicationPendingRerun", "Normal");
      return;
    }
    Enter(kFailed, "SparkApplicationFailed", "Warning",
          "SparkApplication " + job_.name + " failed: " + status_.error_message);
    ScheduleTtl();
  }

  void SubmissionFailed() {
    if (ShouldRetry()) {
      int64_t due =
          status_.last_submission_ms.value_or(now_) +
          Scaled(job_.restart.on_submission_failure_interval_ms * status_.submission_attempts);
      if (now_ < due) {
        Due(due);
        return;
      }
      Submit();
      return;
    }
    status_.termination_ms = now_;
    Enter(kFailed, "SparkApplicationFailed", "Warning",
          "SparkApplication " + job_.name + " failed: " + status_.error_message);
    ScheduleTtl();
  }

  void Terminated() {
    UpdateExecutors(false);
    ScheduleTtl();
  }

  void ScheduleTtl() {
    if (!job_.ttl_seconds || !status_.termination_ms) return;
    int64_t expiry = *status_.termination_ms + Scaled(*job_.ttl_seconds * 1000);
    if (now_ >= expiry && IsTerminated(old_.state)) {
      actions_.delete_app = true;
    } else {
      Due(std::max(expiry, now_ + Scaled(kStepMs)));
    }
  }

  const json::object& app_;
  const Options& options_;
  const int64_t now_;
  const Job job_;
  const Status old_;
  Status status_;
  const sim::ObjectLookup lookup_;
  const sim::DependencyFetch fetch_;
  std::vector<json::object> pods_;
  sim::Actions actions_;
  std::optional<int64_t> due_;
};

}  // namespace
}  // namespace internal

sim::Actions Reconcile(const sim::AppView& view, const Options& options) {
  if (view.app == nullptr) return {};
  return internal::Pass(view, options).Run();
}

}  // namespace kubesim::kubeflow
