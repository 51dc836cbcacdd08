#include "kubesim/server/api.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "kubesim/store/core_types.h"

namespace kubesim {
namespace {

namespace json = boost::json;

constexpr char kToken[] = "Bearer test-token";
constexpr char kApps[] = "/apis/spark.apache.org/v1/namespaces/default/sparkapplications";

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Loading the real CRDs (19k lines of YAML) takes most of a second: once per run.
const std::vector<Crd>& TestCrds() {
  static const std::vector<Crd> crds = [] {
    std::string error;
    std::vector<Crd> loaded = LoadCrdDir(KUBESIM_TEST_CRD_DIR, &error);
    REQUIRE(!loaded.empty());
    return loaded;
  }();
  return crds;
}

// An Api over a real in-memory store with the real CRDs, a fixed clock and a fixed token.
struct Fixture {
  Fixture() : store(NewMemoryStore([this] { return now_ms.load(); })), tokens("", "test-token") {
    for (const ResourceType& t : CoreTypes()) store->RegisterType(t);
    ApiOptions options;
    options.bookmark_interval_ms = 1000;
    api = std::make_unique<Api>(*store, tokens, options, [this] { return now_ms.load(); });
    for (const Crd& crd : TestCrds()) api->AddCrd(crd);
    for (const char* ns : {"default", "other"}) {
      HttpResponse r = Call("POST", "/api/v1/namespaces",
                            std::string(R"({"metadata":{"name":")") + ns + R"("}})");
      REQUIRE((r.status == 201 || r.status == 409));
    }
  }

  HttpResponse Call(const std::string& method, const std::string& target,
                    const std::string& body = "",
                    const std::string& content_type = "application/json",
                    const std::string& accept = "application/json") {
    HttpRequest req;
    req.method = method;
    req.target = target;
    req.body = body;
    req.content_type = content_type;
    req.accept = accept;
    req.authorization = kToken;
    return api->Handle(req, [this] { ++notified; });
  }

  json::object Json(const HttpResponse& r) {
    json::parse_options deep;
    deep.max_depth = 1000;  // CRD schemas nest deeper than Boost.JSON's default 32
    json::value v = json::parse(r.body, {}, deep);
    INFO(r.body.substr(0, 300));
    REQUIRE(v.is_object());
    return v.as_object();
  }

  std::atomic<int64_t> now_ms{1'800'000'000'000};
  std::unique_ptr<Store> store;
  TokenFile tokens;
  std::unique_ptr<Api> api;
  std::atomic<int> notified{0};
};

std::string PiYaml() { return ReadText(std::string(KUBESIM_TEST_EXAMPLES_DIR) + "/pi.yaml"); }

std::vector<json::object> EventLines(const std::string& text) {
  std::vector<json::object> out;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(json::parse(line).as_object());
  }
  return out;
}

TEST_CASE("Authentication: token, client certificate, public endpoints", "[api]") {
  Fixture f;
  HttpRequest req;
  req.method = "GET";
  req.target = "/api/v1/namespaces/default/pods";
  HttpResponse r = f.api->Handle(req, [] {});
  CHECK(r.status == 401);
  json::object status = f.Json(r);
  CHECK(status["kind"] == "Status");
  CHECK(status["reason"] == "Unauthorized");
  CHECK(status["code"] == 401);
  req.authorization = "Bearer wrong";
  CHECK(f.api->Handle(req, [] {}).status == 401);
  req.authorization = "";
  req.client_cert_verified = true;
  CHECK(f.api->Handle(req, [] {}).status == 200);
  req.client_cert_verified = false;
  req.target = "/version";
  r = f.api->Handle(req, [] {});
  CHECK(r.status == 200);
  CHECK(f.Json(r)["gitVersion"] == "v1.32.0");
  req.target = "/healthz";
  CHECK(f.api->Handle(req, [] {}).body == "ok");
}

TEST_CASE("Discovery lists core and CRD resources the way kubectl reads them", "[api]") {
  Fixture f;
  json::object groups = f.Json(f.Call("GET", "/apis"));
  CHECK(groups["kind"] == "APIGroupList");
  bool spark = false, apiext = false;
  for (const auto& g : groups["groups"].as_array()) {
    const auto& o = g.as_object();
    if (o.at("name") == "spark.apache.org") {
      spark = true;
      CHECK(o.at("preferredVersion").as_object().at("version") == "v1");
      CHECK(o.at("versions").as_array().size() == 2);  // v1, v1beta1
    }
    if (o.at("name") == "apiextensions.k8s.io") apiext = true;
  }
  CHECK(spark);
  CHECK(apiext);

  json::object core = f.Json(f.Call("GET", "/api/v1"));
  CHECK(core["groupVersion"] == "v1");
  std::map<std::string, json::object> by_name;
  for (const auto& r : core["resources"].as_array()) {
    by_name[std::string(r.as_object().at("name").as_string())] = r.as_object();
  }
  REQUIRE(by_name.count("pods") == 1);
  CHECK(by_name["pods"]["shortNames"].as_array()[0] == "po");
  CHECK(by_name.count("pods/log") == 1);
  CHECK(by_name.count("pods/status") == 1);
  CHECK(by_name["namespaces"]["namespaced"] == false);

  json::object spark_list = f.Json(f.Call("GET", "/apis/spark.apache.org/v1"));
  bool apps = false, status = false;
  for (const auto& r : spark_list["resources"].as_array()) {
    const auto& o = r.as_object();
    if (o.at("name") == "sparkapplications") {
      apps = true;
      CHECK(o.at("kind") == "SparkApplication");
      CHECK(o.at("shortNames").as_array()[0] == "sparkapp");
      CHECK(o.at("verbs").as_array().size() == 8);
    }
    if (o.at("name") == "sparkapplications/status") status = true;
  }
  CHECK(apps);
  CHECK(status);
  CHECK(f.Call("GET", "/apis/nope.example.com/v1").status == 404);
  CHECK(f.Call("GET", "/apis/spark.apache.org").status == 200);
}

TEST_CASE("OpenAPI v3 tells kubectl that fieldValidation is supported", "[api]") {
  Fixture f;
  json::object root = f.Json(f.Call("GET", "/openapi/v3"));
  const auto& paths = root["paths"].as_object();
  REQUIRE(paths.contains("apis/spark.apache.org/v1"));
  REQUIRE(paths.contains("api/v1"));
  std::string url(
      paths.at("apis/spark.apache.org/v1").as_object().at("serverRelativeURL").as_string());
  CHECK(url.rfind("/openapi/v3/apis/spark.apache.org/v1?hash=", 0) == 0);
  json::object doc = f.Json(f.Call("GET", url));
  const auto& item =
      doc["paths"]
          .as_object()
          .at("/apis/spark.apache.org/v1/namespaces/{namespace}/sparkapplications/{name}")
          .as_object();
  const auto& patch = item.at("patch").as_object();
  CHECK(patch.at("x-kubernetes-group-version-kind").as_object().at("kind") == "SparkApplication");
  bool field_validation = false;
  for (const auto& p : patch.at("parameters").as_array()) {
    if (p.as_object().at("name") == "fieldValidation") field_validation = true;
  }
  CHECK(field_validation);
  // No strategic merge for custom resources, as on a real server.
  CHECK_FALSE(patch.at("requestBody")
                  .as_object()
                  .at("content")
                  .as_object()
                  .contains("application/strategic-merge-patch+json"));
  HttpResponse v2 = f.Call("GET", "/openapi/v2", "", "",
                           "application/com.github.proto-openapi.spec.v2@v1.0+protobuf");
  CHECK(v2.status == 200);
  CHECK(v2.body.empty());
  // Not the requested media type: its '@' breaks Go's mime parser in older kubectl.
  CHECK(v2.content_type == "application/octet-stream");
}

TEST_CASE("Create, get, conflict, list as Table, patch, delete a SparkApplication", "[api]") {
  Fixture f;
  HttpResponse created =
      f.Call("POST", std::string(kApps) + "?fieldValidation=Strict", PiYaml(), "application/yaml");
  REQUIRE(created.status == 201);
  json::object app = f.Json(created);
  CHECK(app["metadata"].as_object()["namespace"] == "default");
  CHECK_FALSE(app["metadata"].as_object()["uid"].as_string().empty());

  HttpResponse again = f.Call("POST", kApps, PiYaml(), "application/yaml");
  CHECK(again.status == 409);
  CHECK(f.Json(again)["reason"] == "AlreadyExists");

  HttpResponse got = f.Call("GET", std::string(kApps) + "/pi");
  REQUIRE(got.status == 200);
  CHECK(f.Json(got)["spec"].as_object()["mainClass"] == "org.apache.spark.examples.SparkPi");

  HttpResponse table =
      f.Call("GET", kApps, "", "", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  REQUIRE(table.status == 200);
  json::object t = f.Json(table);
  CHECK(t["kind"] == "Table");
  std::vector<std::string> names;
  for (const auto& c : t["columnDefinitions"].as_array()) {
    names.emplace_back(c.as_object().at("name").as_string());
  }
  CHECK(names == std::vector<std::string>{"Name", "Age", "Current State"});
  REQUIRE(t["rows"].as_array().size() == 1);
  CHECK(t["rows"].as_array()[0].as_object().at("cells").as_array()[0] == "pi");

  HttpResponse patched =
      f.Call("PATCH", std::string(kApps) + "/pi", R"({"metadata":{"labels":{"team":"a"}}})",
             "application/merge-patch+json");
  REQUIRE(patched.status == 200);
  CHECK(f.Json(patched)["metadata"].as_object()["labels"].as_object()["team"] == "a");
  HttpResponse listed = f.Call("GET", std::string(kApps) + "?labelSelector=team%3Da");
  CHECK(f.Json(listed)["items"].as_array().size() == 1);
  listed = f.Call("GET", std::string(kApps) + "?labelSelector=team%3Db");
  CHECK(f.Json(listed)["items"].as_array().empty());

  CHECK(f.Call("PATCH", std::string(kApps) + "/pi", "{}", "application/apply-patch+yaml").status ==
        415);
  CHECK(f.Call("PATCH", std::string(kApps) + "/pi", "{}", "text/plain").status == 415);

  HttpResponse deleted = f.Call("DELETE", std::string(kApps) + "/pi");
  CHECK(deleted.status == 200);
  HttpResponse gone = f.Call("GET", std::string(kApps) + "/pi");
  CHECK(gone.status == 404);
  CHECK(f.Json(gone)["reason"] == "NotFound");
}

TEST_CASE("Invalid input gets the API server's errors", "[api]") {
  Fixture f;
  HttpResponse invalid = f.Call("POST", kApps,
                                R"({"apiVersion":"spark.apache.org/v1","kind":"SparkApplication",
          "metadata":{"name":"bad"},"spec":{"mainClass":5,"runtimeVersions":{}}})");
  REQUIRE(invalid.status == 422);
  json::object s = f.Json(invalid);
  CHECK(s["reason"] == "Invalid");
  std::string causes = json::serialize(s["details"]);
  CHECK(causes.find("spec.runtimeVersions.sparkVersion") != std::string::npos);
  CHECK(causes.find("spec.mainClass") != std::string::npos);

  HttpResponse wrong_ns = f.Call("POST", kApps,
                                 R"({"apiVersion":"spark.apache.org/v1","kind":"SparkApplication",
          "metadata":{"name":"x","namespace":"other"},"spec":{}})");
  CHECK(wrong_ns.status == 400);
  HttpResponse wrong_kind =
      f.Call("POST", kApps, R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}})");
  CHECK(wrong_kind.status == 400);
  CHECK(f.Call("POST", kApps, "{not json").status == 400);
  CHECK(f.Call("GET", std::string(kApps) + "?limit=abc").status == 400);
  CHECK(f.Call("POST", std::string(kApps) + "?dryRun=Some", "{}").status == 400);
  CHECK(f.Call("POST", std::string(kApps) + "?fieldValidation=Loose", "{}").status == 400);
  CHECK(f.Call("DELETE", std::string(kApps) + "/x?propagationPolicy=Sometimes").status == 422);
  CHECK(f.Call("GET", "/apis/spark.apache.org/v1/namespaces/default/widgets").status == 404);
  CHECK(f.Call("GET", "/api/v1/pods/x").status == 404);  // a namespaced object needs its ns
  CHECK(f.Call("PUT", kApps, "{}").status == 405);
  CHECK(f.Call("GET", std::string(kApps) + "/x/scale").status == 404);
}

