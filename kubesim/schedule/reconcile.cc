// The ScheduledSparkApplication reconcile, in the operator's order: suspend, time zone, schedule,
// then by scheduleState.

#include <algorithm>
#include <cstdint>

#include "kubesim/schedule/cron.h"
#include "kubesim/schedule/schedule.h"
#include "kubesim/sim/clock.h"
#include "kubesim/sim/json_access.h"

namespace kubesim::schedule {
namespace {

namespace json = boost::json;
using sim::ObjectAt;
using sim::StringAt;

constexpr const char* kApiVersion = "sparkoperator.k8s.io/v1beta2";
constexpr const char* kStateScheduled = "Scheduled";
constexpr const char* kStateFailedValidation = "FailedValidation";

const json::object& Meta(const json::object& o) {
  static const json::object kEmpty;
  const json::object* m = ObjectAt(o, "metadata");
  return m != nullptr ? *m : kEmpty;
}

// metav1.Time on the wire: whole seconds, UTC; Go's zero time as null.
json::value TimeValue(absl::Time t) {
  if (t == absl::InfinitePast()) return nullptr;
  return json::string(sim::FormatTime(absl::ToUnixSeconds(t) * 1000, false));
}

absl::Time TimeAt(const json::object& o, std::string_view key) {
  std::optional<int64_t> ms = sim::ParseTime(StringAt(o, key));
  // Read back as the API returns it: truncated to the second.
  return ms ? absl::FromUnixSeconds(*ms >= 0 ? *ms / 1000 : (*ms - 999) / 1000)
            : absl::InfinitePast();
}

std::string RunState(const json::object& run) {
  const json::object* state = ObjectAt(ObjectAt(&run, "status"), "applicationState");
  return state != nullptr ? StringAt(*state, "state") : std::string();
}

bool Finished(const std::string& state) { return state == "COMPLETED" || state == "FAILED"; }

// The runs newest first, by creationTimestamp; its seconds often tie, and the names (which end
// in the start time) break the ties.
std::vector<const json::object*> NewestFirst(std::vector<const json::object*> runs) {
  std::sort(runs.begin(), runs.end(), [](const json::object* a, const json::object* b) {
    const absl::Time ta = TimeAt(Meta(*a), "creationTimestamp");
    const absl::Time tb = TimeAt(Meta(*b), "creationTimestamp");
    if (ta != tb) return ta > tb;
    return StringAt(Meta(*a), "name") > StringAt(Meta(*b), "name");
  });
  return runs;
}

// An int32 spec field defaulting to 1, as the operator reads its pointers.
int64_t Limit(const json::object& spec, std::string_view key) {
  const json::value* v = spec.if_contains(key);
  if (v == nullptr || !v->is_number()) return 1;
  return v->is_int64() ? v->get_int64() : static_cast<int64_t>(v->to_number<double>());
}

class Reconciler {
 public:
  Reconciler(const View& view, const Options& options)
      : view_(view),
        options_(options),
        app_(*view.app),
        name_(StringAt(Meta(app_), "name")),
        now_(view.now) {
    static const json::object kEmpty;
    const json::object* spec = ObjectAt(app_, "spec");
    spec_ = spec != nullptr ? spec : &kEmpty;
    if (const json::object* status = ObjectAt(app_, "status")) old_status_ = *status;
    status_ = old_status_;
  }

  Actions Run() {
    const json::value* suspend = spec_->if_contains("suspend");
    if (suspend != nullptr && suspend->is_bool() && suspend->get_bool()) return std::move(actions_);
    std::string tz = StringAt(*spec_, "timeZone");
    if (tz.empty()) tz = "Local";
    std::string error;
    if (!LoadLocation(tz, options_.local, &error)) return Fail("Invalid timezone: " + error);
    std::string spec = StringAt(*spec_, "schedule");
    if (!spec.starts_with("CRON_TZ=") && !spec.starts_with("TZ=")) {
      spec = "CRON_TZ=" + tz + " " + spec;
    }
    CronParse parsed = ParseStandard(spec, options_.local);
    if (parsed.error_kind == CronError::kPanic) {
      actions_.error = parsed.error;
      return std::move(actions_);
    }
    if (!parsed.schedule) return Fail(parsed.error);
    schedule_ = &*parsed.schedule;
    const std::string state = StringAt(status_, "scheduleState");
    if (state.empty()) {
      New();
    } else if (state == kStateScheduled) {
      Scheduled();
    }
    // FailedValidation stays so; Validating is never set by v2.5.2 and, like any other value,
    // gets nothing.
    return std::move(actions_);
  }

 private:
  Actions Fail(const std::string& reason) {
    status_["scheduleState"] = kStateFailedValidation;
    status_["reason"] = reason;
    WriteStatus();
    return std::move(actions_);
  }

  void New() {
    absl::Time next = TimeAt(status_, "nextRun");
    // An earlier time from an edited schedule wins over one already set.
    const absl::Time updated = schedule_->Next(now_);
    if (next == absl::InfinitePast() || updated < next) next = updated;
    status_["nextRun"] = TimeValue(next);
    status_["scheduleState"] = kStateScheduled;
    WriteStatus();
    RequeueAt(next);
  }

