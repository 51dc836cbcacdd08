// The kubelet's holds on a bound pod: unmountable volumes, unpullable images and unresolvable
// env, with the statuses and events a cluster shows for them, and their timing.

#include "kubesim/sim/kubelet.h"

#include <catch2/catch.hpp>
#include <map>

#include "kubesim/sim/clock.h"

namespace kubesim::sim {
namespace {

namespace json = boost::json;

constexpr int64_t kT = 1764552000000;  // 2025-12-01T01:20:00Z

json::object Pod(const std::string& image, json::array env = {}, json::array volumes = {}) {
  json::object c{{"name", "spark-kubernetes-driver"}, {"image", image}};
  if (!env.empty()) c["env"] = std::move(env);
  json::object spec{{"containers", json::array{std::move(c)}}, {"nodeName", "kubesim-node-1"}};
  if (!volumes.empty()) spec["volumes"] = std::move(volumes);
  return json::object{{"metadata", json::object{{"name", "pi-driver"},
                                                {"namespace", "jobs"},
                                                {"uid", "u-1"},
                                                {"creationTimestamp", FormatTime(kT, false)}}},
                      {"spec", std::move(spec)}};
}

json::array SecretEnv(const std::string& secret, const std::string& key) {
  return json::array{json::object{
      {"name", "DB_PASSWORD"},
      {"valueFrom", json::object{{"secretKeyRef", json::object{{"name", secret}, {"key", key}}}}}}};
}

json::array SecretVolume(const std::string& secret) {
  return json::array{
      json::object{{"name", secret + "-volume"}, {"secret", json::object{{"secretName", secret}}}},
      // Spark's own conf map is never looked up.
      json::object{{"name", "spark-conf-volume-driver"},
                   {"configMap", json::object{{"name", "pi-drv-conf-map"}}}}};
}

// A namespace's Secrets: name → (creation ms, data keys).
struct Objects {
  std::map<std::string, std::pair<int64_t, std::vector<std::string>>> secrets;
  ObjectLookup Lookup() const {
    return [this](std::string_view resource, std::string_view name) -> std::optional<json::object> {
      auto it = secrets.find(std::string(name));
      if (resource != "secrets" || it == secrets.end()) return std::nullopt;
      json::object data;
      for (const std::string& k : it->second.second) data[k] = "c2VjcmV0";
      return json::object{
          {"metadata", json::object{{"name", name},
                                    {"creationTimestamp", FormatTime(it->second.first, false)}}},
          {"data", std::move(data)}};
    };
  }
};

json::object PendingStatus() {
  return json::parse(R"({"phase":"Pending","conditions":[
      {"type":"PodReadyToStartContainers","status":"False"},
      {"type":"Ready","status":"False","reason":"ContainersNotReady"},
      {"type":"ContainersReady","status":"False","reason":"ContainersNotReady"},
      {"type":"PodScheduled","status":"True"}],
      "containerStatuses":[{"name":"spark-kubernetes-driver",
        "state":{"waiting":{"reason":"ContainerCreating"}}}]})")
      .as_object();
}

const json::object* FindEvent(const std::vector<json::object>& events, const std::string& reason,
                              const std::string& message) {
  for (const json::object& e : events) {
    if (e.at("reason") == reason.c_str() && e.at("message") == message.c_str()) return &e;
  }
  return nullptr;
}

TEST_CASE("an image under the .invalid TLD fails its DNS lookup; others pull", "[sim]") {
  CHECK(ImageUnpullable("registry.invalid/spark:4.0.1"));
  CHECK(ImageUnpullable("REGISTRY.Invalid:5000/team/spark"));
  CHECK(ImageUnpullable("invalid:5000/spark:1"));
  CHECK_FALSE(ImageUnpullable("apache/spark:4.0.1"));
  CHECK_FALSE(ImageUnpullable("invalid/spark:1"));  // a Docker Hub user named "invalid"
  CHECK_FALSE(ImageUnpullable("registry.example.com/spark:4.0.1"));
  CHECK(ImagePullError("registry.invalid/spark:4.0.1") ==
        "rpc error: code = Unknown desc = failed to pull and unpack image "
        "\"registry.invalid/spark:4.0.1\": failed to resolve reference "
        "\"registry.invalid/spark:4.0.1\": failed to do request: Head "
        "\"https://registry.invalid/v2/spark/manifests/4.0.1\": dial tcp: lookup "
        "registry.invalid: no such host");
  // No tag is latest; a port stays in the URL, not in the lookup.
  CHECK(ImagePullError("r.invalid:5000/a/b")
            .ends_with("Head \"https://r.invalid:5000/v2/a/b/manifests/latest\": dial tcp: lookup "
                       "r.invalid: no "
                       "such host"));
}