TEST_CASE("dryRun=All creates nothing", "[api]") {
  Fixture f;
  HttpResponse r = f.Call("POST", "/api/v1/namespaces/default/configmaps?dryRun=All",
                          R"({"metadata":{"name":"dry"},"data":{"a":"b"}})");
  CHECK(r.status == 201);
  CHECK(f.Call("GET", "/api/v1/namespaces/default/configmaps/dry").status == 404);
}

TEST_CASE("dryRun=All of a SparkApplication: validated and defaulted, stored nowhere", "[api]") {
  Fixture f;
  const ResourceType* apps = f.store->FindType("spark.apache.org", "v1", "sparkapplications");
  REQUIRE(apps != nullptr);
  ListOptions from_now;
  from_now.resource_version = f.store->CurrentResourceVersion();
  auto watch = f.store->Watch(*apps, "default", from_now, nullptr);
  REQUIRE(watch.ok());
  const std::string version = f.store->CurrentResourceVersion();
  const std::string body = R"({"apiVersion":"spark.apache.org/v1","kind":"SparkApplication",
      "metadata":{"name":"dry","labels":{"a":"b"}},
      "spec":{"mainClass":"Pi","runtimeVersions":{"sparkVersion":"4.0.0"},
              "applicationTolerations":{"resourceRetainPolicy":"OnFailure"}}})";
  HttpResponse r = f.Call("POST", std::string(kApps) + "?dryRun=All", body);
  INFO(r.body);
  REQUIRE(r.status == 201);
  // The object as it would be stored: the server's metadata and the schema's defaults, with
  // no resourceVersion (nothing was written).
  json::object app = f.Json(r);
  json::object& meta = app["metadata"].as_object();
  CHECK(meta["namespace"] == "default");
  CHECK_FALSE(meta["uid"].as_string().empty());
  CHECK(meta.contains("creationTimestamp"));
  CHECK(meta["generation"] == 1);
  CHECK_FALSE(meta.contains("resourceVersion"));
  CHECK(meta["labels"].as_object()["a"] == "b");
  json::object& tolerations = app["spec"].as_object()["applicationTolerations"].as_object();
  CHECK(tolerations["ttlAfterStopMillis"] == -1);
  CHECK(tolerations["resourceRetainDurationMillis"] == -1);
  // Nothing stored, no version spent, no event for a watcher.
  CHECK(f.Call("GET", std::string(kApps) + "/dry").status == 404);
  CHECK(f.store->CurrentResourceVersion() == version);
  CHECK(watch.value()->Drain().empty());

  // Judged as a create is: the schema, and a name already taken.
  HttpResponse invalid = f.Call("POST", std::string(kApps) + "?dryRun=All",
                                R"({"metadata":{"name":"bad"},"spec":{"mainClass":7}})");
  CHECK(invalid.status == 422);
  REQUIRE(f.Call("POST", kApps, body).status == 201);
  HttpResponse taken = f.Call("POST", std::string(kApps) + "?dryRun=All", body);
  CHECK(taken.status == 409);
  CHECK(f.Json(taken)["reason"] == "AlreadyExists");
}

