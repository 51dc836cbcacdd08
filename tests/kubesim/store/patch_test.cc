#include "kubesim/store/patch.h"

#include <catch2/catch.hpp>

namespace kubesim {
namespace {

namespace json = boost::json;

TEST_CASE("merge patch follows RFC 7386", "[patch]") {
  json::value doc = json::parse(R"({"a":"b","c":{"d":"e","f":"g"},"l":[1,2]})");
  ApplyMergePatch(doc, json::parse(R"({"a":"z","c":{"f":null,"h":1},"l":[3],"n":{"x":null}})"));
  CHECK(doc == json::parse(R"({"a":"z","c":{"d":"e","h":1},"l":[3],"n":{}})"));
  json::value scalar = json::parse(R"({"a":1})");
  ApplyMergePatch(scalar, json::parse(R"({"a":{"b":2}})"));
  CHECK(scalar == json::parse(R"({"a":{"b":2}})"));
}

TEST_CASE("json patch operations", "[patch]") {
  json::value doc = json::parse(R"({"a":{"b":[1,2,3]},"c":"x","t/~":1})");
  auto r = ApplyJsonPatch(doc, json::parse(R"([
    {"op":"test","path":"/c","value":"x"},
    {"op":"add","path":"/a/b/1","value":9},
    {"op":"add","path":"/a/b/-","value":4},
    {"op":"remove","path":"/a/b/0"},
    {"op":"replace","path":"/c","value":"y"},
    {"op":"copy","from":"/c","path":"/d"},
    {"op":"move","from":"/t~1~0","path":"/moved"}
  ])"));
  REQUIRE(r.ok());
  CHECK(doc == json::parse(R"({"a":{"b":[9,2,3,4]},"c":"y","d":"y","moved":1})"));
}

TEST_CASE("json patch failures leave the document alone", "[patch]") {
  json::value doc = json::parse(R"({"a":1})");
  json::value before = doc;
  auto failed_test = ApplyJsonPatch(doc, json::parse(R"([{"op":"replace","path":"/a","value":2},
                                                         {"op":"test","path":"/a","value":1}])"));
  REQUIRE_FALSE(failed_test.ok());
  CHECK(failed_test.error().code == 422);
  CHECK(failed_test.error().message.find("test failed") != std::string::npos);
  CHECK(doc == before);

  auto missing = ApplyJsonPatch(doc, json::parse(R"([{"op":"remove","path":"/nope"}])"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == 422);
  auto replace_missing =
      ApplyJsonPatch(doc, json::parse(R"([{"op":"replace","path":"/x/y","value":1}])"));
  REQUIRE_FALSE(replace_missing.ok());
  CHECK(replace_missing.error().code == 422);

  auto not_array = ApplyJsonPatch(doc, json::parse(R"({"op":"add"})"));
  REQUIRE_FALSE(not_array.ok());
  CHECK(not_array.error().code == 400);
  auto unknown_op = ApplyJsonPatch(doc, json::parse(R"([{"op":"frob","path":"/a"}])"));
  REQUIRE_FALSE(unknown_op.ok());
  CHECK(unknown_op.error().code == 400);
  auto no_value = ApplyJsonPatch(doc, json::parse(R"([{"op":"add","path":"/b"}])"));
  REQUIRE_FALSE(no_value.ok());
  CHECK(no_value.error().code == 400);
  auto bad_index = ApplyJsonPatch(doc, json::parse(R"([{"op":"add","path":"/a/01","value":1}])"));
  REQUIRE_FALSE(bad_index.ok());
  CHECK(doc == before);
}

TEST_CASE("strategic merge patch merges keyed lists and finalizers", "[patch]") {
  json::value doc = json::parse(R"({
    "metadata":{"finalizers":["a"],"labels":{"x":"1"}},
    "spec":{"containers":[{"name":"c1","image":"i1"},{"name":"c2","image":"i2"}],
            "tolerations":[{"key":"k1"}]}})");
  ApplyStrategicMergePatch(doc, json::parse(R"({
    "metadata":{"finalizers":["b","a"],"labels":{"x":null,"y":"2"}},
    "spec":{"containers":[{"name":"c2","image":"new"},{"name":"c3","image":"i3"},
                          {"name":"c1","$patch":"delete"}],
            "tolerations":[{"key":"k2"}]}})"));
  CHECK(doc == json::parse(R"({
    "metadata":{"finalizers":["a","b"],"labels":{"y":"2"}},
    "spec":{"containers":[{"name":"c2","image":"new"},{"name":"c3","image":"i3"}],
            "tolerations":[{"key":"k2"}]}})"));
  ApplyStrategicMergePatch(doc,
                           json::parse(R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]},
                           "spec":{"$patch":"replace","x":1}})"));
  CHECK(doc == json::parse(R"({"metadata":{"finalizers":["b"],"labels":{"y":"2"}},
                               "spec":{"x":1}})"));
}

}  // namespace
}  // namespace kubesim
