#pragma once

// ListJobs' filters: the statuses a job may be in and the ranges its creation and finish times
// must fall in. Judged on what the page is made of anyway (the projection's status and the
// application's creation time), so a filtered page served from the informer costs no request,
// and a page passed through to the API server is filtered the same way after it comes back.
// Pure: no cache, no Kubernetes.

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "spark/job_status.h"

namespace kje::executor {

struct ListFilter {
  // One bit per spark::JobStatus (1 << status); 0: any status.
  uint32_t statuses = 0;
  // Half-open ranges, [after, before); an absent bound doesn't limit.
  std::optional<absl::Time> created_after;
  std::optional<absl::Time> created_before;
  std::optional<absl::Time> finished_after;
  std::optional<absl::Time> finished_before;

  void AddStatus(spark::JobStatus status) { statuses |= uint32_t{1} << static_cast<int>(status); }
  bool empty() const {
    return statuses == 0 && !created_after && !created_before && !finished_after &&
           !finished_before;
  }
  // Whether a job with this status, finish time (`info`) and creation time is on the page. A
  // finished bound leaves out a job that hasn't finished (or whose finish time isn't known); a
  // created bound, an application without a creation time.
  bool Matches(const spark::JobStatusInfo& info, std::optional<absl::Time> created_at) const;
};

// INVALID_ARGUMENT for a range that holds nothing (its after not before its before), naming it.
absl::Status CheckListFilter(const ListFilter& filter);

}  // namespace kje::executor