TEST_CASE("an unpullable image alternates ErrImagePull and ImagePullBackOff on the back-off",
          "[sim]") {
  const json::object pod = Pod("registry.invalid/spark:4.0.1");
  // Pulls at 0, 10, 30, 70, 150, 310, 610, 910 s; ErrImagePull for 1 s after each.
  struct Case {
    int64_t at_s;
    const char* reason;
    int64_t pulls;
    int64_t backoffs;
    int64_t next_s;
  };
  for (const Case& c : std::vector<Case>{{0, "ErrImagePull", 1, 0, 1},
                                         {1, "ImagePullBackOff", 1, 1, 10},
                                         {10, "ErrImagePull", 2, 1, 11},
                                         {29, "ImagePullBackOff", 2, 2, 30},
                                         {70, "ErrImagePull", 4, 3, 71},
                                         {609, "ImagePullBackOff", 6, 6, 610},
                                         {911, "ImagePullBackOff", 8, 8, 1210}}) {
    CAPTURE(c.at_s);
    KubeletVerdict v = KubeletCheck(pod, kT, kT + c.at_s * 1000, {}, 1.0);
    REQUIRE(v.hold.kind == HoldKind::kImagePull);
    CHECK(v.hold.reason == c.reason);
    CHECK(v.hold.attempts == c.pulls);
    CHECK(v.hold.backoffs == c.backoffs);
    CHECK(v.next_ms == kT + c.next_s * 1000);
  }
  // Operator time: at --time-scale 10 the same schedule runs ten times faster.
  KubeletVerdict fast = KubeletCheck(pod, kT, kT + 2950, {}, 10.0);
  CHECK(fast.hold.attempts == 2);
  CHECK(fast.hold.reason == "ImagePullBackOff");
}

