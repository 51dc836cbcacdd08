#include "spark/restart.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

namespace kje::spark {
namespace {

using Fields = std::map<std::string, std::string>;

TEST_CASE("no restart policy is Never", "[restart]") {
  for (const Fields& fields : {Fields{}, Fields{{"restartPolicy", "Never"}},
                               Fields{{"restartPolicy", "  "}}, Fields{{"queue", "a"}}}) {
    absl::StatusOr<RestartPolicy> policy = ParseRestartPolicy(fields, "\"t\"");
    REQUIRE(policy.ok());
    CHECK_FALSE(policy->on_failure);
  }
}

TEST_CASE("OnFailure takes counts and intervals, with defaults", "[restart]") {
  absl::StatusOr<RestartPolicy> defaults =
      ParseRestartPolicy({{"restartPolicy", "OnFailure"}}, "\"t\"");
  REQUIRE(defaults.ok());
  CHECK(defaults->on_failure);
  CHECK(defaults->on_failure_retries == kDefaultRetries);
  CHECK(defaults->on_failure_interval_seconds == kDefaultRetryIntervalSeconds);
  CHECK_FALSE(defaults->submission_retries_set);
  CHECK(defaults->on_submission_failure_retries == 0);

  absl::StatusOr<RestartPolicy> set =
      ParseRestartPolicy({{"restartPolicy", "OnFailure"},
                          {"onFailureRetries", " 2 "},
                          {"onFailureRetryIntervalSeconds", "30"},
                          {"onSubmissionFailureRetries", "4"},
                          {"onSubmissionFailureRetryIntervalSeconds", "7"}},
                         "\"t\"");
  REQUIRE(set.ok());
  CHECK(set->on_failure_retries == 2);
  CHECK(set->on_failure_interval_seconds == 30);
  CHECK(set->submission_retries_set);
  CHECK(set->on_submission_failure_retries == 4);
  CHECK(set->on_submission_failure_interval_seconds == 7);
}

TEST_CASE("a malformed or misplaced restart field is refused, naming it", "[restart]") {
  using Case = std::pair<Fields, std::string>;
  auto [fields, named] = GENERATE(values<Case>({
      {{{"restartPolicy", "Always"}}, "restartPolicy"},
      {{{"restartPolicy", "onfailure"}}, "restartPolicy"},
      {{{"onFailureRetries", "1"}}, "onFailureRetries"},
      {{{"restartPolicy", "Never"}, {"onSubmissionFailureRetries", "1"}},
       "onSubmissionFailureRetries"},
      {{{"restartPolicy", "OnFailure"}, {"onFailureRetries", "101"}}, "onFailureRetries"},
      {{{"restartPolicy", "OnFailure"}, {"onFailureRetries", "-1"}}, "onFailureRetries"},
      {{{"restartPolicy", "OnFailure"}, {"onFailureRetries", "2x"}}, "onFailureRetries"},
      {{{"restartPolicy", "OnFailure"}, {"onFailureRetryIntervalSeconds", "0"}},
       "onFailureRetryIntervalSeconds"},
      {{{"restartPolicy", "OnFailure"}, {"onFailureRetryIntervalSeconds", "86401"}},
       "onFailureRetryIntervalSeconds"},
      {{{"restartPolicy", "OnFailure"}, {"onSubmissionFailureRetryIntervalSeconds", "x"}},
       "onSubmissionFailureRetryIntervalSeconds"},
  }));
  absl::StatusOr<RestartPolicy> policy = ParseRestartPolicy(fields, "\"t\"");
  REQUIRE_FALSE(policy.ok());
  CHECK(policy.status().code() == absl::StatusCode::kInvalidArgument);
  INFO(policy.status().message());
  CHECK(policy.status().message().find("custom field " + named + " ") != std::string::npos);
  CHECK(policy.status().message().find("\"t\"") != std::string::npos);
}

}  // namespace
}  // namespace kje::spark
