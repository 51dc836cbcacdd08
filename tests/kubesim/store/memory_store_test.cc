#include <malloc.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <ctime>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "kubesim/store/core_types.h"
#include "kubesim/store/store.h"

namespace kubesim {
namespace {

namespace json = boost::json;

constexpr int64_t kStartMs = 1764552000000;  // 2025-12-01T01:20:00Z

// A stand-in for the CRD schema validator: spec.mainClass is a required string; spec fields
// other than mainClass and sparkConf are unknown (pruned, or reported when strict).
std::vector<FieldCause> TestValidator(json::object& obj, bool strict,
                                      std::vector<std::string>* unknown) {
  std::vector<FieldCause> causes;
  json::value* spec = obj.if_contains("spec");
  if (spec == nullptr || !spec->is_object()) {
    causes.push_back({"FieldValueRequired", "Required value", "spec"});
    return causes;
  }
  json::object& s = spec->get_object();
  std::vector<std::string> extra;
  for (const auto& [k, v] : s) {
    if (k != "mainClass" && k != "sparkConf") extra.emplace_back(k);
  }
  for (const std::string& k : extra) {
    if (strict) {
      if (unknown != nullptr) unknown->push_back("spec." + k);
    } else {
      s.erase(k);
    }
  }
  if (!s.contains("mainClass")) {
    causes.push_back({"FieldValueRequired", "Required value", "spec.mainClass"});
  } else if (!s.at("mainClass").is_string()) {
    causes.push_back({"FieldValueTypeInvalid",
                      "Invalid value: \"integer\": spec.mainClass in body must be of type string: "
                      "\"integer\"",
                      "spec.mainClass"});
  }
  return causes;
}

ResourceType SparkType() {
  ResourceType t;
  t.group = "spark.apache.org";
  t.version = "v1";
  t.plural = "sparkapplications";
  t.singular = "sparkapplication";
  t.kind = "SparkApplication";
  t.list_kind = "SparkApplicationList";
  t.status_subresource = true;
  t.validator = TestValidator;
  return t;
}

json::object App(const std::string& name, json::object labels = {}) {
  return json::object{{"apiVersion", "spark.apache.org/v1"},
                      {"kind", "SparkApplication"},
                      {"metadata", json::object{{"name", name}, {"labels", std::move(labels)}}},
                      {"spec", json::object{{"mainClass", "org.apache.spark.examples.SparkPi"}}}};
}

json::object OwnerRef(const json::object& owner, bool block) {
  const json::object& m = owner.at("metadata").get_object();
  json::object ref{{"apiVersion", owner.at("apiVersion")},
                   {"kind", owner.at("kind")},
                   {"name", m.at("name")},
                   {"uid", m.at("uid")}};
  if (block) ref["blockOwnerDeletion"] = true;
  return ref;
}

json::object Pod(const std::string& name, std::vector<std::string> containers = {"main"},
                 json::array owners = {}) {
  json::array cs;
  for (const std::string& c : containers) cs.push_back(json::object{{"name", c}, {"image", "x"}});
  json::object meta{{"name", name}};
  if (!owners.empty()) meta["ownerReferences"] = std::move(owners);
  return json::object{{"metadata", std::move(meta)}, {"spec", json::object{{"containers", cs}}}};
}

std::string Str(const json::value& v) { return std::string(v.as_string()); }
const json::object& Meta(const json::object& o) { return o.at("metadata").as_object(); }
std::string Rv(const json::object& o) { return Str(Meta(o).at("resourceVersion")); }
std::string Uid(const json::object& o) { return Str(Meta(o).at("uid")); }

std::vector<std::string> Names(const json::object& list) {
  std::vector<std::string> out;
  for (const json::value& item : list.at("items").as_array()) {
    out.push_back(Str(Meta(item.as_object()).at("name")));
  }
  return out;
}

ListOptions Labels(std::string selector) {
  ListOptions o;
  o.label_selector = std::move(selector);
  return o;
}

ListOptions Fields(std::string selector) {
  ListOptions o;
  o.field_selector = std::move(selector);
  return o;
}

ListOptions AtVersion(std::string rv) {
  ListOptions o;
  o.resource_version = std::move(rv);
  return o;
}

LogOptions Logs(std::optional<int64_t> tail, std::optional<int64_t> limit = std::nullopt,
                std::string container = "", bool previous = false) {
  LogOptions o;
  o.tail_lines = tail;
  o.limit_bytes = limit;
  o.container = std::move(container);
  o.previous = previous;
  return o;
}

struct Fixture {
  int64_t now = kStartMs;
  std::unique_ptr<Store> store = NewMemoryStore([this] { return now; });
  ResourceType app = SparkType();
  ResourceType pod = PodType();
  ResourceType cm;

  // store->List, checking that ListText (what a LIST request is answered with) is the very
  // text that List's object serializes to, or the same error.
  Result<json::object> Listed(const ResourceType& type, std::string_view ns,
                              const ListOptions& options) {
    auto listed = store->List(type, ns, options);
    auto text = store->ListText(type, ns, options);
    REQUIRE(listed.ok() == text.ok());
    if (listed.ok()) {
      CHECK(json::serialize(listed.value()) == text.value());
    } else {
      CHECK(listed.error().code == text.error().code);
      CHECK(listed.error().message == text.error().message);
    }
    return listed;
  }

  Fixture() {
    store->RegisterType(app);
    for (const ResourceType& t : CoreTypes()) {
      store->RegisterType(t);
      if (t.plural == "configmaps") cm = t;
    }
    CreateNamespace("spark");
  }

  void CreateNamespace(const std::string& name) {
    auto r = store->Create(NamespaceType(), "", json::object{{"metadata", {{"name", name}}}}, {});
    REQUIRE(r.ok());
  }

  json::object MustCreate(const ResourceType& t, json::object obj,
                          const std::string& ns = "spark") {
    auto r = store->Create(t, ns, std::move(obj), {});
    if (!r.ok()) FAIL(r.error().message);
    return r.value();
  }

  json::object MustGet(const ResourceType& t, const std::string& name,
                       const std::string& ns = "spark") {
    auto r = store->Get(t, ns, name);
    if (!r.ok()) FAIL(r.error().message);
    return r.value();
  }

  bool Exists(const ResourceType& t, const std::string& name, const std::string& ns = "spark") {
    return store->Get(t, ns, name).ok();
  }

  json::object MustPatch(const ResourceType& t, const std::string& name, const std::string& body,
                         PatchType type = PatchType::kMerge, bool status = false,
                         const std::string& ns = "spark") {
    auto r = store->Patch(t, ns, name, type, body, status, {});
    if (!r.ok()) FAIL(r.error().message);
    return r.value();
  }