TEST_CASE("an image hold shows on the container, the conditions and the kubelet's events",
          "[sim]") {
  const json::object pod = Pod("registry.invalid/spark:4.0.1");
  KubeletVerdict v = KubeletCheck(pod, kT, kT + 35'000, {}, 1.0);
  json::object status = PendingStatus();
  ApplyHold(v.hold, &status);
  const json::object& waiting =
      status.at("containerStatuses").at(0).at("state").at("waiting").as_object();
  CHECK(waiting.at("reason") == "ImagePullBackOff");
  CHECK(waiting.at("message") == "Back-off pulling image \"registry.invalid/spark:4.0.1\"");
  CHECK(status.at("phase") == "Pending");
  CHECK(status.at("conditions").at(0).at("status") == "True");
  CHECK(status.at("conditions").at(1).at("message") ==
        "containers with unready status: [spark-kubernetes-driver]");

  std::vector<json::object> events;
  AppendHoldEvents(pod, v.hold, &events);
  const std::string image = "registry.invalid/spark:4.0.1";
  const json::object* pulling = FindEvent(events, "Pulling", "Pulling image \"" + image + "\"");
  REQUIRE(pulling != nullptr);
  CHECK(pulling->at("count") == 3);  // pulls at 0, 10 and 30 s
  CHECK(pulling->at("firstTimestamp") == FormatTime(kT, false).c_str());
  CHECK(pulling->at("lastTimestamp") == FormatTime(kT + 30'000, false).c_str());
  CHECK(pulling->at("involvedObject").at("fieldPath") ==
        "spec.containers{spark-kubernetes-driver}");
  CHECK(pulling->at("source").at("component") == "kubelet");
  CHECK(pulling->at("source").at("host") == "kubesim-node-1");
  const json::object* failed = FindEvent(
      events, "Failed", "Failed to pull image \"" + image + "\": " + ImagePullError(image));
  REQUIRE(failed != nullptr);
  CHECK(failed->at("type") == "Warning");
  CHECK(failed->at("count") == 3);
  const json::object* err = FindEvent(events, "Failed", "Error: ErrImagePull");
  REQUIRE(err != nullptr);
  CHECK(err->at("count") == 3);
  const json::object* backoff =
      FindEvent(events, "BackOff", "Back-off pulling image \"" + image + "\"");
  REQUIRE(backoff != nullptr);
  CHECK(backoff->at("type") == "Normal");
  CHECK(backoff->at("count") == 3);
  CHECK(backoff->at("firstTimestamp") == FormatTime(kT + 1000, false).c_str());
  CHECK(backoff->at("lastTimestamp") == FormatTime(kT + 31'000, false).c_str());
  const json::object* backoff_err = FindEvent(events, "Failed", "Error: ImagePullBackOff");
  REQUIRE(backoff_err != nullptr);
  CHECK(backoff_err->at("count") == 3);
  // A recurrence is the same event (same name), with a higher count.
  std::vector<json::object> later;
  AppendHoldEvents(pod, KubeletCheck(pod, kT, kT + 75'000, {}, 1.0).hold, &later);
  const json::object* pulling_later =
      FindEvent(later, "Pulling", "Pulling image \"" + image + "\"");
  REQUIRE(pulling_later != nullptr);
  CHECK(pulling_later->at("metadata").at("name") == pulling->at("metadata").at("name"));
  CHECK(pulling_later->at("count") == 4);
}

TEST_CASE("a missing Secret in env is CreateContainerConfigError until it is created", "[sim]") {
  const json::object pod = Pod("apache/spark:4.0.1", SecretEnv("db", "password"));
  Objects objects;
  // Pulling for 1.5 s: nothing to say yet.
  KubeletVerdict pulling = KubeletCheck(pod, kT, kT + 1000, objects.Lookup(), 1.0);
  CHECK(pulling.hold.kind == HoldKind::kNone);
  CHECK(pulling.next_ms == kT + 1500);
  KubeletVerdict v = KubeletCheck(pod, kT, kT + 21'600, objects.Lookup(), 1.0);
  REQUIRE(v.hold.kind == HoldKind::kConfig);
  CHECK(v.hold.reason == "CreateContainerConfigError");
  CHECK(v.hold.message == "secret \"db\" not found");
  CHECK(v.hold.attempts == 3);  // at 1.5, 11.5 and 21.5 s
  CHECK(v.next_ms == kT + 31'500);
  json::object status = PendingStatus();
  ApplyHold(v.hold, &status);
  CHECK(status.at("containerStatuses").at(0).at("state").at("waiting") ==
        json::parse(
            R"({"reason":"CreateContainerConfigError","message":"secret \"db\" not found"})"));
  std::vector<json::object> events;
  AppendHoldEvents(pod, v.hold, &events);
  const json::object* failed = FindEvent(events, "Failed", "Error: secret \"db\" not found");
  REQUIRE(failed != nullptr);
  CHECK(failed->at("type") == "Warning");
  CHECK(failed->at("count") == 3);
  CHECK(failed->at("involvedObject").at("fieldPath") == "spec.containers{spark-kubernetes-driver}");
  CHECK(FindEvent(events, "Pulled",
                  "Container image \"apache/spark:4.0.1\" already present on machine")
            ->at("count") == 2);

  // The key must be there too.
  objects.secrets["db"] = {kT + 25'000, {"user"}};
  KubeletVerdict no_key = KubeletCheck(pod, kT, kT + 26'000, objects.Lookup(), 1.0);
  CHECK(no_key.hold.message == "couldn't find key password in Secret jobs/db");
  // Created at 25 s: the container starts at the next retry, 31.5 s, 30 s late.
  objects.secrets["db"] = {kT + 25'000, {"password"}};
  KubeletVerdict before_retry = KubeletCheck(pod, kT, kT + 26'000, objects.Lookup(), 1.0);
  CHECK(before_retry.hold.kind == HoldKind::kConfig);
  KubeletVerdict after = KubeletCheck(pod, kT, kT + 32'000, objects.Lookup(), 1.0);
  CHECK(after.hold.kind == HoldKind::kNone);
  CHECK(after.delay_ms == 30'000);
  // A Secret that was there before the pod holds nothing.
  objects.secrets["db"] = {kT - 60'000, {"password"}};
  KubeletVerdict present = KubeletCheck(pod, kT, kT + 2000, objects.Lookup(), 1.0);
  CHECK(present.hold.kind == HoldKind::kNone);
  CHECK(present.delay_ms == 0);
  // An optional reference never holds.
  json::array optional = SecretEnv("other", "k");
  optional[0].as_object()["valueFrom"].as_object()["secretKeyRef"].as_object()["optional"] = true;
  CHECK(KubeletCheck(Pod("apache/spark:4.0.1", optional), kT, kT + 5000, objects.Lookup(), 1.0)
            .hold.kind == HoldKind::kNone);
}

TEST_CASE("a missing Secret volume keeps the pod ContainerCreating with FailedMount", "[sim]") {
  const json::object pod = Pod("apache/spark:4.0.1", {}, SecretVolume("tls"));
  Objects objects;
  // Mount attempts at 0, 0.5, 1.5, 3.5, 7.5 s ...
  KubeletVerdict v = KubeletCheck(pod, kT, kT + 4000, objects.Lookup(), 1.0);
  REQUIRE(v.hold.kind == HoldKind::kMount);
  CHECK(v.hold.attempts == 4);
  CHECK(v.next_ms == kT + 7500);
  json::object status = PendingStatus();
  ApplyHold(v.hold, &status);
  CHECK(status == PendingStatus());
  std::vector<json::object> events;
  AppendHoldEvents(pod, v.hold, &events);
  REQUIRE(events.size() == 1);
  CHECK(events[0].at("reason") == "FailedMount");
  CHECK(events[0].at("type") == "Warning");
  CHECK(events[0].at("message") ==
        "MountVolume.SetUp failed for volume \"tls-volume\" : secret \"tls\" not found");
  CHECK(events[0].at("count") == 4);
  CHECK_FALSE(events[0].at("involvedObject").as_object().contains("fieldPath"));
  // Created at 5 s: mounted at the attempt of 7.5 s.
  objects.secrets["tls"] = {kT + 5000, {"tls.crt"}};
  CHECK(KubeletCheck(pod, kT, kT + 6000, objects.Lookup(), 1.0).hold.kind == HoldKind::kMount);
  KubeletVerdict after = KubeletCheck(pod, kT, kT + 8000, objects.Lookup(), 1.0);
  CHECK(after.hold.kind == HoldKind::kNone);
  CHECK(after.delay_ms == 7500);
}

}  // namespace
}  // namespace kubesim::sim
