#include "server/config_schema.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "rapidjson/document.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

namespace kje::server {
namespace {

const std::string kChart = std::string(KJE_SOURCE_DIR) + "/deploy/helm/k8s-job-executor";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("the chart's schema refuses exactly the config keys the server doesn't know",
          "[config]") {
  rapidjson::Document chart;
  chart.Parse(ReadFile(kChart + "/values.schema.json").c_str());
  REQUIRE_FALSE(chart.HasParseError());
  REQUIRE(chart.IsObject());
  const rapidjson::Value& config = chart["properties"]["config"];
  rapidjson::Document generated;
  generated.Parse(ConfigValuesSchema().c_str());
  REQUIRE_FALSE(generated.HasParseError());
  if (config != generated) {
    // The key table changed: the chart's copy is made again from it (the whole file is written,
    // with the generated part in place, for `cp` over the chart's).
    rapidjson::Document fixed;
    fixed.CopyFrom(chart, fixed.GetAllocator());
    fixed["properties"]["config"].CopyFrom(generated, fixed.GetAllocator());
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
    w.SetIndent(' ', 2);
    fixed.Accept(w);
    const std::string path = "values.schema.json.expected";
    std::ofstream(path) << buffer.GetString() << "\n";
    FAIL("values.schema.json's config differs from the server's key table: copy "
         << path << " (in the test's working directory) over " << kChart << "/values.schema.json");
  }
  // Every top-level value of the chart is in the schema, and nothing else: a misspelt top-level
  // value is refused too.
  YAML::Node values = YAML::LoadFile(kChart + "/values.yaml");
  std::set<std::string> in_values, in_schema;
  for (const auto& entry : values) in_values.insert(entry.first.as<std::string>());
  in_values.insert("global");  // what a parent chart passes every subchart
  for (const auto& member : chart["properties"].GetObject())
    in_schema.insert(member.name.GetString());
  CHECK(in_values == in_schema);
  CHECK(chart["additionalProperties"].IsFalse());
}

TEST_CASE("the generated schema nests the keys at their dots, with spark.conf a map", "[config]") {
  rapidjson::Document schema;
  schema.Parse(ConfigValuesSchema().c_str());
  REQUIRE_FALSE(schema.HasParseError());
  const rapidjson::Value& spark = schema["properties"]["spark"];
  CHECK(spark["additionalProperties"].IsFalse());
  CHECK(spark["properties"].HasMember("image"));
  CHECK_FALSE(spark["properties"].HasMember("imag"));
  CHECK(spark["properties"]["conf"]["additionalProperties"].IsObject());
  CHECK(schema["properties"]["server"]["properties"]["tls"]["properties"].HasMember("certFile"));
  CHECK(schema["properties"].HasMember("maxQueuedSeconds"));
}

}  // namespace
}  // namespace kje::server