  // Puts a pod into Running with a started container, so its log is readable.
  void StartPod(const std::string& name, const std::vector<std::string>& containers) {
    json::array statuses;
    for (const std::string& c : containers) {
      statuses.push_back(json::object{{"name", c}, {"state", {{"running", {{"startedAt", "x"}}}}}});
    }
    json::object patch{{"status", {{"phase", "Running"}, {"containerStatuses", statuses}}}};
    MustPatch(pod, name, json::serialize(patch), PatchType::kMerge, true);
  }
};

// ---- create / get -------------------------------------------------------------------------

TEST_CASE_METHOD(Fixture, "create sets the metadata the API server owns", "[store]") {
  json::object in = App("pi");
  in["status"] = json::object{{"currentState", "forged"}};
  Meta(in);
  in["metadata"].as_object()["uid"] = "client-uid";
  in["metadata"].as_object()["deletionTimestamp"] = "2020-01-01T00:00:00Z";
  json::object created = MustCreate(app, in);
  const json::object& m = Meta(created);
  CHECK(std::regex_match(
      Uid(created),
      std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")));
  CHECK(Uid(created) != "client-uid");
  CHECK(m.at("creationTimestamp") == "2025-12-01T01:20:00Z");
  CHECK(m.at("generation") == 1);
  CHECK(m.at("namespace") == "spark");
  CHECK_FALSE(m.contains("deletionTimestamp"));
  CHECK(Rv(created) == store->CurrentResourceVersion());
  CHECK_FALSE(created.contains("status"));  // the status subresource owns it
  CHECK(created.at("apiVersion") == "spark.apache.org/v1");
  json::object got = MustGet(app, "pi");
  CHECK(got == created);

  json::object second = MustCreate(app, App("pi2"));
  CHECK(std::stoull(Rv(second)) > std::stoull(Rv(created)));
  CHECK(Uid(second) != Uid(created));
}

TEST_CASE_METHOD(Fixture, "create fills apiVersion and kind and rejects mismatches", "[store]") {
  json::object bare{{"metadata", {{"name", "cm1"}}}, {"data", {{"k", "v"}}}};
  json::object created = MustCreate(cm, bare);
  CHECK(created.at("kind") == "ConfigMap");
  CHECK(created.at("apiVersion") == "v1");
  CHECK_FALSE(Meta(created).contains("generation"));  // core types here carry no generation

  json::object wrong = App("x");
  wrong["apiVersion"] = "spark.apache.org/v2";
  auto r = store->Create(app, "spark", wrong, {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == 400);
  json::object wrong_ns = App("y");
  wrong_ns["metadata"].as_object()["namespace"] = "other";
  auto r2 = store->Create(app, "spark", wrong_ns, {});
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().code == 400);
  json::object with_rv = App("z");
  with_rv["metadata"].as_object()["resourceVersion"] = "5";
  auto r3 = store->Create(app, "spark", with_rv, {});
  REQUIRE_FALSE(r3.ok());
  CHECK(r3.error().code == 400);
}

TEST_CASE_METHOD(Fixture, "create errors: exists, namespace, invalid, strict", "[store]") {
  MustCreate(app, App("pi"));
  auto dup = store->Create(app, "spark", App("pi"), {});
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().code == 409);
  CHECK(dup.error().reason == "AlreadyExists");
  CHECK(dup.error().message == "sparkapplications.spark.apache.org \"pi\" already exists");
  CHECK(dup.error().details.at("name") == "pi");
  CHECK(dup.error().details.at("group") == "spark.apache.org");
  CHECK(dup.error().details.at("kind") == "sparkapplications");

  auto no_ns = store->Create(app, "nowhere", App("pi"), {});
  REQUIRE_FALSE(no_ns.ok());
  CHECK(no_ns.error().code == 404);
  CHECK(no_ns.error().reason == "NotFound");
  CHECK(no_ns.error().message == "namespaces \"nowhere\" not found");

  json::object missing = App("bad");
  missing["spec"].as_object().erase("mainClass");
  auto invalid = store->Create(app, "spark", missing, {});
  REQUIRE_FALSE(invalid.ok());
  CHECK(invalid.error().code == 422);
  CHECK(invalid.error().reason == "Invalid");
  CHECK(invalid.error().message ==
        "SparkApplication.spark.apache.org \"bad\" is invalid: spec.mainClass: Required value");
  const json::array& causes = invalid.error().details.at("causes").as_array();
  REQUIRE(causes.size() == 1);
  CHECK(causes[0].at("field") == "spec.mainClass");
  CHECK(causes[0].at("reason") == "FieldValueRequired");
  CHECK(invalid.error().details.at("kind") == "SparkApplication");
  CHECK_FALSE(Exists(app, "bad"));

  json::object two = App("Bad_Name");
  two["spec"].as_object()["mainClass"] = 3;
  auto multi = store->Create(app, "spark", two, {});
  REQUIRE_FALSE(multi.ok());
  CHECK(multi.error().details.at("causes").as_array().size() == 2);
  CHECK(multi.error().message.find("is invalid: [metadata.name: Invalid value: \"Bad_Name\"") !=
        std::string::npos);

  json::object extra = App("extra");
  extra["spec"].as_object()["foo"] = 1;
  extra["metadata"].as_object()["bogus"] = 1;
  WriteOptions strict;
  strict.strict_fields = true;
  auto rejected = store->Create(app, "spark", extra, strict);
  REQUIRE_FALSE(rejected.ok());
  CHECK(rejected.error().code == 400);
  CHECK(rejected.error().message ==
        "strict decoding error: unknown field \"metadata.bogus\", unknown field \"spec.foo\"");
  CHECK_FALSE(Exists(app, "extra"));
  json::object pruned = MustCreate(app, extra);
  CHECK_FALSE(pruned.at("spec").as_object().contains("foo"));
  CHECK_FALSE(Meta(pruned).contains("bogus"));

  json::object bad_label = App("lbl", json::object{{"a", "not valid!"}});
  auto label = store->Create(app, "spark", bad_label, {});
  REQUIRE_FALSE(label.ok());
  CHECK(label.error().code == 422);
  CHECK(label.error().message.find("metadata.labels") != std::string::npos);

  auto bad_ns = store->Create(NamespaceType(), "", {{"metadata", {{"name", "a.b"}}}}, {});
  REQUIRE_FALSE(bad_ns.ok());  // namespaces are DNS-1123 labels, no dots
  CHECK(bad_ns.error().code == 422);
  json::object no_name = App("");
  auto nameless = store->Create(app, "spark", no_name, {});
  REQUIRE_FALSE(nameless.ok());
  CHECK(nameless.error().code == 422);
  CHECK(nameless.error().details.at("causes").as_array()[0].at("field") == "metadata.name");
}

TEST_CASE_METHOD(Fixture, "generateName and dry run", "[store]") {
  json::object in = App("");
  in["metadata"].as_object().erase("name");
  in["metadata"].as_object()["generateName"] = "pi-";
  json::object a = MustCreate(app, in);
  json::object b = MustCreate(app, in);
  std::string na = Str(Meta(a).at("name"));
  CHECK(std::regex_match(na, std::regex("pi-[a-z0-9]{5}")));
  CHECK(na != Str(Meta(b).at("name")));
  CHECK(Exists(app, na));

  std::string rv = store->CurrentResourceVersion();
  WriteOptions dry;
  dry.dry_run = true;
  auto r = store->Create(app, "spark", App("dry"), dry);
  REQUIRE(r.ok());
  CHECK_FALSE(Exists(app, "dry"));
  CHECK(store->CurrentResourceVersion() == rv);
}

TEST_CASE_METHOD(Fixture, "get of a missing object or type", "[store]") {
  auto r = store->Get(app, "spark", "nope");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == 404);
  CHECK(r.error().message == "sparkapplications.spark.apache.org \"nope\" not found");
  CHECK(r.error().details.at("kind") == "sparkapplications");
  ResourceType unknown = app;
  unknown.plural = "others";
  CHECK(store->Get(unknown, "spark", "x").error().code == 404);
  CHECK(store->FindType("spark.apache.org", "v1", "sparkapplications") != nullptr);
  CHECK(store->FindType("spark.apache.org", "v2", "sparkapplications") == nullptr);
  CHECK(store->FindType("", "v1", "namespaces") != nullptr);
  CHECK(MustGet(NamespaceType(), "default", "").at("status").at("phase") == "Active");
}

// ---- list -----------------------------------------------------------------------------------

TEST_CASE_METHOD(Fixture, "list with label and field selectors", "[store]") {
  CreateNamespace("other");
  MustCreate(app, App("a", {{"tier", "batch"}, {"team", "x"}}));
  MustCreate(app, App("b", {{"tier", "web"}}));
  MustCreate(app, App("c"));
  MustCreate(app, App("d", {{"tier", "batch"}}), "other");

  auto list = [&](const std::string& ns, const std::string& labels,
                  const std::string& fields = "") {
    ListOptions o;
    o.label_selector = labels;
    o.field_selector = fields;
    auto r = Listed(app, ns, o);
    if (!r.ok()) FAIL(r.error().message);
    return Names(r.value());
  };
  using V = std::vector<std::string>;
  CHECK(list("spark", "") == V{"a", "b", "c"});
  CHECK(list("", "") == V{"d", "a", "b", "c"});  // "other/d" sorts before "spark/a"
  CHECK(list("spark", "tier=batch") == V{"a"});
  CHECK(list("", "tier==batch") == V{"d", "a"});
  CHECK(list("spark", "tier!=batch") == V{"b", "c"});
  CHECK(list("spark", "tier in (batch,web)") == V{"a", "b"});
  CHECK(list("spark", "tier notin (batch)") == V{"b", "c"});
  CHECK(list("spark", "tier") == V{"a", "b"});
  CHECK(list("spark", "!tier") == V{"c"});
  CHECK(list("spark", "tier=batch,team=x") == V{"a"});
  CHECK(list("", "", "metadata.name=d") == V{"d"});
  CHECK(list("", "", "metadata.namespace=spark,metadata.name!=b") == V{"a", "c"});

  auto r = Listed(app, "spark", Labels("tier in batch"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == 400);
  auto f = Listed(app, "spark", Fields("spec.mainClass=x"));
  REQUIRE_FALSE(f.ok());
  CHECK(f.error().code == 400);

  json::object whole = Listed(app, "spark", {}).value();
  CHECK(whole.at("kind") == "SparkApplicationList");
  CHECK(whole.at("apiVersion") == "spark.apache.org/v1");
  CHECK(Str(whole.at("metadata").at("resourceVersion")) == store->CurrentResourceVersion());
  CHECK_FALSE(whole.at("metadata").as_object().contains("continue"));
  CHECK(whole.at("items").as_array()[0].at("kind") == "SparkApplication");
}

TEST_CASE_METHOD(Fixture, "paging through 10k objects is a consistent snapshot", "[store]") {
  constexpr int kCount = 10000;
  constexpr int kPage = 700;
  char name[32];
  for (int i = 0; i < kCount; ++i) {
    std::snprintf(name, sizeof(name), "app-%05d", i);
    MustCreate(app, App(name, {{"n", std::to_string(i % 3)}}));
  }
  std::string snapshot_rv = store->CurrentResourceVersion();
  std::vector<std::string> seen;
  ListOptions o;
  o.limit = kPage;
  int pages = 0;
  int64_t expected_remaining = kCount;
  while (true) {
    auto r = Listed(app, "spark", o);
    REQUIRE(r.ok());
    const json::object& meta = r.value().at("metadata").as_object();
    CHECK(Str(meta.at("resourceVersion")) == snapshot_rv);
    for (const std::string& n : Names(r.value())) seen.push_back(n);
    expected_remaining -= static_cast<int64_t>(r.value().at("items").as_array().size());
    ++pages;
    if (pages == 3) {
      // Concurrent writers: a new object, a deletion and a modification ahead of the cursor,
      // and a new object behind it. None may show in this list.
      MustCreate(app, App("app-99999"));
      MustCreate(app, App("aaa-first"));
      REQUIRE(store->Delete(app, "spark", "app-09000", {}).ok());
      MustPatch(app, "app-08000", R"({"metadata":{"labels":{"changed":"yes"}}})");
    }
    if (!meta.contains("continue")) {
      CHECK(expected_remaining == 0);
      break;
    }
    CHECK(meta.at("remainingItemCount") == expected_remaining);
    o.continue_token = Str(meta.at("continue"));
  }
  CHECK(pages == (kCount + kPage - 1) / kPage);
  REQUIRE(seen.size() == kCount);
  CHECK(std::is_sorted(seen.begin(), seen.end()));
  CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == kCount);
  CHECK(seen[9000] == "app-09000");

  // The snapshot also serves the old state of the modified object and selectors.
  ListOptions exact;
  exact.resource_version = snapshot_rv;
  exact.resource_version_match = "Exact";
  exact.label_selector = "changed=yes";
  CHECK(Names(Listed(app, "spark", exact).value()).empty());
  exact.label_selector = "";
  exact.field_selector = "metadata.name=app-09000";
  CHECK(Names(Listed(app, "spark", exact).value()) == std::vector<std::string>{"app-09000"});

  // A fresh list sees the writes.
  ListOptions fresh;
  fresh.label_selector = "changed=yes";
  CHECK(Names(Listed(app, "spark", fresh).value()) == std::vector<std::string>{"app-08000"});
  CHECK(Listed(app, "spark", {}).value().at("items").as_array().size() == kCount + 1);
}

TEST_CASE_METHOD(Fixture, "a LIST's text is List's object, whatever order an object's keys have",
                 "[store]") {
  // As clients send them: apiVersion first (spliced as stored), kind first or metadata first
  // (rendered).
  MustCreate(app, App("a-usual"));
  json::object kind_first{{"kind", "SparkApplication"},
                          {"apiVersion", "spark.apache.org/v1"},
                          {"metadata", json::object{{"name", "b-kind-first"}}},
                          {"spec", json::object{{"mainClass", "x"}}}};
  MustCreate(app, kind_first);
  json::object metadata_first{{"metadata", json::object{{"name", "c-metadata-first"}}},
                              {"spec", json::object{{"mainClass", "x"}}},
                              {"apiVersion", "spark.apache.org/v1"},
                              {"kind", "SparkApplication"}};
  MustCreate(app, metadata_first);
  auto listed = Listed(app, "spark", {});
  REQUIRE(listed.ok());
  CHECK(Names(listed.value()) ==
        std::vector<std::string>{"a-usual", "b-kind-first", "c-metadata-first"});
  for (const json::value& item : listed.value().at("items").as_array()) {
    CHECK(item.at("apiVersion") == "spark.apache.org/v1");
    CHECK(item.at("kind") == "SparkApplication");
  }
  // Core lists carry no apiVersion or kind on their items.
  MustCreate(pod, Pod("p1"));
  MustCreate(pod, Pod("p2", {"a", "b"}));
  auto pods = Listed(pod, "spark", {});
  REQUIRE(pods.ok());
  for (const json::value& item : pods.value().at("items").as_array()) {
    CHECK_FALSE(item.as_object().contains("apiVersion"));
  }
  // Across namespaces, with a page size, and an error.
  ListOptions paged;
  paged.limit = 2;
  CHECK(Listed(app, "", paged).ok());
  ListOptions bad;
  bad.label_selector = "a in (";
  CHECK_FALSE(Listed(app, "spark", bad).ok());
}

TEST_CASE_METHOD(Fixture, "paging with a selector and expired continue tokens", "[store]") {
  for (int i = 0; i < 20; ++i) {
    MustCreate(app, App("app-" + std::to_string(100 + i), {{"even", i % 2 == 0 ? "y" : "n"}}));
  }
  ListOptions o;
  o.limit = 3;
  o.label_selector = "even=y";
  std::vector<std::string> seen;
  for (int guard = 0; guard < 20; ++guard) {
    auto r = Listed(app, "spark", o);
    REQUIRE(r.ok());
    auto names = Names(r.value());
    CHECK(names.size() <= 3);
    seen.insert(seen.end(), names.begin(), names.end());
    const json::object& meta = r.value().at("metadata").as_object();
    CHECK_FALSE(meta.contains("remainingItemCount"));  // unknown with a selector
    if (!meta.contains("continue")) break;
    o.continue_token = Str(meta.at("continue"));
  }
  CHECK(seen.size() == 10);

  ListOptions first;
  first.limit = 5;
  auto page = Listed(app, "spark", first);
  std::string token = Str(page.value().at("metadata").at("continue"));
  MustCreate(app, App("later"));
  store->Compact();
  ListOptions next;
  next.limit = 5;
  next.continue_token = token;
  auto expired = Listed(app, "spark", next);
  REQUIRE_FALSE(expired.ok());
  CHECK(expired.error().code == 410);
  CHECK(expired.error().reason == "Expired");

  next.continue_token = "not-a-token!";
  auto bad = Listed(app, "spark", next);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == 400);
}

TEST_CASE_METHOD(Fixture, "list resourceVersion semantics", "[store]") {
  MustCreate(app, App("a"));
  std::string rv1 = store->CurrentResourceVersion();
  MustCreate(app, App("b"));
  ListOptions o;
  o.resource_version = rv1;
  o.resource_version_match = "Exact";
  auto exact = Listed(app, "spark", o);
  REQUIRE(exact.ok());
  CHECK(Names(exact.value()) == std::vector<std::string>{"a"});
  CHECK(Str(exact.value().at("metadata").at("resourceVersion")) == rv1);

  o.resource_version_match = "NotOlderThan";
  CHECK(Names(Listed(app, "spark", o).value()).size() == 2);
  o.resource_version = "0";
  o.resource_version_match = "";
  CHECK(Names(Listed(app, "spark", o).value()).size() == 2);

  o.resource_version = std::to_string(std::stoull(store->CurrentResourceVersion()) + 10);
  auto future = Listed(app, "spark", o);
  REQUIRE_FALSE(future.ok());
  CHECK(future.error().code == 504);
  CHECK(future.error().message.find("Too large resource version") != std::string::npos);

  o.resource_version = "abc";
  CHECK(Listed(app, "spark", o).error().code == 400);

  store->Compact();
  o.resource_version = rv1;
  o.resource_version_match = "Exact";
  auto old = Listed(app, "spark", o);
  REQUIRE_FALSE(old.ok());
  CHECK(old.error().code == 410);
}

// ---- update / patch ---------------------------------------------------------------------------

TEST_CASE_METHOD(Fixture, "update: optimistic concurrency and generation", "[store]") {
  json::object v1 = MustCreate(app, App("pi"));
  json::object edit = v1;
  edit["spec"].as_object()["mainClass"] = "Other";
  auto r = store->Update(app, "spark", "pi", edit, false, {});
  REQUIRE(r.ok());
  json::object v2 = r.value();
  CHECK(Meta(v2).at("generation") == 2);
  CHECK(Uid(v2) == Uid(v1));
  CHECK(Meta(v2).at("creationTimestamp") == Meta(v1).at("creationTimestamp"));

  auto stale = store->Update(app, "spark", "pi", edit, false, {});  // carries v1's rv
  REQUIRE_FALSE(stale.ok());
  CHECK(stale.error().code == 409);
  CHECK(stale.error().reason == "Conflict");
  CHECK(stale.error().message ==
        "Operation cannot be fulfilled on sparkapplications.spark.apache.org \"pi\": the object "
        "has been modified; please apply your changes to the latest version and try again");

  // Metadata-only changes do not bump generation.
  json::object labels = v2;
  labels["metadata"].as_object()["labels"] = json::object{{"x", "y"}};
  json::object v3 = store->Update(app, "spark", "pi", labels, false, {}).value();
  CHECK(Meta(v3).at("generation") == 2);
  CHECK(Meta(v3).at("labels").at("x") == "y");

  // A write that changes nothing keeps the resourceVersion.
  json::object same = store->Update(app, "spark", "pi", v3, false, {}).value();
  CHECK(Rv(same) == Rv(v3));

  // Custom resources need a resourceVersion on update; core types may update unconditionally.
  json::object no_rv = v3;
  no_rv["metadata"].as_object().erase("resourceVersion");
  auto unconditional = store->Update(app, "spark", "pi", no_rv, false, {});
  REQUIRE_FALSE(unconditional.ok());
  CHECK(unconditional.error().code == 422);
  MustCreate(cm, {{"metadata", {{"name", "c"}}}, {"data", {{"k", "1"}}}});
  auto core = store->Update(cm, "spark", "c",
                            {{"metadata", {{"name", "c"}}}, {"data", {{"k", "2"}}}}, false, {});
  REQUIRE(core.ok());
  CHECK(core.value().at("data").at("k") == "2");

  auto renamed = store->Update(app, "spark", "pi", App("other"), false, {});
  REQUIRE_FALSE(renamed.ok());
  CHECK(renamed.error().code == 400);
  auto missing = store->Update(app, "spark", "ghost", App("ghost"), false, {});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == 404);
  json::object invalid = v3;
  invalid["spec"].as_object().erase("mainClass");
  CHECK(store->Update(app, "spark", "pi", invalid, false, {}).error().code == 422);
}

