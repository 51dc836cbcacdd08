#include "spark/apache/run_details.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "spark/apache/app_projection.h"

namespace kje::spark::apache {
namespace {

AppProjection Apache(const std::string& json) {
  absl::StatusOr<AppProjection> app = ProjectAppJson(json);
  REQUIRE(app.ok());
  return *std::move(app);
}

RunDetails Details(const AppProjection& app) { return RunDetailsOf(app).ToDetails(); }

TEST_CASE("the Apache operator's app id: name and attempt, hashed past 46 characters",
          "[run_details]") {
  CHECK(ApacheSparkAppId("default", "pi", 0) == "pi-0");
  // 46 characters exactly stay readable.
  std::string name46(44, 'a');
  CHECK(ApacheSparkAppId("default", name46, 7) == name46 + "-7");
  // 51 characters: the first 9, a dash, 36 base-36 digits of SHA-256("team-a/<name>/2"), as
  // Python's hashlib and int-to-base-36 give them.
  CHECK(ApacheSparkAppId("team-a", "gravitino-job-a-very-long-job-id-from-gravitino-x", 2) ==
        "gravitino-2q3imkxee8uv19619pyu480r6rhqg2y7z673");
  // The namespace is part of the hash.
  CHECK(ApacheSparkAppId("team-b", "gravitino-job-a-very-long-job-id-from-gravitino-x", 2) !=
        ApacheSparkAppId("team-a", "gravitino-job-a-very-long-job-id-from-gravitino-x", 2));
}

TEST_CASE("RunDetailsRef reads the app in place and holds a composed id of its own",
          "[run_details]") {
  const AppProjection app = Apache(R"({"metadata":{"name":"pi","namespace":"n"},
      "status":{"currentState":{"currentStateSummary":"Submitted"},
      "currentAttemptSummary":{"attemptInfo":{"id":4}}}})");
  std::optional<RunDetailsRef> copy;
  {
    const RunDetailsRef ref = RunDetailsOf(app);
    copy = ref;  // the original's buffer goes at the end of this scope
  }
  CHECK(copy->spark_app_id() == "pi-4");
  CHECK(copy->attempts() == 5);
  CHECK(RunDetailsOf(app).ToDetails() == RunDetails{"pi-4", 5, "", "", ""});
  // As StrCat writes a number, whatever its sign.
  CHECK(ApacheSparkAppId("n", "pi", -1) == "pi--1");
  CHECK(ApacheSparkAppId("n", "pi", INT64_MIN) == absl::StrCat("pi-", INT64_MIN));
}

TEST_CASE("Apache: no details before the operator's first status, then the current attempt's",
          "[run_details]") {
  CHECK(RunDetailsOf(Apache(R"({"metadata":{"name":"pi","namespace":"n"}})")).ToDetails() ==
        RunDetails{});
  RunDetails first = Details(Apache(R"({"metadata":{"name":"pi","namespace":"n"},
      "status":{"currentState":{"currentStateSummary":"Submitted"},
      "currentAttemptSummary":{"attemptInfo":{"id":0}}}})"));
  CHECK(first.spark_app_id == "pi-0");
  CHECK(first.attempts == 1);
  CHECK(first.driver_ui_address.empty());
  RunDetails restarted = Details(Apache(R"({"metadata":{"name":"pi","namespace":"n"},
      "status":{"currentState":{"currentStateSummary":"DriverRequested"},
      "currentAttemptSummary":{"attemptInfo":{"id":2}}}})"));
  CHECK(restarted.spark_app_id == "pi-2");
  CHECK(restarted.attempts == 3);
  // The operator sets spark.app.id only when the application doesn't.
  RunDetails fixed = Details(Apache(R"({"metadata":{"name":"pi","namespace":"n"},
      "spec":{"sparkConf":{"spark.app.id":"nightly-etl"}},
      "status":{"currentState":{"currentStateSummary":"Submitted"}}})"));
  CHECK(fixed.spark_app_id == "nightly-etl");
  CHECK(fixed.attempts == 1);
}

}  // namespace
}  // namespace kje::spark::apache
