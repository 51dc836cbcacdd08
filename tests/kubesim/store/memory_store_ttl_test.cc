// Objects with a time to live: Events as the API server keeps them (an etcd lease of --event-ttl
// renewed by each write), outliving the object they are about.

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "kubesim/store/core_types.h"
#include "kubesim/store/store.h"

namespace kubesim {
namespace {

namespace json = boost::json;

constexpr int64_t kStartMs = 1764552000000;
constexpr int64_t kTtlMs = 60000;

json::object Event(const std::string& name, const std::string& pod) {
  return json::object{
      {"metadata", json::object{{"name", name}}},
      {"involvedObject", json::object{{"kind", "Pod"}, {"name", pod}, {"namespace", "spark"}}},
      {"reason", "Scheduled"},
      {"message", "Successfully assigned"},
      {"count", 1}};
}

struct TtlFixture {
  int64_t now = kStartMs;
  std::unique_ptr<Store> store = NewMemoryStore([this] { return now; });
  ResourceType events;
  ResourceType pods;
  ResourceType configmaps;

  TtlFixture() {
    for (ResourceType t : CoreTypes()) {
      if (t.plural == "events") {
        t.ttl_ms = kTtlMs;
        events = t;
      }
      if (t.plural == "pods") pods = t;
      if (t.plural == "configmaps") configmaps = t;
      store->RegisterType(t);
    }
    REQUIRE(store->Create(NamespaceType(), "", json::object{{"metadata", {{"name", "spark"}}}}, {})
                .ok());
  }

  bool Exists(const ResourceType& t, const std::string& name) {
    return store->Get(t, "spark", name).ok();
  }
};

TEST_CASE("kubesim.store: an event outlives the pod it is about and expires on its own TTL",
          "[store][ttl]") {
  TtlFixture f;
  json::object pod{
      {"metadata", json::object{{"name", "p-driver"}}},
      {"spec",
       json::object{{"containers", json::array{json::object{{"name", "main"}, {"image", "x"}}}}}}};
  REQUIRE(f.store->Create(f.pods, "spark", pod, {}).ok());
  REQUIRE(f.store->Create(f.events, "spark", Event("p-driver.1", "p-driver"), {}).ok());
  REQUIRE(f.store->Delete(f.pods, "spark", "p-driver", {}).ok());
  CHECK_FALSE(f.Exists(f.pods, "p-driver"));
  // No owner, no garbage collection: the pod's deletion leaves its events.
  CHECK(f.store->ExpireTtl() == 0);
  CHECK(f.Exists(f.events, "p-driver.1"));

  f.now += kTtlMs - 1;
  CHECK(f.store->ExpireTtl() == 0);
  CHECK(f.Exists(f.events, "p-driver.1"));
  f.now += 1;
  CHECK(f.store->ExpireTtl() == 1);
  CHECK_FALSE(f.Exists(f.events, "p-driver.1"));
  CHECK(f.store->ExpireTtl() == 0);
}

TEST_CASE("kubesim.store: each write of an event renews its TTL; expiry is a DELETED event",
          "[store][ttl]") {
  TtlFixture f;
  REQUIRE(f.store->Create(f.events, "spark", Event("a.1", "a"), {}).ok());
  REQUIRE(f.store->Create(f.events, "spark", Event("b.1", "b"), {}).ok());
  auto watch = f.store->Watch(f.events, "spark", {}, nullptr);
  REQUIRE(watch.ok());
  CHECK(watch.value()->Drain().size() == 2);  // the initial ADDED

  f.now += kTtlMs / 2;
  // A recurrence: the recorder raises the count on the same event.
  REQUIRE(f.store->Patch(f.events, "spark", "a.1", PatchType::kMerge, R"({"count":2})", false, {})
              .ok());
  f.now += kTtlMs / 2;
  CHECK(f.store->ExpireTtl() == 1);  // b.1, written once
  CHECK(f.Exists(f.events, "a.1"));
  CHECK_FALSE(f.Exists(f.events, "b.1"));
  auto deleted = watch.value()->Drain();
  // The patch's MODIFIED, then b.1's DELETED.
  REQUIRE(deleted.size() == 2);
  CHECK(deleted[1].type == "DELETED");
  CHECK(std::string(deleted[1].object.at("metadata").at("name").as_string()) == "b.1");

  f.now += kTtlMs / 2;
  CHECK(f.store->ExpireTtl() == 1);
  CHECK_FALSE(f.Exists(f.events, "a.1"));

  // Deleted by a client before its time: nothing left to expire.
  REQUIRE(f.store->Create(f.events, "spark", Event("c.1", "c"), {}).ok());
  REQUIRE(f.store->Delete(f.events, "spark", "c.1", {}).ok());
  f.now += kTtlMs;
  CHECK(f.store->ExpireTtl() == 0);
}

TEST_CASE("kubesim.store: types without a TTL never expire", "[store][ttl]") {
  TtlFixture f;
  REQUIRE(f.store->Create(f.configmaps, "spark", json::object{{"metadata", {{"name", "kept"}}}}, {})
              .ok());
  f.now += 1000 * kTtlMs;
  CHECK(f.store->ExpireTtl() == 0);
  CHECK(f.Exists(f.configmaps, "kept"));
}

}  // namespace
}  // namespace kubesim