  void Scheduled() {
    const absl::Time next = TimeAt(status_, "nextRun");
    if (next == absl::InfinitePast()) {
      const absl::Time computed = schedule_->Next(now_);
      status_["nextRun"] = TimeValue(computed);
      WriteStatus();
      RequeueAt(computed);
      return;
    }
    if (next > now_) {
      RequeueAt(next);
      return;
    }
    std::vector<const json::object*> runs = NewestFirst(view_.runs);
    if (!ShouldStartNextRun(&runs)) {
      // nextRun stays in the past: the next reconcile tries again.
      RequeueAt(schedule_->Next(now_));
      return;
    }
    const std::string run_name = RunName(name_, now_, options_.precision);
    actions_.create_run = BuildRun(run_name);
    status_["lastRun"] = TimeValue(now_);
    status_["lastRunName"] = run_name;
    const absl::Time following = schedule_->Next(now_);
    status_["nextRun"] = TimeValue(following);
    if (!KeepHistory(runs)) return;
    WriteStatus();
    RequeueAt(following);
  }

  // `runs` newest first; a run Replace deletes leaves the list.
  bool ShouldStartNextRun(std::vector<const json::object*>* runs) {
    if (runs->empty()) return true;
    const std::string policy = StringAt(*spec_, "concurrencyPolicy");
    if (policy == "Allow") return true;
    const std::string newest_state = RunState(*runs->front());
    if (policy == "Forbid") return Finished(newest_state);
    if (policy == "Replace") {
      if (!Finished(newest_state)) {
        actions_.delete_runs.push_back(StringAt(Meta(*runs->front()), "name"));
        runs->erase(runs->begin());
      }
      return true;
    }
    return false;
  }

  // Prunes finished runs beyond the limits and lists the rest. False: a negative limit, on which
  // the operator panics after whatever pruning came before.
  bool KeepHistory(const std::vector<const json::object*>& runs) {
    std::vector<std::string> completed;
    std::vector<std::string> failed;
    for (const json::object* run : runs) {
      const std::string state = RunState(*run);
      if (state == "COMPLETED") completed.push_back(StringAt(Meta(*run), "name"));
      if (state == "FAILED") failed.push_back(StringAt(Meta(*run), "name"));
    }
    return Keep(completed, Limit(*spec_, "successfulRunHistoryLimit"), "pastSuccessfulRunNames") &&
           Keep(failed, Limit(*spec_, "failedRunHistoryLimit"), "pastFailedRunNames");
  }

  bool Keep(std::vector<std::string> names, int64_t limit, const char* field) {
    if (limit < 0) {
      actions_.error = "runtime error: slice bounds out of range [:" + std::to_string(limit) + "]";
      return false;
    }
    if (static_cast<int64_t>(names.size()) > limit) {
      actions_.prune_runs.insert(actions_.prune_runs.end(), names.begin() + limit, names.end());
      names.resize(limit);
    }
    if (names.empty()) {
      status_.erase(field);
    } else {
      json::array list;
      for (std::string& n : names) list.emplace_back(std::move(n));
      status_[field] = std::move(list);
    }
    return true;
  }

  json::object BuildRun(const std::string& run_name) const {
    json::object labels{{kLabelScheduledAppName, name_}};
    // The schedule's own labels come after, as the operator copies them (annotations never).
    if (const json::object* own = ObjectAt(ObjectAt(&app_, "metadata"), "labels")) {
      for (const auto& [k, v] : *own) labels[k] = v;
    }
    json::object owner{{"apiVersion", kApiVersion},
                       {"kind", "ScheduledSparkApplication"},
                       {"name", name_},
                       {"uid", StringAt(Meta(app_), "uid")},
                       {"blockOwnerDeletion", true}};
    json::object meta{{"name", run_name},
                      {"namespace", StringAt(Meta(app_), "namespace")},
                      {"labels", std::move(labels)},
                      {"ownerReferences", json::array{std::move(owner)}}};
    const json::value* tmpl = spec_->if_contains("template");
    return json::object{{"apiVersion", kApiVersion},
                        {"kind", "SparkApplication"},
                        {"metadata", std::move(meta)},
                        {"spec", tmpl != nullptr ? *tmpl : json::value(json::object())}};
  }

  // Go's status struct always carries both times (null when zero).
  void WriteStatus() {
    if (!status_.contains("lastRun")) status_["lastRun"] = nullptr;
    if (!status_.contains("nextRun")) status_["nextRun"] = nullptr;
    if (status_ != old_status_) actions_.status = status_;
  }

  // Go's RequeueAfter with a zero or negative wait (a schedule that never fires) is no requeue.
  void RequeueAt(absl::Time at) {
    if (at > now_) actions_.requeue_at = at;
  }

  const View& view_;
  const Options& options_;
  const json::object& app_;
  const std::string name_;
  const absl::Time now_;
  const json::object* spec_ = nullptr;
  json::object old_status_;
  json::object status_;
  const CronSchedule* schedule_ = nullptr;
  Actions actions_;
};

}  // namespace

std::string RunName(const std::string& scheduled_name, absl::Time at, Precision precision) {
  int64_t stamp = 0;
  switch (precision) {
    case Precision::kNanos:
      stamp = absl::ToUnixNanos(at);
      break;
    case Precision::kMicros:
      stamp = absl::ToUnixMicros(at);
      break;
    case Precision::kMillis:
      stamp = absl::ToUnixMillis(at);
      break;
    case Precision::kSeconds:
      stamp = absl::ToUnixSeconds(at);
      break;
    case Precision::kMinutes:
      stamp = absl::ToUnixSeconds(at) / 60;
      break;
  }
  return scheduled_name + "-" + std::to_string(stamp);
}

Actions Reconcile(const View& view, const Options& options) {
  return Reconciler(view, options).Run();
}

}  // namespace kubesim::schedule
