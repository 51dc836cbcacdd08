#include "executor/log_request.h"

#include "absl/strings/str_cat.h"

namespace kje::executor {

absl::Status CheckLogRequest(const LogRequest& request, bool follow) {
  if (request.executor < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "executor must be 0 (the driver) or a Spark executor id >= 1, got ", request.executor));
  }
  if (request.since_seconds < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("since_seconds must not be negative, got ", request.since_seconds));
  }
  if (request.previous && follow) {
    return absl::InvalidArgumentError(
        "previous can't be followed: the container's previous run has ended");
  }
  return absl::OkStatus();
}

}  // namespace kje::executor
