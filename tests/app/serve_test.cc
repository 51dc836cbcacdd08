#include "app/serve.h"

#include <catch2/catch.hpp>

namespace kje::app {
namespace {

TEST_CASE("serve args: flags map onto configuration keys", "[serve]") {
  auto a =
      ParseServeArgs({"--config", "c.yaml", "--listen=127.0.0.1:0", "--set", "namespace=jobs",
                      "--set=spark.conf.spark.x=a=b", "--log-level", "debug", "--log-format=json"});
  REQUIRE(a.ok());
  CHECK(a->sources.yaml_path == "c.yaml");
  using Flags = std::vector<std::pair<std::string, std::string>>;
  CHECK(a->sources.flags == Flags{{"server.listen", "127.0.0.1:0"},
                                  {"namespace", "jobs"},
                                  {"spark.conf.spark.x", "a=b"},
                                  {"server.logLevel", "debug"},
                                  {"server.logFormat", "json"}});
  CHECK_FALSE(a->help);
}

TEST_CASE("serve args: mistakes are named", "[serve]") {
  CHECK(std::string(ParseServeArgs({"--port", "1"}).status().message()) == "unknown flag --port");
  CHECK(std::string(ParseServeArgs({"--config"}).status().message()) == "--config needs a value");
  CHECK(std::string(ParseServeArgs({"--set", "novalue"}).status().message()) ==
        "--set needs KEY=VALUE, got \"novalue\"");
  CHECK(std::string(ParseServeArgs({"extra"}).status().message()) ==
        "unexpected argument \"extra\"");
  CHECK(ParseServeArgs({"--help"})->help);
}

}  // namespace
}  // namespace kje::app