TEST_CASE_METHOD(Fixture, "status subresource isolation", "[store]") {
  json::object v1 = MustCreate(app, App("pi"));
  json::object with_status = v1;
  with_status["status"] = json::object{{"currentState", {{"currentStateSummary", "Submitted"}}}};
  with_status["spec"].as_object()["mainClass"] = "Changed";
  with_status["metadata"].as_object()["labels"] = json::object{{"sneaky", "yes"}};
  auto s = store->Update(app, "spark", "pi", with_status, true, {});
  REQUIRE(s.ok());
  CHECK(s.value().at("status").at("currentState").at("currentStateSummary") == "Submitted");
  CHECK(s.value().at("spec").at("mainClass") == "org.apache.spark.examples.SparkPi");
  CHECK_FALSE(Meta(s.value()).at("labels").as_object().contains("sneaky"));
  CHECK(Meta(s.value()).at("generation") == 1);  // status writes never bump generation

  // The main resource ignores .status.
  json::object main = s.value();
  main["status"] = json::object{{"currentState", {{"currentStateSummary", "Forged"}}}};
  main["metadata"].as_object()["labels"] = json::object{{"ok", "1"}};
  auto m = store->Update(app, "spark", "pi", main, false, {});
  REQUIRE(m.ok());
  CHECK(m.value().at("status").at("currentState").at("currentStateSummary") == "Submitted");
  CHECK(Meta(m.value()).at("labels").at("ok") == "1");

  json::object patched = MustPatch(app, "pi", R"({"status":{"x":1},"spec":{"mainClass":"Z"}})",
                                   PatchType::kMerge, true);
  CHECK(patched.at("status").at("x") == 1);
  CHECK(patched.at("spec").at("mainClass") == "org.apache.spark.examples.SparkPi");
  json::object ignored = MustPatch(app, "pi", R"({"status":{"x":2}})");
  CHECK(ignored.at("status").at("x") == 1);
  CHECK(Rv(ignored) == Rv(patched));  // nothing changed, so no new version

  // configmaps have no status subresource.
  MustCreate(cm, {{"metadata", {{"name", "c"}}}});
  CHECK(store->Patch(cm, "spark", "c", PatchType::kMerge, "{}", true, {}).error().code == 404);
}