TEST_CASE("Status subresource writes only the status", "[api]") {
  Fixture f;
  REQUIRE(f.Call("POST", kApps, PiYaml(), "application/yaml").status == 201);
  HttpResponse r = f.Call("PATCH", std::string(kApps) + "/pi/status",
                          R"({"status":{"currentState":{"currentStateSummary":"Submitted"}},
                              "metadata":{"labels":{"ignored":"yes"}}})",
                          "application/merge-patch+json");
  REQUIRE(r.status == 200);
  json::object app = f.Json(f.Call("GET", std::string(kApps) + "/pi/status"));
  CHECK(app["status"].as_object()["currentState"].as_object()["currentStateSummary"] ==
        "Submitted");
  CHECK_FALSE(app["metadata"].as_object().contains("labels"));
}

TEST_CASE("A watch streams events, bookmarks, and ends at its timeout", "[api]") {
  Fixture f;
  HttpResponse w = f.Call("GET",
                          "/api/v1/namespaces/default/configmaps?watch=true&"
                          "allowWatchBookmarks=true&timeoutSeconds=10");
  REQUIRE(w.status == 200);
  REQUIRE(w.stream);
  int before = f.notified.load();
  REQUIRE(f.Call("POST", "/api/v1/namespaces/default/configmaps",
                 R"({"metadata":{"name":"c1"},"data":{"k":"v"}})")
              .status == 201);
  CHECK(f.notified.load() > before);
  bool done = false;
  int64_t t0 = f.now_ms.load();
  auto events = EventLines(w.stream->Poll(t0 + 10, &done));
  CHECK_FALSE(done);
  REQUIRE(events.size() == 1);
  CHECK(events[0]["type"] == "ADDED");
  CHECK(events[0]["object"].as_object()["metadata"].as_object()["name"] == "c1");
  // Nothing new, before the bookmark interval: nothing to send.
  CHECK(w.stream->Poll(t0 + 500, &done).empty());
  events = EventLines(w.stream->Poll(t0 + 1100, &done));
  REQUIRE(events.size() == 1);
  CHECK(events[0]["type"] == "BOOKMARK");
  CHECK(events[0]["object"].as_object()["kind"] == "ConfigMap");
  CHECK_FALSE(events[0]["object"]
                  .as_object()["metadata"]
                  .as_object()["resourceVersion"]
                  .as_string()
                  .empty());
  REQUIRE(f.Call("DELETE", "/api/v1/namespaces/default/configmaps/c1").status == 200);
  events = EventLines(w.stream->Poll(t0 + 1200, &done));
  REQUIRE(events.size() == 1);
  CHECK(events[0]["type"] == "DELETED");
  w.stream->Poll(t0 + 10'000, &done);
  CHECK(done);
}

TEST_CASE("A watch in Table form carries table rows", "[api]") {
  Fixture f;
  HttpResponse w = f.Call("GET", std::string(kApps) + "?watch=1", "", "",
                          "application/json;as=Table;v=v1;g=meta.k8s.io");
  REQUIRE(w.stream);
  REQUIRE(f.Call("POST", kApps, PiYaml(), "application/yaml").status == 201);
  bool done = false;
  auto events = EventLines(w.stream->Poll(f.now_ms.load(), &done));
  REQUIRE(events.size() == 1);
  json::object& table = events[0]["object"].as_object();
  CHECK(table["kind"] == "Table");
  CHECK(table["rows"].as_array()[0].as_object().at("cells").as_array()[0] == "pi");
}

TEST_CASE("A watch from a compacted resourceVersion gets a 410 ERROR event", "[api]") {
  Fixture f;
  json::object cm = f.Json(
      f.Call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"a"}})"));
  std::string old_rv(cm["metadata"].as_object()["resourceVersion"].as_string());
  REQUIRE(f.Call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"b"}})")
              .status == 201);
  REQUIRE(f.Call("POST", "/kubesim/compact").status == 200);
  HttpResponse w =
      f.Call("GET", "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=" + old_rv);
  REQUIRE(w.status == 200);
  auto events = EventLines(w.body);
  REQUIRE(events.size() == 1);
  CHECK(events[0]["type"] == "ERROR");
  CHECK(events[0]["object"].as_object()["code"] == 410);
  CHECK(events[0]["object"].as_object()["reason"] == "Expired");
}

