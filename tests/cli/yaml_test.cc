#include "cli/yaml.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <string>

namespace kje::cli {
namespace {

TEST_CASE("yaml: an object as kubectl prints it, keys sorted, lists under their key") {
  auto yaml = JsonToYaml(R"({"spec":{"sparkConf":{"b":"2","a":"x"},"args":["--n","10"],
      "containers":[{"name":"c","ports":[{"port":80}]},{"name":"d"}],"empty":{},"none":[],
      "nested":[[1,2],[]]},"kind":"SparkApplication","metadata":{"name":"pi","generation":1,
      "ratio":0.5,"on":true,"gone":null}})");
  REQUIRE(yaml.ok());
  CHECK(*yaml ==
        "kind: SparkApplication\n"
        "metadata:\n"
        "  generation: 1\n"
        "  gone: null\n"
        "  name: pi\n"
        "  'on': true\n"
        "  ratio: 0.5\n"
        "spec:\n"
        "  args:\n"
        "  - --n\n"
        "  - '10'\n"
        "  containers:\n"
        "  - name: c\n"
        "    ports:\n"
        "    - port: 80\n"
        "  - name: d\n"
        "  empty: {}\n"
        "  nested:\n"
        "  -\n"
        "    - 1\n"
        "    - 2\n"
        "  - []\n"
        "  none: []\n"
        "  sparkConf:\n"
        "    a: x\n"
        "    b: '2'\n");
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