TEST_CASE_METHOD(Fixture, "patch types", "[store]") {
  json::object v1 = MustCreate(app, App("pi", {{"a", "1"}}));
  json::object merged = MustPatch(app, "pi", R"({"metadata":{"labels":{"a":null,"b":"2"}}})");
  CHECK(Meta(merged).at("labels") == json::object{{"b", "2"}});
  CHECK(Meta(merged).at("generation") == 1);

  json::object jp = MustPatch(app, "pi",
                              R"([{"op":"test","path":"/metadata/labels/b","value":"2"},
          {"op":"replace","path":"/spec/mainClass","value":"Y"}])",
                              PatchType::kJson);
  CHECK(jp.at("spec").at("mainClass") == "Y");
  CHECK(Meta(jp).at("generation") == 2);

  auto failed =
      store->Patch(app, "spark", "pi", PatchType::kJson,
                   R"([{"op":"test","path":"/spec/mainClass","value":"nope"}])", false, {});
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().code == 422);

  auto smp = store->Patch(app, "spark", "pi", PatchType::kStrategicMerge, "{}", false, {});
  REQUIRE_FALSE(smp.ok());
  CHECK(smp.error().code == 415);

  auto stale = store->Patch(
      app, "spark", "pi", PatchType::kMerge,
      R"({"metadata":{"resourceVersion":")" + Rv(v1) + R"("},"spec":{"mainClass":"Q"}})", false,
      {});
  REQUIRE_FALSE(stale.ok());
  CHECK(stale.error().code == 409);
  auto garbage = store->Patch(app, "spark", "pi", PatchType::kMerge, "{not json", false, {});
  REQUIRE_FALSE(garbage.ok());
  CHECK(garbage.error().code == 400);
  auto invalid = store->Patch(app, "spark", "pi", PatchType::kMerge,
                              R"({"spec":{"mainClass":null}})", false, {});
  REQUIRE_FALSE(invalid.ok());
  CHECK(invalid.error().code == 422);
  auto missing = store->Patch(app, "spark", "ghost", PatchType::kMerge, "{}", false, {});
  CHECK(missing.error().code == 404);

  // Strategic merge on a core type merges finalizers and containers by name.
  MustCreate(pod, Pod("p", {"a", "b"}));
  json::object sm = MustPatch(
      pod, "p",
      R"({"metadata":{"finalizers":["x/y"]},"spec":{"containers":[{"name":"b","image":"new"}]}})",
      PatchType::kStrategicMerge);
  CHECK(sm.at("spec").at("containers").as_array().size() == 2);
  CHECK(sm.at("spec").at("containers").as_array()[1].at("image") == "new");
  CHECK(Meta(sm).at("finalizers").as_array().size() == 1);
}

