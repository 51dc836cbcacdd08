#include "base/log.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

namespace kje::log {
namespace {

struct Captured {
  std::vector<std::string> lines;
  Captured() {
    SetSinkForTesting([this](std::string_view l) { lines.emplace_back(l); });
  }
  ~Captured() {
    SetSinkForTesting(nullptr);
    Configure(Level::kInfo, Format::kText);
  }
};

TEST_CASE("log: logfmt quotes only what needs it", "[log]") {
  Captured c;
  Configure(Level::kInfo, Format::kText);
  Info("rpc finished")
      .Kv("rpc", "Submit")
      .Kv("code", 0)
      .Kv("error", "bad \"x\"\nnext")
      .Kv("ok", true);
  REQUIRE(c.lines.size() == 1);
  const std::string& l = c.lines[0];
  CHECK_THAT(l, Catch::StartsWith("ts="));
  CHECK_THAT(l, Catch::Contains(" level=info msg=\"rpc finished\" rpc=Submit code=0 "
                                "error=\"bad \\\"x\\\"\\nnext\" ok=true"));
  CHECK(l.find('\n') == std::string::npos);
}

TEST_CASE("log: an over-long value is cut, its length named", "[log]") {
  Captured c;
  for (Format format : {Format::kText, Format::kJson}) {
    Configure(Level::kInfo, format);
    Info("refused").Kv("execution_id", std::string(9000, 'a') + "\x1b");
  }
  REQUIRE(c.lines.size() == 2);
  for (const std::string& l : c.lines) {
    INFO(l.substr(0, 200));
    CHECK(l.size() < 1200);
    CHECK_THAT(l, Catch::Contains("aaa... (9001 bytes)"));
  }
}

TEST_CASE("log: json lines are objects", "[log]") {
  Captured c;
  Configure(Level::kDebug, Format::kJson);
  Debug("x").Kv("k", "v\t").Kv("n", int64_t{-3});
  REQUIRE(c.lines.size() == 1);
  CHECK_THAT(c.lines[0], Catch::StartsWith("{\"ts\":\""));
  CHECK_THAT(c.lines[0],
             Catch::EndsWith(",\"level\":\"debug\",\"msg\":\"x\",\"k\":\"v\\t\",\"n\":-3}"));
}

TEST_CASE("log: a moved line is written once, where it is let go", "[log]") {
  Captured c;
  Configure(Level::kInfo, Format::kText);
  {
    Event built = Info("submitted");
    built.Kv("job_id", "j1");
    {
      Event kept = std::move(built);
      kept.Kv("execution_id", "x");
      CHECK(c.lines.empty());
    }
    REQUIRE(c.lines.size() == 1);
    CHECK_THAT(c.lines[0], Catch::EndsWith("msg=submitted job_id=j1 execution_id=x"));
  }
  CHECK(c.lines.size() == 1);  // the moved-from line wrote nothing
}

TEST_CASE("log: levels below the minimum are dropped", "[log]") {
  Captured c;
  Configure(Level::kWarn, Format::kText);
  Info("hidden");
  Debug("hidden");
  Warn("shown");
  Error("shown too");
  REQUIRE(c.lines.size() == 2);
  CHECK_THAT(c.lines[0], Catch::Contains("level=warn"));
  CHECK_THAT(c.lines[1], Catch::Contains("level=error"));
}

TEST_CASE("log: level and format names", "[log]") {
  CHECK(*ParseLevel("DEBUG") == Level::kDebug);
  CHECK(*ParseLevel("warning") == Level::kWarn);
  CHECK_FALSE(ParseLevel("verbose").ok());
  CHECK(*ParseFormat("json") == Format::kJson);
  CHECK(*ParseFormat("logfmt") == Format::kText);
  CHECK_FALSE(ParseFormat("xml").ok());
}

}  // namespace
}  // namespace kje::log
