#include "kubesim/operator/driver_wait.h"

#include <algorithm>

#include "kubesim/sim/clock.h"
#include "kubesim/sim/json_access.h"
#include "kubesim/sim/kubelet.h"
#include "kubesim/sim/nodes.h"

namespace kubesim::op::internal {
namespace {

namespace json = boost::json;
using sim::ObjectAt;
using sim::StringAt;

// When the driver container started, by its status (whole seconds), if it did.
std::optional<int64_t> StartedAt(const json::object& pod, const std::string& container) {
  const json::object* status = ObjectAt(pod, "status");
  const json::value* cs = status != nullptr ? status->if_contains("containerStatuses") : nullptr;
  if (cs == nullptr || !cs->is_array()) return std::nullopt;
  for (const json::value& c : cs->as_array()) {
    if (!c.is_object() || StringAt(c.as_object(), "name") != container) continue;
    const json::object* state = ObjectAt(c.as_object(), "state");
    const json::object* at = ObjectAt(state, "running");
    if (at == nullptr) at = ObjectAt(state, "terminated");
    if (at != nullptr) return sim::ParseTime(StringAt(*at, "startedAt"));
  }
  return std::nullopt;
}

}  // namespace

DriverWait CheckDriverWait(const JobConf& conf, int64_t attempt, const json::object& driver,
                           int64_t requested_ms, int64_t now_ms, const sim::ObjectLookup& lookup,
                           double time_scale, sim::Actions* actions) {
  DriverWait wait;
  const PodStage shown = StageOf(driver, conf.driver_container);
  const json::object* spec = ObjectAt(driver, "spec");
  if (shown == PodStage::kPending && (spec == nullptr || StringAt(*spec, "nodeName").empty())) {
    // The scheduler retries it, and says so again.
    wait.held = true;
    wait.next_ms =
        sim::AppendFailedScheduling(driver, requested_ms, now_ms, time_scale, &actions->events);
    return wait;
  }
  const sim::KubeletVerdict v = sim::KubeletCheck(driver, requested_ms, now_ms, lookup, time_scale);
  if (v.hold.kind == sim::HoldKind::kNone) {
    wait.delay_ms = v.delay_ms;
    if (shown == PodStage::kPending) wait.next_ms = v.next_ms;
    return wait;
  }
  if (shown != PodStage::kPending) {
    // What held it is gone again (a Secret deleted since): its start tells how late it was.
    const int64_t pull = sim::ScaledMs(sim::kKubeletPullMs, time_scale);
    std::optional<int64_t> started = StartedAt(driver, conf.driver_container);
    wait.delay_ms = started ? std::max<int64_t>(0, *started - requested_ms - pull) : 0;
    return wait;
  }
  wait.held = true;
  wait.next_ms = v.next_ms;
  const Timeline t = DriverTimeline(conf, attempt, requested_ms, time_scale);
  json::object status = DriverPodStatus(conf, attempt, t, PodStage::kPending);
  sim::ApplyHold(v.hold, &status);
  const json::object* current = ObjectAt(driver, "status");
  if (current == nullptr || *current != status) {
    actions->pod_status.push_back({StringAt(*ObjectAt(driver, "metadata"), "name"), status});
  }
  wait.status = std::move(status);
  sim::AppendHoldEvents(driver, v.hold, &actions->events);
  return wait;
}

}  // namespace kubesim::op::internal