// ---- delete -----------------------------------------------------------------------------------

TEST_CASE_METHOD(Fixture, "delete preconditions", "[store]") {
  json::object v1 = MustCreate(app, App("pi"));
  DeleteOptions uid;
  uid.precondition_uid = "other-uid";
  auto r = store->Delete(app, "spark", "pi", uid);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == 409);
  CHECK(r.error().message ==
        "Operation cannot be fulfilled on sparkapplications.spark.apache.org \"pi\": "
        "Precondition failed: UID in precondition: other-uid, UID in object meta: " +
            Uid(v1));
  DeleteOptions rv;
  rv.precondition_resource_version = "1";
  auto r2 = store->Delete(app, "spark", "pi", rv);
  REQUIRE_FALSE(r2.ok());
  CHECK(r2.error().message.find("Precondition failed: ResourceVersion in precondition: 1") !=
        std::string::npos);
  DeleteOptions good;
  good.precondition_uid = Uid(v1);
  good.precondition_resource_version = Rv(v1);
  REQUIRE(store->Delete(app, "spark", "pi", good).ok());
  CHECK_FALSE(Exists(app, "pi"));
  CHECK(store->Delete(app, "spark", "pi", {}).error().code == 404);
  DeleteOptions bad_policy;
  MustCreate(app, App("pi2"));
  bad_policy.propagation_policy = "Sideways";
  CHECK(store->Delete(app, "spark", "pi2", bad_policy).error().code == 422);
  DeleteOptions dry;
  dry.dry_run = true;
  REQUIRE(store->Delete(app, "spark", "pi2", dry).ok());
  CHECK(Exists(app, "pi2"));
}

TEST_CASE_METHOD(Fixture, "finalizers hold a deleted object", "[store]") {
  json::object in = App("pi");
  in["metadata"].as_object()["finalizers"] = json::array{"spark.apache.org/finalizer", "b/c"};
  MustCreate(app, in);
  now += 5000;
  auto r = store->Delete(app, "spark", "pi", {});
  REQUIRE(r.ok());
  CHECK(Meta(r.value()).at("deletionTimestamp") == "2025-12-01T01:20:05Z");
  json::object held = MustGet(app, "pi");
  CHECK(Meta(held).contains("deletionTimestamp"));

  // A second delete changes nothing; new finalizers are refused while deleting.
  auto again = store->Delete(app, "spark", "pi", {});
  REQUIRE(again.ok());
  CHECK(Rv(again.value()) == Rv(held));
  auto add = store->Patch(
      app, "spark", "pi", PatchType::kMerge,
      R"({"metadata":{"finalizers":["spark.apache.org/finalizer","b/c","d/e"]}})", false, {});
  REQUIRE_FALSE(add.ok());
  CHECK(add.error().code == 422);
  CHECK(add.error().message.find("no new finalizers can be added") != std::string::npos);

  // Spec changes are still allowed; removing the last finalizer removes the object.
  MustPatch(app, "pi", R"({"metadata":{"finalizers":["b/c"]}})");
  CHECK(Exists(app, "pi"));
  json::object last = MustGet(app, "pi");
  last["metadata"].as_object()["finalizers"] = json::array();
  auto gone = store->Update(app, "spark", "pi", last, false, {});
  REQUIRE(gone.ok());
  CHECK_FALSE(Exists(app, "pi"));
}

TEST_CASE_METHOD(Fixture, "garbage collection across types and orphaning", "[store]") {
  json::object owner = MustCreate(app, App("pi"));
  MustCreate(pod, Pod("pi-driver", {"spark-kubernetes-driver"}, {OwnerRef(owner, true)}));
  MustCreate(cm,
             {{"metadata", {{"name", "pi-conf"}, {"ownerReferences", {OwnerRef(owner, false)}}}}});
  json::object other = MustCreate(app, App("other"));
  // Two owners: survives the first owner's deletion with the reference dropped.
  MustCreate(cm, {{"metadata",
                   {{"name", "shared"},
                    {"ownerReferences", {OwnerRef(owner, false), OwnerRef(other, false)}}}}});
  REQUIRE(store->Delete(app, "spark", "pi", {}).ok());
  CHECK_FALSE(Exists(pod, "pi-driver"));
  CHECK_FALSE(Exists(cm, "pi-conf"));
  json::object shared = MustGet(cm, "shared");
  REQUIRE(Meta(shared).at("ownerReferences").as_array().size() == 1);
  CHECK(Meta(shared).at("ownerReferences").as_array()[0].at("name") == "other");

  // Orphan: dependents stay, without the reference.
  MustCreate(pod, Pod("orphan", {"c"}, {OwnerRef(other, true)}));
  DeleteOptions orphan;
  orphan.propagation_policy = "Orphan";
  REQUIRE(store->Delete(app, "spark", "other", orphan).ok());
  CHECK_FALSE(Exists(app, "other"));
  json::object kept = MustGet(pod, "orphan");
  CHECK_FALSE(Meta(kept).contains("ownerReferences"));
  CHECK_FALSE(Meta(MustGet(cm, "shared")).contains("ownerReferences"));
}

