#pragma once

// A job's restart policy, whatever the operator: the template's custom fields (restartPolicy
// Never, the default, or OnFailure with a retry count and interval; retries of a failed
// submission where the operator has them), checked once here and written by each operator's
// builder in its own terms. Pure.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kje::spark {

inline constexpr std::string_view kCustomFieldRestartPolicy = "restartPolicy";
inline constexpr std::string_view kCustomFieldOnFailureRetries = "onFailureRetries";
inline constexpr std::string_view kCustomFieldOnFailureRetryIntervalSeconds =
    "onFailureRetryIntervalSeconds";
inline constexpr std::string_view kCustomFieldOnSubmissionFailureRetries =
    "onSubmissionFailureRetries";
inline constexpr std::string_view kCustomFieldOnSubmissionFailureRetryIntervalSeconds =
    "onSubmissionFailureRetryIntervalSeconds";

// Bounds: a job is retried at most this often, waiting at most a day between attempts.
inline constexpr int64_t kMaxRetries = 100;
inline constexpr int64_t kMaxRetryIntervalSeconds = 86400;
// What OnFailure means without a count or an interval: three retries (the Apache operator's
// default), five seconds apart (the Kubeflow operator's default).
inline constexpr int64_t kDefaultRetries = 3;
inline constexpr int64_t kDefaultRetryIntervalSeconds = 5;

struct RestartPolicy {
  bool on_failure = false;  // false: Never
  int64_t on_failure_retries = 0;
  int64_t on_failure_interval_seconds = kDefaultRetryIntervalSeconds;
  // Whether the template asked for retries of a failed submission (an operator without them
  // refuses the template).
  bool submission_retries_set = false;
  int64_t on_submission_failure_retries = 0;
  int64_t on_submission_failure_interval_seconds = kDefaultRetryIntervalSeconds;
};

// The policy the custom fields give; INVALID_ARGUMENT naming the field (and the template) when
// one is malformed, out of bounds, or set without restartPolicy OnFailure.
absl::StatusOr<RestartPolicy> ParseRestartPolicy(
    const std::map<std::string, std::string>& custom_fields, std::string_view template_name);

}  // namespace kje::spark
