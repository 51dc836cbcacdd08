#include "server/protobuf_log.h"

#include <google/protobuf/stubs/logging.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "jobexecutor/v1/job_executor.pb.h"

namespace kje::server {
namespace {

struct Captured {
  std::vector<std::string> lines;
  Captured() {
    log::Configure(log::Level::kInfo, log::Format::kText);
    log::SetSinkForTesting([this](std::string_view l) { lines.emplace_back(l); });
  }
  ~Captured() { log::SetSinkForTesting(nullptr); }
};

TEST_CASE("protobuf's lines are warnings, one per window, the next naming those dropped") {
  Captured c;
  FakeClock clock;
  ProtobufLogLimiter limiter(clock, absl::Minutes(1));
  limiter.Log("String field 'a.B.c' contains invalid UTF-8 data");
  REQUIRE(c.lines.size() == 1);
  CHECK_THAT(c.lines[0], Catch::Contains("level=warn msg=protobuf message=\"String field"));
  CHECK_THAT(c.lines[0], !Catch::Contains("dropped_since_last"));

  for (int i = 0; i < 1000; ++i) limiter.Log("again");
  clock.Advance(absl::Seconds(59));
  limiter.Log("again");
  CHECK(c.lines.size() == 1);

  clock.Advance(absl::Seconds(1));
  limiter.Log("later");
  REQUIRE(c.lines.size() == 2);
  CHECK_THAT(c.lines[1], Catch::Contains("message=later dropped_since_last=1001"));

  clock.Advance(absl::Minutes(5));
  limiter.Log("alone");
  REQUIRE(c.lines.size() == 3);
  CHECK_THAT(c.lines[2], !Catch::Contains("dropped_since_last"));
}

TEST_CASE("once routed, a request whose string isn't UTF-8 is logged through our log") {
  Captured c;
  RouteProtobufLog();
  jobexecutor::v1::StatusRequest request;
  // Field 1, three bytes: not UTF-8.
  const std::string bytes("\x0a\x03\xff\xfe\xfd", 5);
  CHECK_FALSE(request.ParseFromString(bytes));
  REQUIRE(c.lines.size() == 1);
  CHECK_THAT(c.lines[0], Catch::Contains("level=warn msg=protobuf"));
  CHECK_THAT(c.lines[0], Catch::Contains("invalid UTF-8"));
  google::protobuf::SetLogHandler(nullptr);
}

}  // namespace
}  // namespace kje::server
