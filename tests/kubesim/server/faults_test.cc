#include "kubesim/server/faults.h"

#include <catch2/catch.hpp>

namespace kubesim {
namespace {

namespace json = boost::json;

json::object Spec(const char* text) { return json::parse(text).as_object(); }

TEST_CASE("Fault specs are validated", "[faults]") {
  FaultTable table;
  Fault f;
  std::string error;
  CHECK_FALSE(table.Add(Spec(R"({"verb":"list","status":404})"), &f, &error));
  CHECK(error.find("status") != std::string::npos);
  CHECK_FALSE(table.Add(Spec(R"({"verb":"frobnicate","status":500})"), &f, &error));
  CHECK_FALSE(table.Add(Spec(R"({"verb":"list","latencyMs":-1})"), &f, &error));
  CHECK_FALSE(table.Add(Spec(R"({"verb":"list"})"), &f, &error));  // no effect
  CHECK_FALSE(table.Add(Spec(R"({"verb":"list","status":500,"typo":1})"), &f, &error));
  CHECK(error.find("typo") != std::string::npos);
  CHECK_FALSE(table.Add(Spec(R"({"verb":"list","resetMidBody":"yes"})"), &f, &error));
  CHECK(table.List().empty());
  REQUIRE(table.Add(Spec(R"({"verb":"list","resource":"pods","status":429,
                             "retryAfterSeconds":3,"count":2})"),
                    &f, &error));
  CHECK(f.id == "f1");
  CHECK(f.status == 429);
  CHECK(f.retry_after_seconds == 3);
  CHECK(table.List().size() == 1);
}

TEST_CASE("Faults match by verb, resource and namespace and run out after count", "[faults]") {
  FaultTable table;
  Fault f;
  std::string error;
  REQUIRE(table.Add(Spec(R"({"verb":"list","resource":"pods","namespace":"a","status":503,
                             "count":2})"),
                    &f, &error));
  CHECK_FALSE(table.Match("get", "pods", "a"));
  CHECK_FALSE(table.Match("list", "sparkapplications", "a"));
  CHECK_FALSE(table.Match("list", "pods", "b"));
  auto m1 = table.Match("list", "pods", "a");
  REQUIRE(m1);
  CHECK(m1->status == 503);
  CHECK(m1->applied == 1);
  REQUIRE(table.Match("list", "pods", "a"));
  CHECK_FALSE(table.Match("list", "pods", "a"));
  CHECK(table.List().empty());
}

TEST_CASE("Wildcards, delete matching deletecollection, removal and clearing", "[faults]") {
  FaultTable table;
  Fault a, b;
  std::string error;
  REQUIRE(table.Add(Spec(R"({"verb":"delete","resource":"*","latencyMs":5})"), &a, &error));
  REQUIRE(table.Add(Spec(R"({"verb":"*","resource":"pods","revokeToken":true})"), &b, &error));
  auto m = table.Match("deletecollection", "configmaps", "x");
  REQUIRE(m);
  CHECK(m->id == a.id);
  m = table.Match("watch", "pods", "");
  REQUIRE(m);
  CHECK(m->revoke_token);
  // Unlimited faults stay.
  CHECK(table.Match("watch", "pods", ""));
  CHECK(table.Remove(b.id));
  CHECK_FALSE(table.Remove(b.id));
  CHECK_FALSE(table.Match("watch", "pods", ""));
  table.Clear();
  CHECK_FALSE(table.Match("delete", "pods", ""));
}

TEST_CASE("Stats count by verb, resource and code", "[faults]") {
  Stats stats;
  stats.Record("list", "pods", 200);
  stats.Record("list", "pods", 200);
  stats.Record("get", "sparkapplications", 404);
  json::object s = stats.ToJson();
  CHECK(s["total"] == 3);
  CHECK(s["byVerb"].as_object()["list"] == 2);
  CHECK(s["byResource"].as_object()["sparkapplications"] == 1);
  CHECK(s["byCode"].as_object()["200"] == 2);
  CHECK(s["byCode"].as_object()["404"] == 1);
  CHECK(s["requests"].as_array().size() == 2);
  stats.Reset();
  CHECK(stats.ToJson()["total"] == 0);
}

}  // namespace
}  // namespace kubesim
