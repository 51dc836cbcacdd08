#pragma once

// A job's deadlines: how long it may stay queued (before its driver starts) and how long it may
// run, written on its application as labels (so a schedule's runs inherit them with the rest of
// its labels), and the mark the service leaves when it stops a job whose deadline passed. Every
// replica reads the same resource, so whichever sees a deadline pass first stops the job, once:
// the mark is written with the resourceVersion it was decided on, and a replica that loses that
// race sees the mark instead. Pure.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "spark/app_projection.h"
#include "spark/job_status.h"

namespace kje::spark {

inline constexpr std::string_view kLabelMaxQueuedSeconds =
    "gravitino.apache.org/max-queued-seconds";
inline constexpr std::string_view kLabelMaxRunSeconds = "gravitino.apache.org/max-run-seconds";
// "queued" or "run": the deadline that stopped the job.
inline constexpr std::string_view kAnnotationDeadlineExceeded =
    "gravitino.apache.org/deadline-exceeded";
// The template's custom fields that override the server's defaults (0 turns one off).
inline constexpr std::string_view kCustomFieldMaxQueuedSeconds = "maxQueuedSeconds";
inline constexpr std::string_view kCustomFieldMaxRunSeconds = "maxRunSeconds";
// The largest deadline taken: a year.
inline constexpr int64_t kMaxDeadlineSeconds = 366 * 24 * 3600;

struct Deadlines {
  int64_t max_queued_seconds = 0;  // 0: none
  int64_t max_run_seconds = 0;     // 0: none
};

// "queued", "run"; "" for kNone.
std::string_view DeadlineName(DeadlineKind kind);
DeadlineKind ParseDeadlineName(std::string_view name);  // kNone for anything else

// A deadline's value as a custom field or a configuration gives it: whole seconds from 0 to
// kMaxDeadlineSeconds. INVALID_ARGUMENT naming `what` otherwise.
absl::StatusOr<int64_t> ParseDeadlineSeconds(std::string_view text, std::string_view what);

// Adds the labels that carry the deadlines that are set.
void AddDeadlineLabels(const Deadlines& deadlines, std::map<std::string, std::string>& labels);

// The deadlines an application carries in its labels (a malformed label counts as none).
Deadlines DeadlinesOf(const AppProjection& app);

// Applies the app's deadlines to its mapped status: a job the service stopped for a deadline is
// FAILED, saying which; a queued or started one gets the time its deadline falls due
// (`deadline_at`) and, once `now` has passed it, `deadline_due`, for the caller to stop it.
void ApplyDeadlines(const AppProjection& app, absl::Time now, JobStatusInfo& info);

// The merge patch that marks the app stopped for `kind`, valid only at `resource_version` (the
// API server answers 409 when the app changed since the deadline was judged on it).
std::string DeadlinePatch(DeadlineKind kind, std::string_view resource_version);

}  // namespace kje::spark
