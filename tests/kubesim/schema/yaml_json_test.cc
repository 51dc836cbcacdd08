#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>

#include "kubesim/schema/schema.h"

namespace kubesim {
namespace {

boost::json::value Convert(const std::string& yaml) { return YamlToJson(YAML::Load(yaml)); }

TEST_CASE("YamlToJson types plain scalars by the YAML 1.2 core schema", "[yaml]") {
  auto v = Convert(R"(
a: 1
b: -42
c: 1.5
d: true
e: False
f: null
g: ~
h:
i: hello
j: 0x1F
k: 0o17
l: 1e3
m: yes
n: .inf
o: 9223372036854775808
p: 123456789012345678901234567890
q: 1_000
)");
  const auto& o = v.as_object();
  CHECK(o.at("a").as_int64() == 1);
  CHECK(o.at("b").as_int64() == -42);
  CHECK(o.at("c").as_double() == 1.5);
  CHECK(o.at("d").as_bool() == true);
  CHECK(o.at("e").as_bool() == false);
  CHECK(o.at("f").is_null());
  CHECK(o.at("g").is_null());
  CHECK(o.at("h").is_null());
  CHECK(o.at("i").as_string() == "hello");
  CHECK(o.at("j").as_int64() == 31);
  CHECK(o.at("k").as_int64() == 15);
  CHECK(o.at("l").as_double() == 1000.0);
  // YAML 1.1 booleans are plain strings in 1.2.
  CHECK(o.at("m").as_string() == "yes");
  CHECK(std::isinf(o.at("n").as_double()));
  CHECK(o.at("o").as_uint64() == 9223372036854775808ULL);
  CHECK(o.at("p").is_double());
  CHECK(o.at("q").as_string() == "1_000");
}

TEST_CASE("YamlToJson keeps quoted and block scalars as strings", "[yaml]") {
  auto v = Convert(R"(
a: "1"
b: 'true'
c: "null"
d: |
  line1
  line2
e: !!str 12
)");
  const auto& o = v.as_object();
  CHECK(o.at("a").as_string() == "1");
  CHECK(o.at("b").as_string() == "true");
  CHECK(o.at("c").as_string() == "null");
  CHECK(o.at("d").as_string() == "line1\nline2\n");
  CHECK(o.at("e").as_string() == "12");
}

TEST_CASE("YamlToJson converts sequences, nested maps and aliases", "[yaml]") {
  auto v = Convert(R"(
base: &b {x: 1}
list: [1, "two", {three: 3}]
ref: *b
)");
  const auto& o = v.as_object();
  const auto& list = o.at("list").as_array();
  REQUIRE(list.size() == 3);
  CHECK(list[0].as_int64() == 1);
  CHECK(list[1].as_string() == "two");
  CHECK(list[2].as_object().at("three").as_int64() == 3);
  CHECK(o.at("ref").as_object().at("x").as_int64() == 1);
}

}  // namespace
}  // namespace kubesim