TEST_CASE("Expiring the open watches ends each with a 410 ERROR after its queued events", "[api]") {
  Fixture f;
  HttpResponse w = f.Call("GET", "/api/v1/namespaces/default/configmaps?watch=1");
  REQUIRE(w.stream);
  REQUIRE(f.Call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"a"}})")
              .status == 201);
  HttpResponse expired = f.Call("POST", "/kubesim/watches/expire");
  REQUIRE(expired.status == 200);
  CHECK(f.Json(expired)["expired"] == 1);
  bool done = false;
  auto events = EventLines(w.stream->Poll(f.now_ms.load(), &done));
  REQUIRE(events.size() == 2);
  CHECK(events[0]["type"] == "ADDED");
  CHECK(events[1]["type"] == "ERROR");
  CHECK(events[1]["object"].as_object()["code"] == 410);
  CHECK(events[1]["object"].as_object()["reason"] == "Expired");
  CHECK(done);
  // Nothing left open: a second call ends none, and a new watch is served as usual.
  CHECK(f.Json(f.Call("POST", "/kubesim/watches/expire"))["expired"] == 0);
  CHECK(f.Call("GET", "/api/v1/namespaces/default/configmaps?watch=1").stream);
}

TEST_CASE("Injected faults: 429 with Retry-After, count, revoked token, gone, dropped watch",
          "[api]") {
  Fixture f;
  HttpResponse added = f.Call("POST", "/kubesim/faults",
                              R"({"verb":"list","resource":"pods","status":429,
                                  "retryAfterSeconds":7,"count":1})");
  REQUIRE(added.status == 201);
  std::string id(f.Json(added)["id"].as_string());
  HttpResponse r = f.Call("GET", "/api/v1/namespaces/default/pods");
  CHECK(r.status == 429);
  CHECK(f.Json(r)["reason"] == "TooManyRequests");
  bool header = false;
  for (const auto& [k, v] : r.headers) header = header || (k == "Retry-After" && v == "7");
  CHECK(header);
  CHECK(f.Call("GET", "/api/v1/namespaces/default/pods").status == 200);  // count spent
  CHECK(f.Call("DELETE", "/kubesim/faults/" + id).status == 404);

  REQUIRE(f.Call("POST", "/kubesim/faults", R"({"verb":"get","revokeToken":true})").status == 201);
  CHECK(f.Call("GET", "/api/v1/namespaces/default").status == 401);
  CHECK(f.Call("GET", "/api/v1/namespaces").status == 200);
  REQUIRE(f.Call("DELETE", "/kubesim/faults").status == 200);
  CHECK(f.Call("GET", "/api/v1/namespaces/default").status == 200);

  REQUIRE(
      f.Call("POST", "/kubesim/faults", R"({"verb":"watch","forceGone":true,"count":1})").status ==
      201);
  HttpResponse gone = f.Call("GET", "/api/v1/namespaces/default/configmaps?watch=1");
  auto events = EventLines(gone.body);
  REQUIRE(events.size() == 1);
  CHECK(events[0]["object"].as_object()["code"] == 410);

  REQUIRE(f.Call("POST", "/kubesim/faults",
                 R"({"verb":"watch","resource":"configmaps","dropWatchAfterEvents":1,
                     "latencyMs":25})")
              .status == 201);
  HttpResponse w = f.Call("GET", "/api/v1/namespaces/default/configmaps?watch=1");
  REQUIRE(w.stream);
  CHECK(w.latency_ms == 25);
  for (const char* name : {"x1", "x2"}) {
    REQUIRE(f.Call("POST", "/api/v1/namespaces/default/configmaps",
                   std::string(R"({"metadata":{"name":")") + name + R"("}})")
                .status == 201);
  }
  bool done = false;
  events = EventLines(w.stream->Poll(f.now_ms.load(), &done));
  CHECK(events.size() == 1);
  CHECK(done);

  REQUIRE(
      f.Call("POST", "/kubesim/faults", R"({"verb":"get","resetMidBody":true,"count":1})").status ==
      201);
  CHECK(f.Call("GET", "/api/v1/namespaces/default").reset_mid_body);
  CHECK_FALSE(f.Call("GET", "/api/v1/namespaces/default").reset_mid_body);
  CHECK(f.Call("POST", "/kubesim/faults", R"({"verb":"get","status":418})").status == 400);
}

