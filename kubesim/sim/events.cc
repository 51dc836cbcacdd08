#include "kubesim/sim/events.h"

#include "kubesim/sim/clock.h"
#include "kubesim/sim/ids.h"
#include "kubesim/sim/json_access.h"

namespace kubesim::sim {
namespace {

namespace json = boost::json;

uint64_t Hash(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

const json::object& Spec(const json::object& pod) {
  static const json::object kEmpty;
  const json::object* spec = ObjectAt(pod, "spec");
  return spec != nullptr ? *spec : kEmpty;
}

// The pod's containers as (name, image), in spec order.
std::vector<std::pair<std::string, std::string>> Containers(const json::object& pod) {
  std::vector<std::pair<std::string, std::string>> out;
  const json::value* cs = Spec(pod).if_contains("containers");
  if (cs == nullptr || !cs->is_array()) return out;
  for (const json::value& c : cs->get_array()) {
    if (!c.is_object()) continue;
    out.emplace_back(StringAt(c.get_object(), "name"), StringAt(c.get_object(), "image"));
  }
  return out;
}

// What makes a pod's events its own: a namesake created later is another pod. The scheduler's
// events are recorded first as the pod is created, before it has a creationTimestamp, and again
// as it retries: they go by the annotations alone.
std::string PodKey(const json::object& pod, bool with_creation = true) {
  const json::object* meta = ObjectAt(pod, "metadata");
  std::string key = meta != nullptr && with_creation ? StringAt(*meta, "creationTimestamp") : "";
  if (const json::object* a = ObjectAt(meta, "annotations")) {
    for (const auto& kv : *a) {
      if (kv.value().is_string()) key += "|" + std::string(kv.value().get_string());
    }
  }
  return key;
}

}  // namespace

EventSpec KubeletSpec(const json::object& pod, std::string reason, std::string message,
                      const std::string& key, int64_t at_ms) {
  EventSpec spec;
  spec.reason = std::move(reason);
  spec.message = std::move(message);
  spec.source = {kKubelet, StringAt(Spec(pod), "nodeName")};
  spec.key = PodKey(pod) + "|" + key;
  spec.first_ms = at_ms;
  return spec;
}

namespace {

// A plausible compressed size for an image, stable per image.
int64_t ImageSize(const std::string& image) {
  return 200'000'000 + static_cast<int64_t>(Hash(image) % 400'000'000);
}

}  // namespace

json::object MakeEvent(const Involved& involved, const EventSpec& spec) {
  const std::string id = Hex(Hash(involved.kind + "|" + involved.ns + "|" + involved.name + "|" +
                                  spec.reason + "|" + spec.key),
                             16);
  json::object obj{{"apiVersion", involved.api_version},
                   {"kind", involved.kind},
                   {"name", involved.name},
                   {"namespace", involved.ns},
                   {"uid", involved.uid}};
  if (!involved.resource_version.empty()) obj["resourceVersion"] = involved.resource_version;
  if (!involved.field_path.empty()) obj["fieldPath"] = involved.field_path;
  json::object source{{"component", spec.source.component}};
  if (!spec.source.host.empty()) source["host"] = spec.source.host;
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", json::object{{"name", involved.name + "." + id}, {"namespace", involved.ns}}},
      {"involvedObject", std::move(obj)},
      {"reason", spec.reason},
      {"message", spec.message},
      {"type", spec.type},
      {"source", std::move(source)},
      {"reportingComponent", spec.source.component},
      {"reportingInstance", spec.source.host},
      {"firstTimestamp", FormatTime(spec.first_ms, false)},
      {"lastTimestamp", FormatTime(spec.last_ms != 0 ? spec.last_ms : spec.first_ms, false)},
      {"count", spec.count},
      {"eventTime", nullptr}};
}

Involved PodInvolved(const json::object& pod, const std::string& container) {
  Involved i;
  i.api_version = "v1";
  i.kind = "Pod";
  if (const json::object* meta = ObjectAt(pod, "metadata")) {
    i.ns = StringAt(*meta, "namespace");
    i.name = StringAt(*meta, "name");
    i.uid = StringAt(*meta, "uid");
    i.resource_version = StringAt(*meta, "resourceVersion");
  }
  if (!container.empty()) i.field_path = "spec.containers{" + container + "}";
  return i;
}

void AppendScheduleEvents(const json::object& pod, int64_t at_ms, std::vector<json::object>* out) {
  AppendFailedSchedulingEvent(pod, at_ms, at_ms, 1, out);
}

void AppendFailedSchedulingEvent(const json::object& pod, int64_t first_ms, int64_t last_ms,
                                 int64_t count, std::vector<json::object>* out) {
  const std::string node = StringAt(Spec(pod), "nodeName");
  const Involved involved = PodInvolved(pod);
  EventSpec spec;
  spec.source = {kScheduler, ""};
  spec.key = PodKey(pod, false);
  spec.first_ms = first_ms;
  spec.last_ms = last_ms;
  spec.count = count;
  if (!node.empty()) {
    spec.reason = "Scheduled";
    spec.message = "Successfully assigned " + involved.ns + "/" + involved.name + " to " + node;
  } else {
    // The scheduler's message is the one it writes into the PodScheduled condition.
    spec.reason = "FailedScheduling";
    spec.type = "Warning";
    const json::object* status = ObjectAt(pod, "status");
    const json::value* conditions = status != nullptr ? status->if_contains("conditions") : nullptr;
    if (conditions != nullptr && conditions->is_array()) {
      for (const json::value& c : conditions->get_array()) {
        if (c.is_object() && StringAt(c.get_object(), "type") == "PodScheduled") {
          spec.message = StringAt(c.get_object(), "message");
        }
      }
    }
  }
  out->push_back(MakeEvent(involved, spec));
}

void AppendStartEvents(const json::object& pod, int64_t pull_from_ms, int64_t started_ms,
                       bool images_present, std::vector<json::object>* out) {
  const auto containers = Containers(pod);
  if (containers.empty()) return;
  // The kubelet pulls one image at a time: each container's pull takes its share of the wait.
  const int64_t share =
      std::max<int64_t>(0, started_ms - pull_from_ms) / static_cast<int64_t>(containers.size());
  int64_t at = pull_from_ms;
  for (const auto& [name, image] : containers) {
    AppendPullEvents(pod, name, image, at, at + share, images_present, out);
    if (!images_present) at += share;
  }
  for (const auto& [name, image] : containers) {
    const Involved involved = PodInvolved(pod, name);
    out->push_back(MakeEvent(
        involved, KubeletSpec(pod, "Created", "Created container: " + name, name, started_ms)));
    out->push_back(MakeEvent(
        involved, KubeletSpec(pod, "Started", "Started container " + name, name, started_ms)));
  }
}

void AppendPullEvents(const json::object& pod, const std::string& container,
                      const std::string& image, int64_t from_ms, int64_t to_ms, bool present,
                      std::vector<json::object>* out) {
  const Involved involved = PodInvolved(pod, container);
  if (present) {
    out->push_back(MakeEvent(
        involved,
        KubeletSpec(pod, "Pulled", "Container image \"" + image + "\" already present on machine",
                    container, from_ms)));
    return;
  }
  out->push_back(MakeEvent(involved, KubeletSpec(pod, "Pulling", "Pulling image \"" + image + "\"",
                                                 container, from_ms)));
  const std::string took = GoDuration(std::max<int64_t>(0, to_ms - from_ms));
  out->push_back(
      MakeEvent(involved, KubeletSpec(pod, "Pulled",
                                      "Successfully pulled image \"" + image + "\" in " + took +
                                          " (" + took + " including waiting). Image size: " +
                                          std::to_string(ImageSize(image)) + " bytes.",
                                      container, to_ms)));
}

void AppendKillingEvents(const json::object& pod, int64_t at_ms, std::vector<json::object>* out) {
  const json::object* status = ObjectAt(pod, "status");
  const json::value* cs = status != nullptr ? status->if_contains("containerStatuses") : nullptr;
  if (cs == nullptr || !cs->is_array()) return;
  for (const json::value& c : cs->get_array()) {
    if (!c.is_object() || ObjectAt(ObjectAt(c.get_object(), "state"), "running") == nullptr) {
      continue;
    }
    const std::string name = StringAt(c.get_object(), "name");
    out->push_back(
        MakeEvent(PodInvolved(pod, name),
                  KubeletSpec(pod, "Killing", "Stopping container " + name, name, at_ms)));
  }
}

void AppendEvictedEvent(const json::object& pod, const std::string& message, int64_t at_ms,
                        std::vector<json::object>* out) {
  EventSpec spec = KubeletSpec(pod, "Evicted", message, "", at_ms);
  spec.type = "Warning";
  out->push_back(MakeEvent(PodInvolved(pod), spec));
}

std::string GoDuration(int64_t ms) {
  if (ms < 1000) return std::to_string(ms) + "ms";
  std::string s = std::to_string(ms / 1000);
  if (int64_t frac = ms % 1000; frac != 0) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), ".%03lld", static_cast<long long>(frac));
    std::string f = buf;
    while (f.back() == '0') f.pop_back();
    s += f;
  }
  return s + "s";
}

}  // namespace kubesim::sim
