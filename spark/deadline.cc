#include "spark/deadline.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "base/strings.h"
#include "spark/json_writer.h"

namespace kje::spark {
namespace {

// A label's number, or 0 when it is absent or no whole number of seconds in range.
int64_t LabelSeconds(const AppProjection& app, std::string_view key) {
  std::optional<std::string_view> text = app.labels().Find(key);
  if (!text) return 0;
  absl::StatusOr<int64_t> seconds = ParseDeadlineSeconds(*text, key);
  return seconds.ok() ? *seconds : 0;
}

}  // namespace

std::string_view DeadlineName(DeadlineKind kind) {
  switch (kind) {
    case DeadlineKind::kQueued:
      return "queued";
    case DeadlineKind::kRun:
      return "run";
    case DeadlineKind::kNone:
      break;
  }
  return "";
}

DeadlineKind ParseDeadlineName(std::string_view name) {
  if (name == "queued") return DeadlineKind::kQueued;
  if (name == "run") return DeadlineKind::kRun;
  return DeadlineKind::kNone;
}

absl::StatusOr<int64_t> ParseDeadlineSeconds(std::string_view text, std::string_view what) {
  int64_t seconds = 0;
  // Digits only: a sign or spaces would make a label value a label couldn't carry.
  const bool digits = !text.empty() && text.size() <= 12 &&
                      text.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits || !absl::SimpleAtoi(ToAbsl(text), &seconds) || seconds > kMaxDeadlineSeconds) {
    return absl::InvalidArgumentError(
        absl::StrCat(ToAbsl(what), " must be a whole number of seconds from 0 (none) to ",
                     kMaxDeadlineSeconds, ", not ", QuoteBounded(text)));
  }
  return seconds;
}

void AddDeadlineLabels(const Deadlines& deadlines, std::map<std::string, std::string>& labels) {
  if (deadlines.max_queued_seconds > 0) {
    labels[std::string(kLabelMaxQueuedSeconds)] = absl::StrCat(deadlines.max_queued_seconds);
  }
  if (deadlines.max_run_seconds > 0) {
    labels[std::string(kLabelMaxRunSeconds)] = absl::StrCat(deadlines.max_run_seconds);
  }
}

Deadlines DeadlinesOf(const AppProjection& app) {
  if (!app.has_deadline_labels()) return Deadlines{};
  return Deadlines{LabelSeconds(app, kLabelMaxQueuedSeconds),
                   LabelSeconds(app, kLabelMaxRunSeconds)};
}

void ApplyDeadlines(const AppProjection& app, absl::Time now, JobStatusInfo& info) {
  if (const DeadlineKind stopped = app.deadline_exceeded(); stopped != DeadlineKind::kNone) {
    // Stopped by the service: FAILED, whatever the operator has made of the stop so far (the
    // mark is only written on a job judged queued or running), unless it succeeded before the
    // stop reached it.
    if (info.status == JobStatus::kSucceeded) return;
    const Deadlines deadlines = DeadlinesOf(app);
    info.no_status_timed_out = false;  // the service's own stop, nothing more to delete for
    info.start_timed_out = false;
    info.status = JobStatus::kFailed;
    info.deadline_exceeded = stopped;
    info.message = stopped == DeadlineKind::kQueued
                       ? absl::StrCat("stopped: the job didn't start within its queued deadline (",
                                      deadlines.max_queued_seconds, " s, maxQueuedSeconds)")
                       : absl::StrCat("stopped: the job ran longer than its run deadline (",
                                      deadlines.max_run_seconds, " s, maxRunSeconds)");
    if (app.deleting() && app.deletion_time() != kNoTime) {
      info.finished_at = absl::FromUnixMillis(app.deletion_time());
    }
    return;
  }
  if (info.deleting || app.cancel_requested() || !app.has_deadline_labels()) return;
  const Deadlines deadlines = DeadlinesOf(app);
  if (info.status == JobStatus::kQueued && deadlines.max_queued_seconds > 0 &&
      app.creation_time() != kNoTime) {
    info.deadline_at =
        absl::FromUnixMillis(app.creation_time()) + absl::Seconds(deadlines.max_queued_seconds);
    if (now >= *info.deadline_at) info.deadline_due = DeadlineKind::kQueued;
  } else if (info.status == JobStatus::kStarted && deadlines.max_run_seconds > 0 &&
             info.started_at) {
    info.deadline_at = *info.started_at + absl::Seconds(deadlines.max_run_seconds);
    if (now >= *info.deadline_at) info.deadline_due = DeadlineKind::kRun;
  }
}

std::string DeadlinePatch(DeadlineKind kind, std::string_view resource_version) {
  rapidjson::StringBuffer buffer;
  json::Writer w(buffer);
  w.StartObject();
  json::Key(w, "metadata");
  w.StartObject();
  json::KeyStr(w, "resourceVersion", resource_version);
  json::Key(w, "annotations");
  w.StartObject();
  json::KeyStr(w, kAnnotationDeadlineExceeded, DeadlineName(kind));
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace kje::spark
