#include "cli/yaml.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <string>

namespace kje::cli {
namespace {

TEST_CASE("yaml: an object in the JSON's order, block style, ambiguous strings quoted") {
  auto yaml = JsonToYaml(R"({"spec":{"sparkConf":{"b":"2","a":"x"},"args":["--n","10"],
      "containers":[{"name":"c","ports":[{"port":80}]},{"name":"d"}],"empty":{},"none":[],
      "nested":[[1,2],[]]},"kind":"SparkApplication","metadata":{"name":"pi","generation":1,
      "ratio":0.5,"on":true,"gone":null}})");
  REQUIRE(yaml.ok());
  // The JSON's order (the API server's), not sorted.
  CHECK(yaml->find("spec:") < yaml->find("kind: SparkApplication"));
  CHECK(yaml->find("b: \"2\"") < yaml->find("a: x"));
  CHECK(yaml->find("- \"10\"") != std::string::npos);  // a string, not the number 10
  YAML::Node back = YAML::Load(*yaml);
  CHECK(back["kind"].as<std::string>() == "SparkApplication");
  CHECK(back["metadata"]["generation"].as<int>() == 1);
  CHECK(back["metadata"]["ratio"].as<double>() == 0.5);
  CHECK(back["metadata"]["on"].as<bool>());
  CHECK(back["metadata"]["gone"].IsNull());
  CHECK(back["spec"]["args"][1].as<std::string>() == "10");
  CHECK(back["spec"]["containers"][0]["ports"][0]["port"].as<int>() == 80);
  CHECK(back["spec"]["containers"][1]["name"].as<std::string>() == "d");
  CHECK(back["spec"]["empty"].IsMap());
  CHECK(back["spec"]["empty"].size() == 0);
  CHECK(back["spec"]["none"].IsSequence());
  CHECK(back["spec"]["nested"][0][1].as<int>() == 2);
  CHECK(back["spec"]["nested"][1].size() == 0);
}

TEST_CASE("yaml: every string reads back as the same string") {
  const std::string texts[] = {"true", "False", "null",  "~",     "yes",        "0x1F",  "1e3",
                               "-1",   ".5",    "4.0.0", "12:30", "",           " lead", "trail ",
                               "a: b", "a #b",  "- x",   "-x",    "*ref",       "&a",    "!tag",
                               "%p",   "@at",   "`tick", "{a}",   "[1]",        "'q'",   "\"dq\"",
                               "it's", "a\nb",  "tab\t", "é",     "local:///x", "k=v,w"};
  for (const std::string& text : texts) {
    INFO(text);
    std::string json = "{\"k\":\"";
    for (char c : text) {
      if (c == '"' || c == '\\') json += '\\';
      if (c == '\n') {
        json += "\\n";
        continue;
      }
      if (c == '\t') {
        json += "\\t";
        continue;
      }
      json += c;
    }
    json += "\"}";
    auto yaml = JsonToYaml(json);
    REQUIRE(yaml.ok());
    YAML::Node node = YAML::Load(*yaml);
    REQUIRE(node.IsMap());
    const YAML::Node value = node["k"];
    REQUIRE(value.IsScalar());
    CHECK(value.Scalar() == text);
    // A plain scalar ("?") is one a reader may resolve to a bool, null or number: only text
    // that can't be one is left plain.
    if (value.Tag() == "?") {
      CHECK_FALSE(text.empty());
      CHECK_THROWS(value.as<double>());
      CHECK_THROWS(value.as<bool>());
      CHECK_FALSE(value.IsNull());
    }
  }
}

TEST_CASE("yaml: not JSON is an error") {
  CHECK(absl::IsInvalidArgument(JsonToYaml("{nope").status()));
  CHECK(*JsonToYaml("\"text\"") == "text\n");
}

}  // namespace
}  // namespace kje::cli
