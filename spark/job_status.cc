#include "spark/job_status.h"

#include "absl/strings/str_cat.h"
#include "base/strings.h"

namespace kje::spark {

std::string_view JobStatusName(JobStatus status) {
  switch (status) {
    case JobStatus::kQueued:
      return "QUEUED";
    case JobStatus::kStarted:
      return "STARTED";
    case JobStatus::kSucceeded:
      return "SUCCEEDED";
    case JobStatus::kFailed:
      return "FAILED";
    case JobStatus::kCancelling:
      return "CANCELLING";
    case JobStatus::kCancelled:
      return "CANCELLED";
  }
  return "UNKNOWN";
}

bool IsTerminal(JobStatus status) {
  return status == JobStatus::kSucceeded || status == JobStatus::kFailed ||
         status == JobStatus::kCancelled;
}

bool MarkNoStatusTimeout(const AppProjection& app, absl::Time now, absl::Duration no_status_timeout,
                         JobStatusInfo& info) {
  if (app.creation_time() == kNoTime ||
      absl::FromUnixMillis(app.creation_time()) + no_status_timeout >= now) {
    return false;
  }
  info.status = JobStatus::kFailed;
  info.no_status_timed_out = true;
  info.message = absl::StrCat("The SparkApplication has had no status for more than ",
                              absl::FormatDuration(no_status_timeout),
                              ": is its namespace watched by the Spark operator?");
  return true;
}

bool ShouldDeleteOrphanDriver(const JobStatusInfo& info, const DriverPod& driver,
                              std::string_view driver_container) {
  return info.status == JobStatus::kFailed && !info.suspended && !info.operator_removes_driver &&
         driver.IsAlive(driver_container) && !driver.deleting;
}

absl::Status CheckAdoption(const AppProjection& existing, std::string_view job_id) {
  if (existing.deleting()) {
    return absl::AlreadyExistsError(absl::StrCat(
        "SparkApplication ", ToAbsl(existing.namespace_()), "/", ToAbsl(existing.name()),
        " is being deleted and can't be used for job ", ToAbsl(job_id), " until it is gone"));
  }
  if (existing.job_id() != job_id) {
    return absl::AlreadyExistsError(absl::StrCat(
        "SparkApplication ", ToAbsl(existing.namespace_()), "/", ToAbsl(existing.name()),
        " already exists and can't be used for job ", ToAbsl(job_id),
        ". If it belongs to another Gravitino deployment sharing the namespace, use a different "
        "namePrefix for each of them"));
  }
  return absl::OkStatus();
}

}  // namespace kje::spark
