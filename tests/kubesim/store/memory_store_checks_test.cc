// The store's admission checks: etcd's request-size limit on what is stored.

#include <catch2/catch.hpp>
#include <string>

#include "kubesim/store/core_types.h"
#include "kubesim/store/store.h"

namespace kubesim {
namespace {

namespace json = boost::json;

constexpr size_t kEtcdLimit = 1572864;  // etcd's default --max-request-bytes

ResourceType ConfigMaps() {
  for (const ResourceType& t : CoreTypes()) {
    if (t.plural == "configmaps") return t;
  }
  FAIL("no configmaps type");
  return {};
}

// A ConfigMap whose serialized form is `bytes` long (give or take its envelope).
json::object MapOfSize(const std::string& name, size_t bytes) {
  return json::object{{"metadata", json::object{{"name", name}}},
                      {"data", json::object{{"blob", std::string(bytes, 'x')}}}};
}

struct Fixture {
  std::unique_ptr<Store> store = NewMemoryStore([] { return int64_t{1764552000000}; });
  ResourceType cm = ConfigMaps();
  Fixture() {
    for (const ResourceType& t : CoreTypes()) store->RegisterType(t);
  }
};

void RequireEtcdTooLarge(const ApiError& e) {
  CHECK(e.code == 500);
  CHECK(e.reason.empty());  // the API server has no reason for an etcd error
  CHECK(e.message == "etcdserver: request is too large");
}

TEST_CASE("An object over etcd's 1.5 MiB is refused on create, changing nothing", "[limits]") {
  Fixture f;
  auto r = f.store->Create(f.cm, "default", MapOfSize("big", kEtcdLimit), {});
  REQUIRE_FALSE(r.ok());
  RequireEtcdTooLarge(r.error());
  CHECK(f.store->Get(f.cm, "default", "big").error().code == 404);
  // Just under the limit (the envelope takes about a hundred bytes) is stored.
  auto small = f.store->Create(f.cm, "default", MapOfSize("fits", kEtcdLimit - 400), {});
  REQUIRE(small.ok());
  // A dry run never reaches etcd, so it is not refused.
  WriteOptions dry;
  dry.dry_run = true;
  CHECK(f.store->Create(f.cm, "default", MapOfSize("dry", kEtcdLimit + 10), dry).ok());
}

TEST_CASE("An update or patch that would grow an object past the limit is refused", "[limits]") {
  Fixture f;
  auto created = f.store->Create(f.cm, "default", MapOfSize("grow", kEtcdLimit - 400), {});
  REQUIRE(created.ok());
  std::string rv(created.value().at("metadata").at("resourceVersion").as_string());

  json::object bigger = MapOfSize("grow", kEtcdLimit + 1);
  bigger["metadata"].as_object()["resourceVersion"] = rv;
  auto updated = f.store->Update(f.cm, "default", "grow", bigger, false, {});
  REQUIRE_FALSE(updated.ok());
  RequireEtcdTooLarge(updated.error());

  std::string patch = R"({"data":{"more":")" + std::string(1000, 'y') + R"("}})";
  auto patched = f.store->Patch(f.cm, "default", "grow", PatchType::kMerge, patch, false, {});
  REQUIRE_FALSE(patched.ok());
  RequireEtcdTooLarge(patched.error());

  auto now = f.store->Get(f.cm, "default", "grow");
  REQUIRE(now.ok());
  CHECK(now.value().at("metadata").at("resourceVersion").as_string() == rv);
  CHECK_FALSE(now.value().at("data").as_object().contains("more"));
}

}  // namespace
}  // namespace kubesim
