#include "spark/monitoring.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <tuple>

namespace kje::spark {
namespace {

TEST_CASE("monitoring lists driver, executor, both or none", "[monitoring]") {
  using Case = std::tuple<std::string, bool, bool>;
  auto [text, driver, executor] = GENERATE(values<Case>({{"driver", true, false},
                                                         {"executor", false, true},
                                                         {" executor , driver", true, true},
                                                         {"none", false, false},
                                                         {"", false, false}}));
  Monitoring monitoring;
  monitoring.driver = monitoring.executor = true;
  REQUIRE(ParseMonitoringExpose(text, "monitoring.expose", monitoring).ok());
  CHECK(monitoring.driver == driver);
  CHECK(monitoring.executor == executor);
}

TEST_CASE("anything else is refused, naming where it came from", "[monitoring]") {
  for (std::string text : {"drivers", "none,driver", "all", "driver;executor"}) {
    Monitoring monitoring;
    absl::Status status = ParseMonitoringExpose(text, "monitoring.expose", monitoring);
    INFO(text);
    CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    CHECK(status.message().find("monitoring.expose") != std::string::npos);
  }
}

TEST_CASE("a template's custom field decides what it exposes, keeping the agent", "[monitoring]") {
  Monitoring deployment;
  deployment.driver = true;
  deployment.jmx_exporter_jar = "/prometheus/jmx.jar";
  deployment.port = 9000;
  absl::StatusOr<Monitoring> inherited = ResolveMonitoring({}, deployment, "\"t\"");
  REQUIRE(inherited.ok());
  CHECK(inherited->driver);
  CHECK_FALSE(inherited->executor);
  absl::StatusOr<Monitoring> own =
      ResolveMonitoring({{"monitoring", "executor"}}, deployment, "\"t\"");
  REQUIRE(own.ok());
  CHECK_FALSE(own->driver);
  CHECK(own->executor);
  CHECK(own->jmx_exporter_jar == "/prometheus/jmx.jar");
  CHECK(own->port == 9000);
  absl::StatusOr<Monitoring> off = ResolveMonitoring({{"monitoring", "none"}}, deployment, "\"t\"");
  REQUIRE(off.ok());
  CHECK_FALSE(off->enabled());
  absl::StatusOr<Monitoring> bad = ResolveMonitoring({{"monitoring", "yes"}}, deployment, "\"t\"");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("custom field monitoring of job template \"t\"") !=
        std::string::npos);
}

}  // namespace
}  // namespace kje::spark
