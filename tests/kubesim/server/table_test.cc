#include "kubesim/server/table.h"

#include <catch2/catch.hpp>

namespace kubesim {
namespace {

namespace json = boost::json;

TEST_CASE("HumanDuration follows the apimachinery short format", "[table]") {
  CHECK(HumanDuration(-5000) == "<invalid>");
  CHECK(HumanDuration(-500) == "0s");
  CHECK(HumanDuration(0) == "0s");
  CHECK(HumanDuration(42'000) == "42s");
  CHECK(HumanDuration(119'000) == "119s");
  CHECK(HumanDuration(120'000) == "2m");
  CHECK(HumanDuration(303'000) == "5m3s");
  CHECK(HumanDuration(45 * 60'000) == "45m");
  CHECK(HumanDuration(3 * 3600'000 + 20 * 60'000) == "3h20m");
  CHECK(HumanDuration(10 * 3600'000) == "10h");
  CHECK(HumanDuration(50 * 3600'000) == "2d2h");
  CHECK(HumanDuration(int64_t{400} * 86400'000) == "400d");
  CHECK(HumanDuration(int64_t{3 * 365 + 10} * 86400'000) == "3y10d");
  CHECK(HumanDuration(int64_t{10 * 365} * 86400'000) == "10y");
}

TEST_CASE("EvalJsonPath follows dotted, indexed and quoted steps", "[table]") {
  json::value v = json::parse(
      R"({"status":{"currentState":{"currentStateSummary":"RunningHealthy"},
          "list":[{"a":1},{"a":2}]},"metadata":{"labels":{"app.kubernetes.io/name":"x"}}})");
  CHECK(EvalJsonPath(v, ".status.currentState.currentStateSummary") == "RunningHealthy");
  CHECK(EvalJsonPath(v, "{.status.list[1].a}") == 2);
  CHECK(EvalJsonPath(v, ".metadata.labels['app.kubernetes.io/name']") == "x");
  CHECK(EvalJsonPath(v, ".status.missing.x").is_null());
  CHECK(EvalJsonPath(v, ".status.list[5].a").is_null());
  CHECK(EvalJsonPath(v, ".status.list[x]").is_null());
}

TEST_CASE("ParseRfc3339 parses API timestamps", "[table]") {
  int64_t ms = 0;
  REQUIRE(ParseRfc3339("1970-01-01T00:01:40Z", &ms));
  CHECK(ms == 100'000);
  REQUIRE(ParseRfc3339("2026-12-01T01:02:03.250000Z", &ms));
  int64_t whole = 0;
  REQUIRE(ParseRfc3339("2026-12-01T01:02:03Z", &whole));
  CHECK(ms - whole == 250);
  CHECK_FALSE(ParseRfc3339("yesterday", &ms));
}

TEST_CASE("AcceptsTable recognises kubectl's Accept header", "[table]") {
  CHECK(
      AcceptsTable("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;"
                   "v=v1beta1;g=meta.k8s.io,application/json"));
  CHECK_FALSE(AcceptsTable("application/json"));
  CHECK_FALSE(AcceptsTable(""));
}

TEST_CASE("A CRD's additionalPrinterColumns become the table", "[table]") {
  json::array crd_columns = json::parse(R"([
      {"jsonPath":".metadata.creationTimestamp","name":"Age","type":"date"},
      {"jsonPath":".status.currentState.currentStateSummary","name":"Current State",
       "type":"string","priority":0}])")
                                .as_array();
  auto cols = TableColumns("spark.apache.org", "sparkapplications", &crd_columns);
  REQUIRE(cols.size() == 3);
  CHECK(cols[0].name == "Name");
  CHECK(cols[1].name == "Age");
  CHECK(cols[2].name == "Current State");

  int64_t created = 0;
  REQUIRE(ParseRfc3339("2026-12-01T00:00:00Z", &created));
  json::object app = json::parse(R"({"apiVersion":"spark.apache.org/v1","kind":"SparkApplication",
      "metadata":{"name":"pi","namespace":"default","creationTimestamp":"2026-12-01T00:00:00Z",
                  "resourceVersion":"7"},
      "status":{"currentState":{"currentStateSummary":"RunningHealthy"}}})")
                         .as_object();
  json::object pending = json::parse(R"({"metadata":{"name":"new",
      "creationTimestamp":"2026-12-01T00:00:00Z"}})")
                             .as_object();
  json::object table = RenderTable("spark.apache.org", "sparkapplications", cols, {&app, &pending},
                                   "", json::object{{"resourceVersion", "9"}}, created + 65'000);
  CHECK(table["kind"] == "Table");
  CHECK(table["apiVersion"] == "meta.k8s.io/v1");
  CHECK(table["metadata"].as_object()["resourceVersion"] == "9");
  const auto& defs = table["columnDefinitions"].as_array();
  REQUIRE(defs.size() == 3);
  CHECK(defs[0].as_object().at("format") == "name");
  CHECK(defs[1].as_object().at("type") == "string");  // dates are rendered as ages
  const auto& rows = table["rows"].as_array();
  REQUIRE(rows.size() == 2);
  const auto& cells = rows[0].as_object().at("cells").as_array();
  CHECK(cells[0] == "pi");
  CHECK(cells[1] == "65s");
  CHECK(cells[2] == "RunningHealthy");
  CHECK(rows[1].as_object().at("cells").as_array()[2].is_null());
  const auto& object = rows[0].as_object().at("object").as_object();
  CHECK(object.at("kind") == "PartialObjectMetadata");
  CHECK(object.at("metadata").as_object().at("resourceVersion") == "7");

  json::object full = RenderTable("spark.apache.org", "sparkapplications", cols, {&app}, "Object",
                                  json::object{}, created);
  CHECK(full["rows"].as_array()[0].as_object().at("object").as_object().at("kind") ==
        "SparkApplication");
  json::object none = RenderTable("spark.apache.org", "sparkapplications", cols, {&app}, "None",
                                  json::object{}, created);
  CHECK_FALSE(none["rows"].as_array()[0].as_object().contains("object"));
}

TEST_CASE("Pods get READY, STATUS and RESTARTS columns", "[table]") {
  auto cols = TableColumns("", "pods", nullptr);
  REQUIRE(cols.size() == 5);
  CHECK(cols[1].name == "Ready");
  CHECK(cols[4].name == "Age");
  json::object running = json::parse(R"({"metadata":{"name":"pi-0-driver",
      "creationTimestamp":"2026-12-01T00:00:00Z"},
      "spec":{"containers":[{"name":"spark-kubernetes-driver","image":"x"}]},
      "status":{"phase":"Running","containerStatuses":[{"name":"spark-kubernetes-driver",
        "ready":true,"restartCount":2,"state":{"running":{}}}]}})")
                             .as_object();
  json::object done = json::parse(R"({"metadata":{"name":"d"},
      "spec":{"containers":[{"name":"c","image":"x"}]},
      "status":{"phase":"Succeeded","containerStatuses":[{"name":"c","ready":false,
        "restartCount":0,"state":{"terminated":{"reason":"Completed","exitCode":0}}}]}})")
                          .as_object();
  json::object waiting = json::parse(R"({"metadata":{"name":"w"},
      "spec":{"containers":[{"name":"c","image":"x"}]},
      "status":{"phase":"Pending","containerStatuses":[{"name":"c","ready":false,
        "restartCount":0,"state":{"waiting":{"reason":"ContainerCreating"}}}]}})")
                             .as_object();
  int64_t now = 0;
  REQUIRE(ParseRfc3339("2026-12-01T00:10:00Z", &now));
  json::object table =
      RenderTable("", "pods", cols, {&running, &done, &waiting}, "", json::object{}, now);
  const auto& rows = table["rows"].as_array();
  auto cells = [&](size_t i) { return rows[i].as_object().at("cells").as_array(); };
  CHECK(cells(0)[1] == "1/1");
  CHECK(cells(0)[2] == "Running");
  CHECK(cells(0)[3] == 2);
  CHECK(cells(0)[4] == "10m");
  CHECK(cells(1)[1] == "0/1");
  CHECK(cells(1)[2] == "Completed");
  CHECK(cells(2)[2] == "ContainerCreating");
  CHECK(cells(2)[4] == "<unknown>");
}

}  // namespace
}  // namespace kubesim
