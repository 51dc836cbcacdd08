#include "kubesim/server/seed.h"

#include <atomic>
#include <catch2/catch.hpp>

#include "kubesim/server/api.h"
#include "kubesim/store/core_types.h"

namespace kubesim {
namespace {

namespace json = boost::json;

const std::vector<Crd>& Crds() {
  static const std::vector<Crd> crds = [] {
    std::string error;
    std::vector<Crd> loaded = LoadCrdDir(KUBESIM_TEST_CRD_DIR, &error);
    REQUIRE(!loaded.empty());
    return loaded;
  }();
  return crds;
}

// The real store, the real CRDs, an Api in front for the log route, namespace "bench".
struct Fixture {
  Fixture() : store(NewMemoryStore([] { return kNowMs; })), tokens("", "t") {
    for (const ResourceType& t : CoreTypes()) store->RegisterType(t);
    api = std::make_unique<Api>(*store, tokens, ApiOptions{}, [] { return kNowMs; });
    for (const Crd& crd : Crds()) api->AddCrd(crd);
    auto ns = store->Create(*store->FindType("", "v1", "namespaces"), "",
                            json::object{{"metadata", json::object{{"name", "bench"}}}}, {});
    REQUIRE(ns.ok());
  }

  const ResourceType& Apps() {
    return *store->FindType("spark.apache.org", "v1", "sparkapplications");
  }
  const ResourceType& Pods() { return *store->FindType("", "v1", "pods"); }

  // GET of a log through the Api, the stream (if any) drained.
  std::string Log(const std::string& pod, const std::string& query) {
    HttpRequest req;
    req.method = "GET";
    req.target = "/api/v1/namespaces/bench/pods/" + pod + "/log" + query;
    req.authorization = "Bearer t";
    HttpResponse r = api->Handle(req, [] {});
    REQUIRE(r.status == 200);
    std::string body = r.body;
    if (r.stream) {
      bool done = false;
      while (!done) body += r.stream->Poll(kNowMs, &done);
    }
    return body;
  }