TEST_CASE("Stats count resource requests by verb, resource and code", "[api]") {
  Fixture f;
  REQUIRE(f.Call("DELETE", "/kubesim/stats").status == 200);
  f.Call("GET", "/api/v1/namespaces/default/pods");
  f.Call("GET", "/api/v1/namespaces/default/pods/nope");
  json::object s = f.Json(f.Call("GET", "/kubesim/stats"));
  CHECK(s["total"] == 2);
  CHECK(s["byVerb"].as_object()["list"] == 1);
  CHECK(s["byVerb"].as_object()["get"] == 1);
  CHECK(s["byCode"].as_object()["404"] == 1);
  CHECK(s["byResource"].as_object()["pods"] == 2);
}

TEST_CASE("Pod logs: tailLines, limitBytes, follow", "[api]") {
  Fixture f;
  REQUIRE(f.Call("POST", "/api/v1/namespaces/default/pods",
                 R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}})")
              .status == 201);
  // The kubelet's part: the container runs (a container that has not started has no log).
  REQUIRE(f.Call("PATCH", "/api/v1/namespaces/default/pods/p/status",
                 R"({"status":{"phase":"Running","containerStatuses":[{"name":"c","ready":true,
                     "restartCount":0,"state":{"running":{"startedAt":"2027-01-15T08:00:00Z"}}}]}})",
                 "application/merge-patch+json")
              .status == 200);
  f.store->AppendLog("default", "p", "c", "line one\nline two\nPi is roughly 3.14\n");
  HttpResponse all = f.Call("GET", "/api/v1/namespaces/default/pods/p/log");
  INFO(all.body);
  REQUIRE(all.status == 200);
  CHECK(all.content_type == "text/plain");
  CHECK(all.body == "line one\nline two\nPi is roughly 3.14\n");
  CHECK(f.Call("GET", "/api/v1/namespaces/default/pods/p/log?tailLines=1").body ==
        "Pi is roughly 3.14\n");
  CHECK(f.Call("GET", "/api/v1/namespaces/default/pods/p/log?limitBytes=4").body == "line");
  CHECK(f.Call("GET", "/api/v1/namespaces/default/pods/p/log?tailLines=x").status == 400);
  CHECK(f.Call("GET", "/api/v1/namespaces/default/pods/nope/log").status == 404);

  HttpResponse follow = f.Call("GET", "/api/v1/namespaces/default/pods/p/log?follow=true");
  REQUIRE(follow.stream);
  bool done = false;
  std::string text = follow.stream->Poll(f.now_ms.load(), &done);
  CHECK(text == "line one\nline two\nPi is roughly 3.14\n");
  CHECK_FALSE(done);
  f.store->AppendLog("default", "p", "c", "more\n");
  CHECK(follow.stream->Poll(f.now_ms.load(), &done) == "more\n");
  // The container terminating ends the stream.
  REQUIRE(f.Call("PATCH", "/api/v1/namespaces/default/pods/p/status",
                 R"({"status":{"phase":"Succeeded","containerStatuses":[{"name":"c","ready":false,
                     "restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}})",
                 "application/merge-patch+json")
              .status == 200);
  follow.stream->Poll(f.now_ms.load(), &done);
  CHECK(done);
}

