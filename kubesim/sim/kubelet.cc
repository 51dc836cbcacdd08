#include "kubesim/sim/kubelet.h"

#include <algorithm>
#include <cctype>

#include "kubesim/sim/clock.h"
#include "kubesim/sim/events.h"
#include "kubesim/sim/json_access.h"

namespace kubesim::sim {
namespace {

namespace json = boost::json;

// A retry schedule: attempts at base, base + step(0), ... with step(i) = initial doubling up to
// max (initial == max: a fixed period), each in operator time.
struct Retry {
  int64_t initial_ms;
  int64_t max_ms;
};

constexpr Retry kImageRetry{kImageBackoffInitialMs, kImageBackoffMaxMs};
constexpr Retry kMountRetry{kMountRetryInitialMs, kMountRetryMaxMs};
constexpr Retry kConfigRetry{kConfigRetryMs, kConfigRetryMs};

// The wait after attempt i, and whether the schedule has reached its cap there.
std::pair<int64_t, bool> Step(const Retry& r, int64_t i, double scale) {
  int64_t ms = r.initial_ms;
  for (int64_t j = 0; j < i && ms < r.max_ms; ++j) ms *= 2;
  const bool capped = ms >= r.max_ms;
  return {std::max<int64_t>(1, ScaledMs(std::min(ms, r.max_ms), scale)), capped};
}

// When attempt k (0-based) is made.
int64_t AttemptAt(int64_t base, int64_t k, const Retry& r, double scale) {
  int64_t at = base;
  for (int64_t i = 0; i < k; ++i) {
    auto [step, capped] = Step(r, i, scale);
    if (capped) return at + (k - i) * step;
    at += step;
  }
  return at;
}

// How many attempts were made by `t` (at or before it).
int64_t AttemptsBy(int64_t base, int64_t t, const Retry& r, double scale) {
  if (t < base) return 0;
  int64_t n = 1;
  int64_t at = base;
  for (int64_t i = 0;; ++i) {
    auto [step, capped] = Step(r, i, scale);
    if (capped) return n + (t - at) / step;
    if (at + step > t) return n;
    at += step;
    ++n;
  }
}

// The first attempt at or after `t`.
int64_t FirstAttemptFrom(int64_t base, int64_t t, const Retry& r, double scale) {
  if (t <= base) return base;
  return AttemptAt(base, AttemptsBy(base, t - 1, r, scale), r, scale);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// An image reference split as the runtime resolves it.
struct ImageRef {
  std::string registry;  // host[:port], "" for Docker Hub
  std::string repo;
  std::string tag_or_digest;
  std::string full;  // as containerd names it
};

ImageRef ParseImage(std::string_view image) {
  ImageRef ref;
  std::string rest(image);
  size_t slash = rest.find('/');
  if (slash != std::string::npos) {
    std::string first = rest.substr(0, slash);
    if (first.find('.') != std::string::npos || first.find(':') != std::string::npos ||
        first == "localhost") {
      ref.registry = first;
      rest = rest.substr(slash + 1);
    }
  }
  size_t at = rest.find('@');
  size_t colon = rest.rfind(':');
  if (at != std::string::npos) {
    ref.repo = rest.substr(0, at);
    ref.tag_or_digest = rest.substr(at + 1);
  } else if (colon != std::string::npos && rest.find('/', colon) == std::string::npos) {
    ref.repo = rest.substr(0, colon);
    ref.tag_or_digest = rest.substr(colon + 1);
  } else {
    ref.repo = rest;
    ref.tag_or_digest = "latest";
  }
  const std::string registry = ref.registry.empty() ? "docker.io" : ref.registry;
  std::string repo = ref.repo;
  if (ref.registry.empty() && repo.find('/') == std::string::npos) repo = "library/" + repo;
  ref.full = registry + "/" + repo + (at != std::string::npos ? "@" : ":") + ref.tag_or_digest;
  return ref;
}

std::string HostOf(const std::string& registry) { return registry.substr(0, registry.find(':')); }

// A reference of the pod to a Secret or ConfigMap.
struct Ref {
  std::string resource;  // secrets | configmaps
  std::string name;
  std::string key;     // env: the key it needs
  std::string volume;  // a volume's name
};

std::string Kind(const Ref& r) { return r.resource == "secrets" ? "secret" : "configmap"; }

bool IsOptional(const json::object& o) {
  const json::value* v = o.if_contains("optional");
  return v != nullptr && v->is_bool() && v->get_bool();
}

// When the reference could first be resolved (the object's creation, not before `start_ms`), or
// nullopt with the kubelet's error while it can't.
std::optional<int64_t> ResolvedAt(const Ref& ref, const ObjectLookup& lookup, const std::string& ns,
                                  int64_t start_ms, std::string* error) {
  if (!lookup) return start_ms;
  std::optional<json::object> obj = lookup(ref.resource, ref.name);
  if (!obj) {
    *error = Kind(ref) + " \"" + ref.name + "\" not found";
    return std::nullopt;
  }
  if (!ref.key.empty()) {
    bool has = false;
    for (const char* field : {"data", "stringData", "binaryData"}) {
      const json::object* data = ObjectAt(*obj, field);
      has = has || (data != nullptr && data->contains(ref.key));
    }
    if (!has) {
      *error = "couldn't find key " + ref.key + " in " +
               (ref.resource == "secrets" ? "Secret " : "ConfigMap ") + ns + "/" + ref.name;
      return std::nullopt;
    }
  }
  const json::object* meta = ObjectAt(*obj, "metadata");
  int64_t created =
      meta != nullptr ? ParseTime(StringAt(*meta, "creationTimestamp")).value_or(0) : 0;
  return std::max(created, start_ms);
}

std::vector<Ref> VolumeRefs(const json::object& spec) {
  std::vector<Ref> out;
  const json::value* vols = spec.if_contains("volumes");
  if (vols == nullptr || !vols->is_array()) return out;
  for (const json::value& v : vols->get_array()) {
    if (!v.is_object()) continue;
    const std::string name = StringAt(v.get_object(), "name");
    // Spark's own conf map, created with the pod by spark-submit or the operator.
    if (name.starts_with("spark-conf-volume")) continue;
    if (const json::object* s = ObjectAt(v.get_object(), "secret"); s && !IsOptional(*s)) {
      out.push_back({"secrets", StringAt(*s, "secretName"), "", name});
    }
    if (const json::object* c = ObjectAt(v.get_object(), "configMap"); c && !IsOptional(*c)) {
      out.push_back({"configmaps", StringAt(*c, "name"), "", name});
    }
  }
  return out;
}

std::vector<Ref> EnvRefs(const json::object& container) {
  std::vector<Ref> out;
  if (const json::value* env = container.if_contains("env"); env && env->is_array()) {
    for (const json::value& e : env->get_array()) {
      const json::object* from = e.is_object() ? ObjectAt(e.get_object(), "valueFrom") : nullptr;
      if (const json::object* s = ObjectAt(from, "secretKeyRef"); s && !IsOptional(*s)) {
        out.push_back({"secrets", StringAt(*s, "name"), StringAt(*s, "key"), ""});
      }
      if (const json::object* c = ObjectAt(from, "configMapKeyRef"); c && !IsOptional(*c)) {
        out.push_back({"configmaps", StringAt(*c, "name"), StringAt(*c, "key"), ""});
      }
    }
  }
  if (const json::value* env = container.if_contains("envFrom"); env && env->is_array()) {
    for (const json::value& e : env->get_array()) {
      if (!e.is_object()) continue;
      if (const json::object* s = ObjectAt(e.get_object(), "secretRef"); s && !IsOptional(*s)) {
        out.push_back({"secrets", StringAt(*s, "name"), "", ""});
      }
      if (const json::object* c = ObjectAt(e.get_object(), "configMapRef"); c && !IsOptional(*c)) {
        out.push_back({"configmaps", StringAt(*c, "name"), "", ""});
      }
    }
  }
  return out;
}

std::vector<const json::object*> Containers(const json::object& spec) {
  std::vector<const json::object*> out;
  const json::value* cs = spec.if_contains("containers");
  if (cs == nullptr || !cs->is_array()) return out;
  for (const json::value& c : cs->get_array()) {
    if (c.is_object()) out.push_back(&c.get_object());
  }
  return out;
}

void ImageHold(const json::object& c, int64_t base, int64_t now, double scale, KubeletVerdict* v) {
  KubeletHold& h = v->hold;
  h.kind = HoldKind::kImagePull;
  h.container = StringAt(c, "name");
  h.image = StringAt(c, "image");
  h.since_ms = base;
  h.attempts = std::max<int64_t>(1, AttemptsBy(base, now, kImageRetry, scale));
  h.last_attempt_ms = AttemptAt(base, h.attempts - 1, kImageRetry, scale);
  const int64_t next_pull = AttemptAt(base, h.attempts, kImageRetry, scale);
  const int64_t shown_until =
      std::min(h.last_attempt_ms + ScaledMs(kErrImagePullShownMs, scale), next_pull);
  const bool err_shown = now < shown_until;
  h.backoffs = err_shown ? h.attempts - 1 : h.attempts;
  h.first_backoff_ms = std::min(base + ScaledMs(kErrImagePullShownMs, scale),
                                AttemptAt(base, 1, kImageRetry, scale));
  if (h.backoffs > 0) {
    h.last_backoff_ms = std::min(
        AttemptAt(base, h.backoffs - 1, kImageRetry, scale) + ScaledMs(kErrImagePullShownMs, scale),
        AttemptAt(base, h.backoffs, kImageRetry, scale));
  }
  h.reason = err_shown ? "ErrImagePull" : "ImagePullBackOff";
  h.message = err_shown ? ImagePullError(h.image) : "Back-off pulling image \"" + h.image + "\"";
  v->next_ms = err_shown ? shown_until : next_pull;
}

}  // namespace

bool ImageUnpullable(std::string_view image) {
  const std::string host = Lower(HostOf(ParseImage(image).registry));
  return host == "invalid" || host.ends_with(".invalid");
}

std::string ImagePullError(std::string_view image) {
  const ImageRef ref = ParseImage(image);
  const std::string registry = ref.registry.empty() ? "registry-1.docker.io" : ref.registry;
  std::string repo = ref.repo;
  if (ref.registry.empty() && repo.find('/') == std::string::npos) repo = "library/" + repo;
  return "rpc error: code = Unknown desc = failed to pull and unpack image \"" + ref.full +
         "\": failed to resolve reference \"" + ref.full +
         "\": failed to do request: Head \"https://" + registry + "/v2/" + repo + "/manifests/" +
         ref.tag_or_digest + "\": dial tcp: lookup " + HostOf(registry) + ": no such host";
}

KubeletVerdict KubeletCheck(const json::object& pod, int64_t start_ms, int64_t now_ms,
                            const ObjectLookup& lookup, double time_scale, int64_t pull_ms) {
  KubeletVerdict v;
  static const json::object kEmpty;
  const json::object* spec_ptr = ObjectAt(pod, "spec");
  const json::object& spec = spec_ptr != nullptr ? *spec_ptr : kEmpty;
  const json::object* meta = ObjectAt(pod, "metadata");
  const std::string ns = meta != nullptr ? StringAt(*meta, "namespace") : "";

  // The volumes first: no container starts before every volume is set up.
  int64_t mounted = start_ms;
  std::vector<std::pair<std::string, std::string>> failing;
  for (const Ref& ref : VolumeRefs(spec)) {
    std::string error;
    std::optional<int64_t> r = ResolvedAt(ref, lookup, ns, start_ms, &error);
    int64_t tick = r ? FirstAttemptFrom(start_ms, *r, kMountRetry, time_scale) : 0;
    if (r && tick <= now_ms) {
      mounted = std::max(mounted, tick);
      continue;
    }
    if (error.empty()) error = Kind(ref) + " \"" + ref.name + "\" not found";
    failing.emplace_back(ref.volume,
                         "MountVolume.SetUp failed for volume \"" + ref.volume + "\" : " + error);
  }
  if (!failing.empty()) {
    KubeletHold& h = v.hold;
    h.kind = HoldKind::kMount;
    h.volumes = std::move(failing);
    h.since_ms = start_ms;
    h.attempts = std::max<int64_t>(1, AttemptsBy(start_ms, now_ms, kMountRetry, time_scale));
    h.last_attempt_ms = AttemptAt(start_ms, h.attempts - 1, kMountRetry, time_scale);
    v.next_ms = AttemptAt(start_ms, h.attempts, kMountRetry, time_scale);
    return v;
  }
  const std::vector<const json::object*> containers = Containers(spec);
  for (const json::object* c : containers) {
    if (ImageUnpullable(StringAt(*c, "image"))) {
      ImageHold(*c, mounted, now_ms, time_scale, &v);
      return v;
    }
  }
  // The images are pulled; then each container's config (its env) is resolved.
  const int64_t pulled = mounted + ScaledMs(pull_ms, time_scale);
  int64_t configured = pulled;
  for (const json::object* c : containers) {
    for (const Ref& ref : EnvRefs(*c)) {
      std::string error;
      std::optional<int64_t> r = ResolvedAt(ref, lookup, ns, start_ms, &error);
      int64_t tick = r ? FirstAttemptFrom(pulled, *r, kConfigRetry, time_scale) : 0;
      if (r && (tick <= now_ms || now_ms < pulled)) {
        configured = std::max(configured, tick);
        continue;
      }
      if (now_ms < pulled) {
        v.next_ms = pulled;  // still pulling: the error shows once the pull is done
        return v;
      }
      if (error.empty()) error = Kind(ref) + " \"" + ref.name + "\" not found";
      KubeletHold& h = v.hold;
      h.kind = HoldKind::kConfig;
      h.container = StringAt(*c, "name");
      h.image = StringAt(*c, "image");
      h.reason = "CreateContainerConfigError";
      h.message = error;
      h.since_ms = pulled;
      h.pulled_ms = pulled;
      h.pull_from_ms = mounted;
      h.attempts = std::max<int64_t>(1, AttemptsBy(pulled, now_ms, kConfigRetry, time_scale));
      h.last_attempt_ms = AttemptAt(pulled, h.attempts - 1, kConfigRetry, time_scale);
      v.next_ms = AttemptAt(pulled, h.attempts, kConfigRetry, time_scale);
      return v;
    }
  }
  v.delay_ms = std::max(mounted - start_ms, configured - pulled);
  return v;
}

void ApplyHold(const KubeletHold& hold, json::object* status) {
  if (hold.kind != HoldKind::kImagePull && hold.kind != HoldKind::kConfig) return;
  std::vector<std::string> unready;
  if (json::value* cs = status->if_contains("containerStatuses"); cs && cs->is_array()) {
    for (json::value& c : cs->as_array()) {
      if (!c.is_object()) continue;
      json::object& o = c.as_object();
      const std::string name = StringAt(o, "name");
      unready.push_back(name);
      if (name != hold.container) continue;
      o["state"] = json::object{
          {"waiting", json::object{{"reason", hold.reason}, {"message", hold.message}}}};
    }
  }
  std::string message = "containers with unready status: [";
  for (size_t i = 0; i < unready.size(); ++i) message += (i > 0 ? " " : "") + unready[i];
  message += "]";
  json::value* conditions = status->if_contains("conditions");
  if (conditions == nullptr || !conditions->is_array()) return;
  for (json::value& c : conditions->as_array()) {
    if (!c.is_object()) continue;
    json::object& o = c.as_object();
    const std::string type = StringAt(o, "type");
    // Past the mounts, the sandbox is up.
    if (type == "PodReadyToStartContainers") o["status"] = "True";
    if (type == "Ready" || type == "ContainersReady") {
      o["reason"] = "ContainersNotReady";
      o["message"] = message;
    }
  }
}

void AppendHoldEvents(const json::object& pod, const KubeletHold& hold,
                      std::vector<json::object>* out) {
  auto add = [&](const Involved& involved, const char* reason, std::string message,
                 const std::string& key, const char* type, int64_t first, int64_t last,
                 int64_t count) {
    if (count <= 0) return;
    EventSpec spec = KubeletSpec(pod, reason, std::move(message), key, first);
    spec.type = type;
    spec.last_ms = last;
    spec.count = count;
    out->push_back(MakeEvent(involved, spec));
  };
  const int64_t first = hold.since_ms;
  const int64_t last = hold.last_attempt_ms;
  if (hold.kind == HoldKind::kMount) {
    for (const auto& [volume, message] : hold.volumes) {
      add(PodInvolved(pod), "FailedMount", message, "mount|" + volume, "Warning", first, last,
          hold.attempts);
    }
    return;
  }
  const Involved c = PodInvolved(pod, hold.container);
  const std::string& name = hold.container;
  if (hold.kind == HoldKind::kImagePull) {
    add(c, "Pulling", "Pulling image \"" + hold.image + "\"", name, "Normal", first, last,
        hold.attempts);
    add(c, "Failed", "Failed to pull image \"" + hold.image + "\": " + ImagePullError(hold.image),
        name + "|pull", "Warning", first, last, hold.attempts);
    add(c, "Failed", "Error: ErrImagePull", name + "|ErrImagePull", "Warning", first, last,
        hold.attempts);
    add(c, "BackOff", "Back-off pulling image \"" + hold.image + "\"", name, "Normal",
        hold.first_backoff_ms, hold.last_backoff_ms, hold.backoffs);
    add(c, "Failed", "Error: ImagePullBackOff", name + "|ImagePullBackOff", "Warning",
        hold.first_backoff_ms, hold.last_backoff_ms, hold.backoffs);
    return;
  }
  if (hold.kind == HoldKind::kConfig) {
    AppendPullEvents(pod, name, hold.image, hold.pull_from_ms, hold.pulled_ms, false, out);
    add(c, "Pulled", "Container image \"" + hold.image + "\" already present on machine",
        name + "|present", "Normal", hold.pulled_ms, last, hold.attempts - 1);
    add(c, "Failed", "Error: " + hold.message, name + "|config", "Warning", first, last,
        hold.attempts);
  }
}

}  // namespace kubesim::sim