TEST_CASE_METHOD(Fixture, "foreground deletion waits for blocking dependents", "[store]") {
  json::object owner = MustCreate(app, App("pi"));
  json::object held = Pod("driver", {"c"}, {OwnerRef(owner, true)});
  held["metadata"].as_object()["finalizers"] = json::array{"test/hold"};
  MustCreate(pod, held);
  MustCreate(pod, Pod("exec", {"c"}, {OwnerRef(owner, true)}));
  DeleteOptions fg;
  fg.propagation_policy = "Foreground";
  auto r = store->Delete(app, "spark", "pi", fg);
  REQUIRE(r.ok());
  json::object waiting = MustGet(app, "pi");
  CHECK(Meta(waiting).contains("deletionTimestamp"));
  CHECK(Meta(waiting).at("finalizers") == json::array{"foregroundDeletion"});
  CHECK_FALSE(Exists(pod, "exec"));  // deleted right away
  json::object driver = MustGet(pod, "driver");
  CHECK(Meta(driver).contains("deletionTimestamp"));  // deleting, held by its finalizer

  MustPatch(pod, "driver", R"({"metadata":{"finalizers":null}})");
  CHECK_FALSE(Exists(pod, "driver"));
  CHECK_FALSE(Exists(app, "pi"));  // the last blocking dependent is gone

  // Without blocking dependents, foreground deletion completes immediately.
  json::object lone = MustCreate(app, App("lone"));
  MustCreate(pod, Pod("free", {"c"}, {OwnerRef(lone, false)}));
  REQUIRE(store->Delete(app, "spark", "lone", fg).ok());
  CHECK_FALSE(Exists(app, "lone"));
  CHECK_FALSE(Exists(pod, "free"));
}

TEST_CASE_METHOD(Fixture, "deletecollection and namespace deletion", "[store]") {
  MustCreate(app, App("a", {{"k", "1"}}));
  MustCreate(app, App("b", {{"k", "1"}}));
  MustCreate(app, App("c", {{"k", "2"}}));
  ListOptions sel;
  sel.label_selector = "k=1";
  auto r = store->DeleteCollection(app, "spark", sel, {});
  REQUIRE(r.ok());
  CHECK(r.value().at("items").as_array().size() == 2);
  CHECK(Names(Listed(app, "spark", {}).value()) == std::vector<std::string>{"c"});

  json::object held = App("held");
  held["metadata"].as_object()["finalizers"] = json::array{"x/y"};
  MustCreate(app, held);
  REQUIRE(store->Delete(NamespaceType(), "", "spark", {}).ok());
  json::object ns = MustGet(NamespaceType(), "spark", "");
  CHECK(ns.at("status").at("phase") == "Terminating");
  CHECK_FALSE(Exists(app, "c"));
  auto refused = store->Create(app, "spark", App("new"), {});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == 403);
  CHECK(refused.error().message.find("because it is being terminated") != std::string::npos);
  MustPatch(app, "held", R"({"metadata":{"finalizers":null}})");
  CHECK_FALSE(Exists(NamespaceType(), "spark", ""));
}

// ---- watch ------------------------------------------------------------------------------------

TEST_CASE_METHOD(Fixture, "watch from a resourceVersion with selectors", "[store]") {
  MustCreate(app, App("before", {{"w", "1"}}));
  std::string rv = store->CurrentResourceVersion();
  int notified = 0;
  ListOptions o;
  o.resource_version = rv;
  o.label_selector = "w=1";
  auto w = store->Watch(app, "spark", o, [&] { ++notified; });
  REQUIRE(w.ok());
  auto h = w.value();
  CHECK(h->Drain().empty());  // nothing after rv

  MustCreate(app, App("in", {{"w", "1"}}));
  MustCreate(app, App("out", {{"w", "2"}}));
  MustPatch(app, "out", R"({"metadata":{"labels":{"w":"1"}}})");  // enters: ADDED
  MustPatch(app, "in", R"({"metadata":{"labels":{"w":"2"}}})");   // leaves: DELETED
  MustPatch(app, "out", R"({"spec":{"mainClass":"M"}})");         // MODIFIED
  REQUIRE(store->Delete(app, "spark", "out", {}).ok());           // DELETED
  REQUIRE(store->Delete(app, "spark", "in", {}).ok());            // not visible
  CHECK(notified >= 5);
  auto events = h->Drain();
  std::vector<std::string> seen;
  for (const WatchEvent& e : events) {
    seen.push_back(e.type + ":" + Str(Meta(e.object).at("name")));
    CHECK(e.object.at("kind") == "SparkApplication");
  }
  CHECK(seen == std::vector<std::string>{"ADDED:in", "ADDED:out", "DELETED:in", "MODIFIED:out",
                                         "DELETED:out"});
  CHECK(std::stoull(Rv(events.back().object)) <= std::stoull(store->CurrentResourceVersion()));
  CHECK(h->BookmarkResourceVersion() == store->CurrentResourceVersion());

  // Replaying from the same version yields the same history.
  auto replay = store->Watch(app, "spark", o, nullptr);
  REQUIRE(replay.ok());
  CHECK(replay.value()->Drain().size() == events.size());

  h->Stop();
  MustCreate(app, App("after", {{"w", "1"}}));
  CHECK(h->Drain().empty());
}

TEST_CASE_METHOD(Fixture, "watch from zero lists first; other namespaces stay out", "[store]") {
  CreateNamespace("other");
  MustCreate(app, App("a"));
  MustCreate(app, App("b"));
  MustCreate(app, App("x"), "other");
  auto w = store->Watch(app, "spark", {}, nullptr);
  REQUIRE(w.ok());
  auto events = w.value()->Drain();
  REQUIRE(events.size() == 2);
  CHECK(events[0].type == "ADDED");
  CHECK(events[1].type == "ADDED");
  MustCreate(app, App("y"), "other");
  MustCreate(app, App("c"));
  auto more = w.value()->Drain();
  REQUIRE(more.size() == 1);
  CHECK(Str(Meta(more[0].object).at("name")) == "c");

  auto all = store->Watch(app, "", AtVersion("0"), nullptr);
  CHECK(all.value()->Drain().size() == 5);
}

TEST_CASE_METHOD(Fixture, "watch of a compacted version is 410", "[store]") {
  MustCreate(app, App("a"));
  std::string old = store->CurrentResourceVersion();
  MustCreate(app, App("b"));
  store->Compact();
  ListOptions o;
  o.resource_version = old;
  auto w = store->Watch(app, "spark", o, nullptr);
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().code == 410);
  CHECK(w.error().reason == "Expired");
  o.resource_version = store->CurrentResourceVersion();
  auto ok = store->Watch(app, "spark", o, nullptr);
  REQUIRE(ok.ok());
  MustCreate(app, App("c"));
  CHECK(ok.value()->Drain().size() == 1);
  CHECK(store->Watch(app, "spark", Labels("a in"), nullptr).error().code == 400);
}

TEST_CASE_METHOD(Fixture, "a watcher that falls behind gets a 410 ERROR and stops", "[store]") {
  ListOptions o;
  o.resource_version = store->CurrentResourceVersion();
  auto w = store->Watch(app, "spark", o, nullptr);
  REQUIRE(w.ok());
  MustCreate(cm, {{"metadata", {{"name", "c"}}}, {"data", {{"n", "0"}}}});
  MustCreate(app, App("busy"));
  // Far more events than a watch queue holds; the writer never blocks on the idle watcher.
  for (int i = 0; i < 25000; ++i) {
    MustPatch(app, "busy", R"({"metadata":{"labels":{"n":")" + std::to_string(i) + R"("}}})");
  }
  auto events = w.value()->Drain();
  REQUIRE(events.size() == 1);
  CHECK(events[0].type == "ERROR");
  CHECK(events[0].object.at("code") == 410);
  CHECK(events[0].object.at("kind") == "Status");
  MustPatch(app, "busy", R"({"metadata":{"labels":{"n":"last"}}})");
  CHECK(w.value()->Drain().empty());
}