TEST_CASE("CRDs are served under apiextensions.k8s.io", "[api]") {
  Fixture f;
  json::object list =
      f.Json(f.Call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"));
  CHECK(list["kind"] == "CustomResourceDefinitionList");
  CHECK(list["items"].as_array().size() == 2);
  json::object crd = f.Json(f.Call("GET",
                                   "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                                   "sparkapplications.spark.apache.org"));
  CHECK(crd["spec"].as_object()["group"] == "spark.apache.org");
  CHECK(json::serialize(crd["status"]).find("Established") != std::string::npos);
  CHECK(f.Call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nope").status ==
        404);
}

TEST_CASE("Creating a CRD through the API serves its resources", "[api]") {
  Fixture f;
  json::object crd = f.Json(f.Call(
      "GET",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/sparkclusters.spark.apache.org"));
  crd["metadata"] = json::object{{"name", "widgets.test.example.com"}};
  crd.erase("status");
  json::object& spec = crd["spec"].as_object();
  spec["group"] = "test.example.com";
  json::object& names = spec["names"].as_object();
  names["plural"] = "widgets";
  names["singular"] = "widget";
  names["kind"] = "Widget";
  names["listKind"] = "WidgetList";
  names.erase("shortNames");
  const std::string crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  CHECK(f.Call("GET", "/apis/test.example.com/v1").status == 404);
  HttpResponse created = f.Call("POST", crds, json::serialize(crd));
  REQUIRE(created.status == 201);
  CHECK(f.Call("POST", crds, json::serialize(crd)).status == 409);
  json::object list = f.Json(f.Call("GET", "/apis/test.example.com/v1"));
  CHECK(list["resources"].as_array()[0].as_object()["name"] == "widgets");
  HttpResponse widget =
      f.Call("POST", "/apis/test.example.com/v1/namespaces/default/widgets",
             R"({"apiVersion":"test.example.com/v1","kind":"Widget","metadata":{"name":"w1"},
          "spec":{"runtimeVersions":{"sparkVersion":"4.0.0"}}})");
  // Served and validated against the new CRD's schema.
  CHECK(widget.status == 422);
  CHECK(widget.body.find("spec.clusterTolerations") != std::string::npos);
  CHECK(f.Call("POST", crds, R"({"kind":"CustomResourceDefinition","spec":{}})").status == 422);
}

TEST_CASE("pretty=true indents", "[api]") {
  Fixture f;
  HttpResponse r = f.Call("GET", "/api/v1/namespaces/default?pretty=true");
  CHECK(r.body.find("{\n  \"") == 0);
  CHECK(json::parse(r.body).as_object()["kind"] == "Namespace");
}

// A SparkApplication whose sparkConf carries `bytes` of one value.
std::string AppWithConf(const std::string& name, size_t bytes) {
  return R"({"apiVersion":"spark.apache.org/v1","kind":"SparkApplication","metadata":{"name":")" +
         name +
         R"("},"spec":{"mainClass":"org.apache.spark.examples.SparkPi",)"
         R"("runtimeVersions":{"sparkVersion":"3.5.3"},"sparkConf":{"spark.big":")" +
         std::string(bytes, 'x') + R"("}}})";
}

