#include "spark/names.h"

#include "absl/strings/str_cat.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/strings.h"

namespace kje::spark {
namespace {

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

}  // namespace

absl::Status ValidateNamePrefix(std::string_view name_prefix) {
  bool ok = !name_prefix.empty() && name_prefix.size() <= kMaxNamePrefixLength &&
            name_prefix.front() >= 'a' && name_prefix.front() <= 'z' &&
            IsLowerAlnum(name_prefix.back());
  for (char c : name_prefix) ok = ok && (IsLowerAlnum(c) || c == '-');
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("namePrefix must match [a-z]([-a-z0-9]*[a-z0-9])? and be at most ",
                   kMaxNamePrefixLength, " characters: ", QuoteBounded(name_prefix)));
}

absl::Status ValidateClusterName(std::string_view cluster) {
  if (IsBlank(cluster) || cluster.find('/') != std::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cluster must be non-blank and must not contain '/': ", QuoteBounded(cluster)));
  }
  return absl::OkStatus();
}

absl::Status ValidateJobId(std::string_view name_prefix, std::string_view job_id) {
  if (!IsDns1123Label(job_id)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "job id must be lower-case letters, digits and '-', starting and ending with a letter "
        "or digit, at most 63 characters: ",
        QuoteBounded(job_id)));
  }
  if (name_prefix.size() + 1 + job_id.size() > kMaxResourceNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("job id ", QuoteBounded(job_id), " is too long: the resource name ",
                     QuoteBounded(ResourceName(name_prefix, job_id)), " would exceed ",
                     kMaxResourceNameLength, " characters"));
  }
  return absl::OkStatus();
}

std::string ResourceName(std::string_view name_prefix, std::string_view job_id) {
  return absl::StrCat(ToAbsl(name_prefix), "-", ToAbsl(job_id));
}

std::string ManagedAppSelector() {
  return absl::StrCat(ToAbsl(kLabelManagedBy), "=", ToAbsl(kManagedByGravitino));
}

std::string DriverPodSelector(std::string_view app_name) {
  return absl::StrCat(ToAbsl(kLabelSparkAppName), "=", ToAbsl(app_name), ",",
                      ToAbsl(kLabelSparkRole), "=", ToAbsl(kSparkRoleDriver));
}

std::string ExecutorIdRequirements(int executor_id) {
  return absl::StrCat(ToAbsl(kLabelSparkRole), "=", ToAbsl(kSparkRoleExecutor), ",",
                      ToAbsl(kLabelSparkExecId), "=", executor_id);
}

std::string CancelRequestPatch() {
  return absl::StrCat(R"({"metadata":{"annotations":{")", ToAbsl(kAnnotationCancelRequested),
                      R"(":")", ToAbsl(kCancelRequestedValue), R"("}}})");
}

}  // namespace kje::spark