TEST_CASE_METHOD(Fixture, "bookmark version never skips a queued event", "[store]") {
  ListOptions o;
  o.resource_version = store->CurrentResourceVersion();
  auto w = store->Watch(app, "spark", o, nullptr);
  REQUIRE(w.ok());
  json::object a = MustCreate(app, App("a"));
  MustCreate(cm, {{"metadata", {{"name", "unrelated"}}}});
  CHECK(std::stoull(w.value()->BookmarkResourceVersion()) < std::stoull(Rv(a)));
  w.value()->Drain();
  CHECK(w.value()->BookmarkResourceVersion() == store->CurrentResourceVersion());
}

// ---- logs -------------------------------------------------------------------------------------

TEST_CASE_METHOD(Fixture, "pod logs: containers, tail, limit, previous", "[store]") {
  MustCreate(pod, Pod("one", {"main"}));
  MustCreate(pod, Pod("two", {"a", "b"}));
  // Not started yet: the kubelet has nothing to show.
  auto waiting = store->ReadLog("spark", "one", {});
  REQUIRE_FALSE(waiting.ok());
  CHECK(waiting.error().code == 400);
  CHECK(waiting.error().message ==
        "container \"main\" in pod \"one\" is waiting to start: ContainerCreating");
  StartPod("one", {"main"});
  StartPod("two", {"a", "b"});
  store->AppendLog("spark", "one", "main", "l1\nl2\nl3\n");
  store->AppendLog("spark", "one", "main", "l4\npartial");
  CHECK(store->ReadLog("spark", "one", {}).value() == "l1\nl2\nl3\nl4\npartial");
  CHECK(store->ReadLog("spark", "one", Logs(2)).value() == "l4\npartial");
  CHECK(store->ReadLog("spark", "one", Logs(0)).value().empty());
  CHECK(store->ReadLog("spark", "one", Logs(100)).value() == "l1\nl2\nl3\nl4\npartial");
  CHECK(store->ReadLog("spark", "one", Logs(3, 4)).value() == "l3\nl");
  CHECK(store->ReadLog("spark", "one", Logs(std::nullopt, 1)).value() == "l");
  CHECK(store->ReadLog("spark", "one", Logs(-1)).error().code == 422);
  CHECK(store->ReadLog("spark", "one", Logs(std::nullopt, 0)).error().code == 422);

  auto ambiguous = store->ReadLog("spark", "two", {});
  REQUIRE_FALSE(ambiguous.ok());
  CHECK(ambiguous.error().code == 400);
  CHECK(ambiguous.error().message ==
        "a container name must be specified for pod two, choose one of: [a b]");
  store->AppendLog("spark", "two", "b", "from b\n");
  CHECK(store->ReadLog("spark", "two", Logs(std::nullopt, std::nullopt, "b")).value() ==
        "from b\n");
  CHECK(store->ReadLog("spark", "two", Logs(std::nullopt, std::nullopt, "a")).value().empty());
  CHECK(store->ReadLog("spark", "two", Logs(std::nullopt, std::nullopt, "zz")).error().code == 400);
  auto previous = store->ReadLog("spark", "one", Logs(std::nullopt, std::nullopt, "", true));
  REQUIRE_FALSE(previous.ok());
  CHECK(previous.error().code == 400);
  CHECK(store->ReadLog("spark", "ghost", {}).error().code == 404);

  store->AppendLog("spark", "ghost", "main", "dropped");  // no pod: nothing stored
  REQUIRE(store->Delete(pod, "spark", "one", {}).ok());
  CHECK(store->ReadLog("spark", "one", {}).error().code == 404);
  MustCreate(pod, Pod("one", {"main"}));
  StartPod("one", {"main"});
  CHECK(store->ReadLog("spark", "one", {}).value().empty());  // logs went with the old pod
}

TEST_CASE_METHOD(Fixture, "follow a pod log until the container ends", "[store]") {
  MustCreate(pod, Pod("d", {"main"}));
  StartPod("d", {"main"});
  store->AppendLog("spark", "d", "main", "a\nb\nc\n");
  std::atomic<int> notified{0};
  auto f = store->FollowLog("spark", "d", Logs(1), [&] { ++notified; });
  REQUIRE(f.ok());
  auto follower = f.value();
  CHECK(follower->Drain() == "c\n");
  CHECK(follower->Drain().empty());
  CHECK_FALSE(follower->Finished());
  int before = notified;
  store->AppendLog("spark", "d", "main", "d\n");
  CHECK(notified > before);
  CHECK(follower->Drain() == "d\n");
  MustPatch(pod, "d",
            R"({"status":{"phase":"Succeeded","containerStatuses":[{"name":"main",
                "state":{"terminated":{"exitCode":0}}}]}})",
            PatchType::kMerge, true);
  store->AppendLog("spark", "d", "main", "tail\n");
  CHECK_FALSE(follower->Finished());  // unread bytes remain
  CHECK(follower->Drain() == "tail\n");
  CHECK(follower->Finished());

  MustCreate(pod, Pod("e", {"main"}));
  StartPod("e", {"main"});
  auto limited = store->FollowLog("spark", "e", Logs(std::nullopt, 3), nullptr);
  REQUIRE(limited.ok());
  store->AppendLog("spark", "e", "main", "12345");
  CHECK(limited.value()->Drain() == "123");
  CHECK(limited.value()->Finished());

  auto gone = store->FollowLog("spark", "e", {}, nullptr);
  REQUIRE(gone.ok());
  REQUIRE(store->Delete(pod, "spark", "e", {}).ok());
  CHECK(gone.value()->Drain() == "12345");
  CHECK(gone.value()->Finished());
}

