#include "spark/names.h"

#include <catch2/catch.hpp>
#include <string>

#include "base/quote.h"
#include "rapidjson/document.h"

namespace kje::spark {
namespace {

TEST_CASE("The resource name is <namePrefix>-<jobId>") {
  CHECK(ResourceName("gravitino-job", "688822913391439376") == "gravitino-job-688822913391439376");
}

TEST_CASE("Gravitino's numeric job ids are valid with the default prefix") {
  CHECK(ValidateJobId(kDefaultNamePrefix, "688822913391439376").ok());
  CHECK(ValidateJobId(kDefaultNamePrefix, "9223372036854775807").ok());
  CHECK(ValidateJobId(kDefaultNamePrefix, "job-1").ok());
}

TEST_CASE("Job ids that wouldn't make a valid name are INVALID_ARGUMENT") {
  const char* bad = GENERATE("", "Job1", "job_1", "-1", "1-", "a.b", "1 2", "ü", "a/b");
  INFO("job id: \"" << bad << "\"");
  CHECK(ValidateJobId(kDefaultNamePrefix, bad).code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("The resource name is at most 63 characters") {
  std::string prefix = "p";  // 1 + '-' + 61 = 63
  CHECK(ValidateJobId(prefix, std::string(61, '1')).ok());
  CHECK(ValidateJobId(prefix, std::string(62, '1')).code() == absl::StatusCode::kInvalidArgument);
  CHECK(ValidateJobId(kDefaultNamePrefix, std::string(64, '1')).code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("Name prefixes follow the Java executor's rule") {
  CHECK(ValidateNamePrefix("gravitino-job").ok());
  CHECK(ValidateNamePrefix("a").ok());
  CHECK(ValidateNamePrefix(std::string(24, 'a')).ok());
  CHECK_FALSE(ValidateNamePrefix(std::string(25, 'a')).ok());
  CHECK_FALSE(ValidateNamePrefix("").ok());
  CHECK_FALSE(ValidateNamePrefix("1job").ok());
  CHECK_FALSE(ValidateNamePrefix("job-").ok());
  CHECK_FALSE(ValidateNamePrefix("Job").ok());
  CHECK_FALSE(ValidateNamePrefix("job_x").ok());
}

TEST_CASE("Cluster names must be non-blank and free of slashes") {
  CHECK(ValidateClusterName("default").ok());
  CHECK_FALSE(ValidateClusterName("").ok());
  CHECK_FALSE(ValidateClusterName("  ").ok());
  CHECK_FALSE(ValidateClusterName("a/b").ok());
}

TEST_CASE("Selectors name our labels and the operator's driver labels") {
  CHECK(ManagedAppSelector() == "app.kubernetes.io/managed-by=gravitino");
  CHECK(DriverPodSelector("gravitino-job-1") ==
        "spark.operator/spark-app-name=gravitino-job-1,spark-role=driver");
}

TEST_CASE("The cancel patch sets only the cancel-requested annotation") {
  rapidjson::Document patch;
  std::string text = CancelRequestPatch();
  patch.Parse(text.c_str());
  REQUIRE_FALSE(patch.HasParseError());
  REQUIRE(patch.IsObject());
  CHECK(patch.MemberCount() == 1);
  const rapidjson::Value& annotations = patch["metadata"]["annotations"];
  REQUIRE(annotations.IsObject());
  CHECK(annotations.MemberCount() == 1);
  REQUIRE(annotations.HasMember("gravitino.apache.org/cancel-requested"));
  CHECK(std::string(annotations["gravitino.apache.org/cancel-requested"].GetString()) == "true");
}

TEST_CASE("Over-long or control-byte names are quoted bounded") {
  const std::string huge = std::string(8999, 'a') + "\x1b";
  for (const absl::Status& status :
       {ValidateJobId(kDefaultNamePrefix, huge), ValidateNamePrefix(huge),
        ValidateClusterName(huge + "/"), ValidateJobId(huge.substr(0, 8999) + "-", "1")}) {
    std::string message(status.message());
    INFO(message.substr(0, 200));
    CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    CHECK(message.size() < 1024);
    CHECK(message.find("bytes)") != std::string::npos);
    CHECK_FALSE(HasControlByte(message));
  }
  CHECK(std::string(ValidateJobId(kDefaultNamePrefix, huge).message()).find("(9000 bytes)") !=
        std::string::npos);
}

}  // namespace
}  // namespace kje::spark