TEST_CASE("Size limits: 413 over 3 MiB of body, etcd's error over 1.5 MiB of object", "[api]") {
  Fixture f;
  HttpResponse huge = f.Call("POST", kApps, AppWithConf("huge", 3 * 1024 * 1024));
  REQUIRE(huge.status == 413);
  json::object s = f.Json(huge);
  CHECK(s["kind"] == "Status");
  CHECK(s["status"] == "Failure");
  CHECK(s["reason"] == "RequestEntityTooLarge");
  CHECK(s["message"] == "Request entity too large: limit is 3145728");
  CHECK(s["code"] == 413);

  // 2 MiB: within the body limit, over etcd's. The API server passes etcd's error on as a 500
  // without a reason.
  HttpResponse big = f.Call("POST", kApps, AppWithConf("big", 2 * 1024 * 1024));
  REQUIRE(big.status == 500);
  s = f.Json(big);
  CHECK(s["kind"] == "Status");
  CHECK(s["status"] == "Failure");
  CHECK(s["message"] == "etcdserver: request is too large");
  CHECK_FALSE(s.contains("reason"));
  CHECK(f.Call("GET", std::string(kApps) + "/big").status == 404);

  HttpResponse fits = f.Call("POST", kApps, AppWithConf("fits", 1024 * 1024));
  CHECK(fits.status == 201);
}

}  // namespace
}  // namespace kubesim