  static constexpr int64_t kNowMs = 1796000000000;
  std::unique_ptr<Store> store;
  TokenFile tokens;
  std::unique_ptr<Api> api;
};

SeedSpec Seed(const std::string& text) {
  SeedSpec spec;
  std::string error;
  REQUIRE(ParseSeedSpec(text, &spec, &error));
  return spec;
}

TEST_CASE("seed specs") {
  SeedSpec s = Seed("bench:12:Succeeded:1000");
  CHECK(s.ns == "bench");
  CHECK(s.count == 12);
  CHECK(s.state == "Succeeded");
  CHECK(s.log_bytes == 1000);
  CHECK(Seed("x:1:Running").log_bytes == 0);
  SeedSpec out;
  std::string error;
  for (const char* bad :
       {"bench", "bench:0:Running", "bench:x:Running", ":3:Running", "bench:3:Failed",
        "bench:3:Running:100", "bench:3:Succeeded:0", "bench:3:Succeeded:1:2"}) {
    INFO(bad);
    CHECK(!ParseSeedSpec(bad, &out, &error));
  }
}

TEST_CASE("running seeds: apps in RunningHealthy with the executor's labels, no pods") {
  Fixture f;
  std::string error;
  REQUIRE(SeedStore(*f.store, Seed("bench:25:Running"), Fixture::kNowMs, &error));
  auto list = f.store->List(f.Apps(), "bench", ListOptions{});
  REQUIRE(list.ok());
  const json::array& items = list.value().at("items").as_array();
  REQUIRE(items.size() == 25);
  auto app = f.store->Get(f.Apps(), "bench", "gravitino-job-running-24");
  REQUIRE(app.ok());
  const json::object& obj = app.value();
  CHECK(obj.at("metadata").at("labels").at("gravitino.apache.org/job-id").as_string() ==
        "running-24");
  CHECK(obj.at("metadata").at("labels").at("app.kubernetes.io/managed-by").as_string() ==
        "gravitino");
  CHECK(obj.at("status").at("currentState").at("currentStateSummary").as_string() ==
        "RunningHealthy");
  CHECK(obj.at("status").at("stateTransitionHistory").as_object().size() == 5);
  auto pods = f.store->List(f.Pods(), "bench", ListOptions{});
  REQUIRE(pods.ok());
  CHECK(pods.value().at("items").as_array().empty());
}

TEST_CASE("succeeded seeds: terminated apps with a terminated driver pod each") {
  Fixture f;
  std::string error;
  REQUIRE(SeedStore(*f.store, Seed("bench:3:Succeeded"), Fixture::kNowMs, &error));
  auto app = f.store->Get(f.Apps(), "bench", "gravitino-job-succeeded-2");
  REQUIRE(app.ok());
  CHECK(app.value().at("status").at("currentState").at("currentStateSummary").as_string() ==
        "TerminatedWithoutReleaseResources");
  ListOptions by_app;
  by_app.label_selector =
      "spark.operator/spark-app-name=gravitino-job-succeeded-2,spark-role=driver";
  auto pods = f.store->List(f.Pods(), "bench", by_app);
  REQUIRE(pods.ok());
  const json::array& items = pods.value().at("items").as_array();
  REQUIRE(items.size() == 1);
  CHECK(items[0].at("metadata").at("ownerReferences").at(0).at("uid") ==
        app.value().at("metadata").at("uid"));
  CHECK(items[0].at("status").at("phase").as_string() == "Succeeded");
  CHECK(items[0]
            .at("status")
            .at("containerStatuses")
            .at(0)
            .at("state")
            .at("terminated")
            .at("exitCode")
            .as_int64() == 0);
}

TEST_CASE("seeding an existing name or a missing namespace fails") {
  Fixture f;
  std::string error;
  REQUIRE(SeedStore(*f.store, Seed("bench:2:Running"), Fixture::kNowMs, &error));
  CHECK(!SeedStore(*f.store, Seed("bench:3:Running"), Fixture::kNowMs, &error));
  CHECK(error.find("gravitino-job-running-0") != std::string::npos);
  CHECK(!SeedStore(*f.store, Seed("nowhere:1:Running"), Fixture::kNowMs, &error));
}

TEST_CASE("synthetic logs: fixed-size numbered lines, tail and limit honoured") {
  CHECK(SyntheticLogLine(7).size() == static_cast<size_t>(kSyntheticLineBytes));
  CHECK(SyntheticLogLine(7).back() == '\n');
  CHECK(SyntheticLogLine(7).rfind("000000000007 ", 0) == 0);

  Fixture f;
  std::string error;
  // 3 MiB: more than one chunk, so the stream path is taken.
  const int64_t lines = 3 * 1024 * 1024 / kSyntheticLineBytes;
  REQUIRE(SeedStore(*f.store, Seed("bench:1:Succeeded:" + std::to_string(3 * 1024 * 1024)),
                    Fixture::kNowMs, &error));
  const std::string pod = "gravitino-job-succeeded-0-0-driver";

  std::string whole = f.Log(pod, "");
  CHECK(static_cast<int64_t>(whole.size()) == lines * kSyntheticLineBytes);
  CHECK(whole.substr(0, kSyntheticLineBytes) == SyntheticLogLine(0));
  CHECK(whole.substr(whole.size() - kSyntheticLineBytes) == SyntheticLogLine(lines - 1));

  CHECK(f.Log(pod, "?tailLines=2") == SyntheticLogLine(lines - 2) + SyntheticLogLine(lines - 1));
  CHECK(f.Log(pod, "?limitBytes=150") == SyntheticLogLine(0) + SyntheticLogLine(1).substr(0, 50));
  CHECK(f.Log(pod, "?tailLines=0").empty());
  // Following a terminated container's log ends with the log.
  CHECK(f.Log(pod, "?tailLines=2&follow=true") ==
        SyntheticLogLine(lines - 2) + SyntheticLogLine(lines - 1));
  CHECK(f.Log(pod, "?follow=true") == whole);

  // A pod without the annotation keeps its stored log.
  LogOptions none;
  CHECK(SyntheticLogStream(*f.store, "bench", "no-such-pod", none, nullptr) == nullptr);
}

}  // namespace
}  // namespace kubesim