// Not run by default: the scale target (100k objects, paged list). Run with
// `kubesim_store_test "[scale]"`.
TEST_CASE_METHOD(Fixture, "100k objects list in pages", "[.][scale]") {
  constexpr int kCount = 100000;
  char name[32];
  auto t0 = std::chrono::steady_clock::now();
  std::clock_t c0 = std::clock();
  for (int i = 0; i < kCount; ++i) {
    std::snprintf(name, sizeof(name), "app-%06d", i);
    json::object a = App(name, {{"spark.apache.org/app-name", name}});
    a["spec"].as_object()["sparkConf"] =
        json::object{{"spark.executor.instances", "1"}, {"kubesim.durationMs", "1000"}};
    MustCreate(app, std::move(a));
  }
  // A status the size of a finished application's (a history of seven states).
  json::object entry{
      {"currentStateSummary", "RunningHealthy"},
      {"lastTransitionTime", "2025-12-01T01:20:00.123Z"},
      {"message", "Application is running healthy."},
      {"lastObservedDriverStatus",
       {{"phase", "Running"},
        {"podIP", "10.0.0.1"},
        {"containerStatuses",
         json::array{json::object{{"name", "spark-kubernetes-driver"},
                                  {"ready", true},
                                  {"restartCount", 0},
                                  {"image", "apache/spark:4.1.1-scala"},
                                  {"state", {{"running", {{"startedAt", "x"}}}}}}}}}}};
  json::object history;
  for (int k = 0; k < 7; ++k) history[std::to_string(k)] = entry;
  json::object status{{"currentState", entry}, {"stateTransitionHistory", history}};
  for (int i = 0; i < kCount; ++i) {
    std::snprintf(name, sizeof(name), "app-%06d", i);
    json::object cur = MustGet(app, name);
    cur["status"] = status;
    auto r = store->Update(app, "spark", name, std::move(cur), true, {});
    REQUIRE(r.ok());
  }
  auto t1 = std::chrono::steady_clock::now();
  std::clock_t c1 = std::clock();
  ListOptions o;
  o.limit = 500;
  size_t total = 0;
  while (true) {
    auto r = Listed(app, "spark", o);
    REQUIRE(r.ok());
    total += r.value().at("items").as_array().size();
    const json::object& meta = r.value().at("metadata").as_object();
    if (!meta.contains("continue")) break;
    o.continue_token = Str(meta.at("continue"));
  }
  auto t2 = std::chrono::steady_clock::now();
  std::clock_t c2 = std::clock();
  CHECK(total == kCount);
  auto heap_mb = [] { return static_cast<int64_t>(mallinfo2().uordblks >> 20); };
  int64_t with_history = heap_mb();
  store->Compact();  // the history holds replaced versions; what remains is the objects
  int64_t objects_only = heap_mb();
  using ms = std::chrono::milliseconds;
  WARN("create+status " << std::chrono::duration_cast<ms>(t1 - t0).count() << " ms, paged list "
                        << std::chrono::duration_cast<ms>(t2 - t1).count() << " ms; heap in use "
                        << with_history << " MiB, " << objects_only << " MiB without history; cpu "
                        << (c1 - c0) * 1000 / CLOCKS_PER_SEC << " ms and "
                        << (c2 - c1) * 1000 / CLOCKS_PER_SEC << " ms");
}

}  // namespace
}  // namespace kubesim

namespace kubesim {
namespace {

TEST_CASE_METHOD(Fixture, "generation without a status subresource counts status too", "[store]") {
  ResourceType widget;
  widget.group = "example.com";
  widget.version = "v1";
  widget.plural = "widgets";
  widget.kind = "Widget";
  widget.list_kind = "WidgetList";
  store->RegisterType(widget);
  json::object created = MustCreate(widget, {{"metadata", {{"name", "w"}}}, {"spec", {{"a", 1}}}});
  CHECK(Meta(created).at("generation") == 1);
  json::object s = MustPatch(widget, "w", R"({"status":{"ready":true}})");
  CHECK(s.at("status").at("ready") == true);  // no subresource: the main resource owns status
  CHECK(Meta(s).at("generation") == 2);
  CHECK(store->Patch(widget, "spark", "w", PatchType::kMerge, "{}", true, {}).error().code == 404);
}

TEST_CASE_METHOD(Fixture, "concurrent writers and a watcher see one ordered history", "[store]") {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 400;
  std::mutex mu;
  std::condition_variable cv;
  bool poked = false;
  ListOptions o;
  o.resource_version = store->CurrentResourceVersion();
  auto w = store->Watch(app, "spark", o, [&] {
    std::lock_guard<std::mutex> lock(mu);
    poked = true;
    cv.notify_all();
  });
  REQUIRE(w.ok());
  std::vector<WatchEvent> events;
  std::thread watcher([&] {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (events.size() < kThreads * kPerThread * 2) {
      {
        std::unique_lock<std::mutex> lock(mu);
        if (!cv.wait_until(lock, deadline, [&] { return poked; })) return;
        poked = false;
      }
      for (WatchEvent& e : w.value()->Drain()) events.push_back(std::move(e));
    }
  });
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string name = "t" + std::to_string(t) + "-" + std::to_string(i);
        if (!store->Create(app, "spark", App(name), {}).ok()) ++failures;
        if (!store->Get(app, "spark", name).ok()) ++failures;
        auto p = store->Patch(app, "spark", name, PatchType::kMerge,
                              R"({"metadata":{"labels":{"done":"yes"}}})", false, {});
        if (!p.ok()) ++failures;
        if (i % 50 == 0 && !store->List(app, "spark", Labels("done=yes")).ok()) ++failures;
      }
    });
  }
  for (std::thread& t : writers) t.join();
  watcher.join();
  CHECK(failures == 0);
  REQUIRE(events.size() == kThreads * kPerThread * 2);
  uint64_t last = 0;
  int added = 0;
  for (const WatchEvent& e : events) {
    uint64_t rv = std::stoull(Rv(e.object));
    CHECK(rv > last);
    last = rv;
    added += e.type == "ADDED";
  }
  CHECK(added == kThreads * kPerThread);
}

TEST_CASE_METHOD(Fixture, "pod logs: timestamps, sinceTime and sinceSeconds", "[store]") {
  MustCreate(pod, Pod("t", {"main"}));
  StartPod("t", {"main"});
  const int64_t t0 = now;
  store->AppendLog("spark", "t", "main", "a\nb\n");  // two lines written in the same ms
  now = t0 + 120;
  store->AppendLog("spark", "t", "main", "c\npart");
  now = t0 + 2000;
  store->AppendLog("spark", "t", "main", "ial\nd\n");  // completes "partial", stamped at its start
  auto stamped = Logs(std::nullopt);
  stamped.timestamps = true;
  const std::string s0 = Rfc3339Seconds(t0);  // kStartMs is a whole second
  const std::string s1 = s0.substr(0, s0.size() - 1) + ".12Z";
  const std::string s2 = Rfc3339Seconds(t0 + 2000);
  CHECK(store->ReadLog("spark", "t", stamped).value() ==
        s0 + " a\n" + s0 + " b\n" + s1 + " c\n" + s1 + " partial\n" + s2 + " d\n");
  // sinceTime is inclusive: the lines written at that very time come back.
  auto since = stamped;
  since.since_time_ms = t0 + 120;
  CHECK(store->ReadLog("spark", "t", since).value() ==
        s1 + " c\n" + s1 + " partial\n" + s2 + " d\n");
  since.since_time_ms = t0 + 121;
  since.timestamps = false;
  CHECK(store->ReadLog("spark", "t", since).value() == "d\n");
  // The tail is taken first, then the older lines of it are left out.
  since.tail_lines = 4;
  since.since_time_ms = t0 + 100;
  CHECK(store->ReadLog("spark", "t", since).value() == "c\npartial\nd\n");
  auto recent = Logs(std::nullopt);
  recent.since_seconds = 1;
  CHECK(store->ReadLog("spark", "t", recent).value() == "d\n");
  recent.since_seconds = 0;
  CHECK(store->ReadLog("spark", "t", recent).error().code == 422);
  recent.since_seconds = 5;
  recent.since_time_ms = t0;
  CHECK(store->ReadLog("spark", "t", recent).error().code == 422);
  // The byte limit counts the stamps too.
  auto limited = stamped;
  limited.limit_bytes = static_cast<int64_t>(s0.size()) + 2;
  CHECK(store->ReadLog("spark", "t", limited).value() == s0 + " a");

  // A follower stamps what it is sent, lines completed after it opened included, once each.
  auto follow = stamped;
  follow.since_time_ms = t0 + 2000;
  auto f = store->FollowLog("spark", "t", follow, nullptr);
  REQUIRE(f.ok());
  CHECK(f.value()->Drain() == s2 + " d\n");
  now = t0 + 3000;
  store->AppendLog("spark", "t", "main", "e");
  store->AppendLog("spark", "t", "main", "e\n");
  CHECK(f.value()->Drain() == Rfc3339Seconds(t0 + 3000) + " ee\n");
}

}  // namespace
}  // namespace kubesim
