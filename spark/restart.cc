#include "spark/restart.h"

#include <charconv>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::spark {
namespace {

std::string_view Trimmed(std::string_view text) {
  return ToStd(absl::StripAsciiWhitespace(ToAbsl(text)));
}

std::optional<std::string_view> Field(const std::map<std::string, std::string>& fields,
                                      std::string_view key) {
  auto it = fields.find(std::string(key));
  if (it == fields.end() || Trimmed(it->second).empty()) return std::nullopt;
  return Trimmed(it->second);
}

absl::Status FieldError(std::string_view key, std::string_view template_name,
                        std::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("The custom field ", ToAbsl(key),
                                                 " of job template ", ToAbsl(template_name), " ",
                                                 ToAbsl(problem)));
}

// A whole number from `min` to `max`, or the fallback when the field is unset.
absl::StatusOr<int64_t> Number(const std::map<std::string, std::string>& fields,
                               std::string_view key, std::string_view template_name, int64_t min,
                               int64_t max, int64_t fallback) {
  std::optional<std::string_view> text = Field(fields, key);
  if (!text) return fallback;
  int64_t value = 0;
  auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() || value < min || value > max) {
    return FieldError(key, template_name,
                      absl::StrCat("must be a whole number from ", min, " to ", max, ", not ",
                                   QuoteBounded(*text)));
  }
  return value;
}

}  // namespace

absl::StatusOr<RestartPolicy> ParseRestartPolicy(
    const std::map<std::string, std::string>& custom_fields, std::string_view template_name) {
  RestartPolicy policy;
  std::optional<std::string_view> name = Field(custom_fields, kCustomFieldRestartPolicy);
  if (name && *name != "Never" && *name != "OnFailure") {
    return FieldError(kCustomFieldRestartPolicy, template_name,
                      absl::StrCat("must be Never or OnFailure, not ", QuoteBounded(*name)));
  }
  policy.on_failure = name && *name == "OnFailure";
  for (std::string_view key :
       {kCustomFieldOnFailureRetries, kCustomFieldOnFailureRetryIntervalSeconds,
        kCustomFieldOnSubmissionFailureRetries,
        kCustomFieldOnSubmissionFailureRetryIntervalSeconds}) {
    if (!policy.on_failure && Field(custom_fields, key)) {
      return FieldError(
          key, template_name,
          absl::StrCat("is only taken with the custom field ", ToAbsl(kCustomFieldRestartPolicy),
                       " OnFailure (a job isn't retried otherwise)"));
    }
  }
  if (!policy.on_failure) return policy;
  absl::StatusOr<int64_t> retries = Number(custom_fields, kCustomFieldOnFailureRetries,
                                           template_name, 0, kMaxRetries, kDefaultRetries);
  if (!retries.ok()) return retries.status();
  policy.on_failure_retries = *retries;
  absl::StatusOr<int64_t> interval =
      Number(custom_fields, kCustomFieldOnFailureRetryIntervalSeconds, template_name, 1,
             kMaxRetryIntervalSeconds, kDefaultRetryIntervalSeconds);
  if (!interval.ok()) return interval.status();
  policy.on_failure_interval_seconds = *interval;
  policy.submission_retries_set =
      Field(custom_fields, kCustomFieldOnSubmissionFailureRetries).has_value() ||
      Field(custom_fields, kCustomFieldOnSubmissionFailureRetryIntervalSeconds).has_value();
  absl::StatusOr<int64_t> submission_retries = Number(
      custom_fields, kCustomFieldOnSubmissionFailureRetries, template_name, 0, kMaxRetries, 0);
  if (!submission_retries.ok()) return submission_retries.status();
  policy.on_submission_failure_retries = *submission_retries;
  absl::StatusOr<int64_t> submission_interval =
      Number(custom_fields, kCustomFieldOnSubmissionFailureRetryIntervalSeconds, template_name, 1,
             kMaxRetryIntervalSeconds, kDefaultRetryIntervalSeconds);
  if (!submission_interval.ok()) return submission_interval.status();
  policy.on_submission_failure_interval_seconds = *submission_interval;
  return policy;
}

}  // namespace kje::spark
