#include "spark/cancel_keep.h"

#include "absl/strings/str_cat.h"
#include "base/mask.h"
#include "base/quote.h"
#include "base/strings.h"
#include "rapidjson/stringbuffer.h"
#include "spark/deadline.h"
#include "spark/json_writer.h"
#include "spark/names.h"
#include "spark/time_util.h"

namespace kje::spark {

absl::StatusOr<CancelMode> ParseCancelMode(std::string_view text, std::string_view key) {
  if (text == "delete") return CancelMode::kDelete;
  if (text == "keep") return CancelMode::kKeep;
  return absl::InvalidArgumentError(
      absl::StrCat(ToAbsl(key), " must be \"delete\" or \"keep\", not ", QuoteBounded(text)));
}

std::string_view CancelModeName(CancelMode mode) {
  return mode == CancelMode::kKeep ? "keep" : "delete";
}

absl::Status CheckCancelReason(std::string_view reason) {
  if (reason.size() <= kMaxCancelReasonBytes) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("the cancel reason is ", reason.size(),
                                                 " bytes long; at most ", kMaxCancelReasonBytes,
                                                 " are kept"));
}

std::string StoredCancelReason(std::string_view reason) {
  // Each byte escapes to at most 4: the bound never cuts a checked reason.
  return EscapeBounded(MaskText(reason), 8 * kMaxCancelReasonBytes);
}

std::string CancelReasonPatch(std::string_view reason) {
  rapidjson::StringBuffer buffer;
  json::Writer w(buffer);
  w.StartObject();
  json::Key(w, "metadata");
  w.StartObject();
  json::Key(w, "annotations");
  w.StartObject();
  json::KeyStr(w, kAnnotationCancelRequested, kCancelRequestedValue);
  json::KeyStr(w, kAnnotationCancelReason, reason);
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string KeptStopPatch(const KeptStop& stop) {
  rapidjson::StringBuffer buffer;
  json::Writer w(buffer);
  w.StartObject();
  json::Key(w, "metadata");
  w.StartObject();
  json::KeyStr(w, "resourceVersion", stop.resource_version);
  json::Key(w, "annotations");
  w.StartObject();
  if (stop.cancel) {
    json::KeyStr(w, kAnnotationCancelRequested, kCancelRequestedValue);
    if (!stop.reason.empty()) json::KeyStr(w, kAnnotationCancelReason, stop.reason);
  }
  if (stop.deadline != DeadlineKind::kNone) {
    json::KeyStr(w, kAnnotationDeadlineExceeded, DeadlineName(stop.deadline));
  }
  json::KeyStr(w, kAnnotationStopKeptAt,
               absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", stop.at, absl::UTCTimeZone()));
  w.EndObject();
  w.EndObject();
  if (!stop.spec_patch.empty()) {
    json::Key(w, "spec");
    w.RawValue(stop.spec_patch.data(), stop.spec_patch.size(), rapidjson::kObjectType);
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string KeptStopDonePatch() {
  return absl::StrCat(R"({"metadata":{"annotations":{")", ToAbsl(kAnnotationStopKeptDone),
                      R"(":"true"}}})");
}

std::optional<absl::Time> StopKeptAt(const AppProjection& app) {
  if (app.stop_kept_at().empty()) return std::nullopt;
  return ToOptionalTime(ParseRfc3339Millis(app.stop_kept_at()));
}

bool KeptStopDone(const AppProjection& app, const JobStatusInfo& info) {
  return info.is_stopped || info.status == JobStatus::kCancelled ||
         (info.suspended && app.suspend_requested());
}

void ApplyKeptStop(const AppProjection& app, JobStatusInfo& info) {
  if (app.cancel_requested()) info.cancel_reason = std::string(app.cancel_reason());
  const std::optional<absl::Time> kept_at = StopKeptAt(app);
  if (!kept_at || info.deleting) return;
  const bool done = KeptStopDone(app, info);
  if (app.cancel_requested()) {
    if (!done) {
      info.status = JobStatus::kCancelling;
      return;
    }
    info.status = JobStatus::kCancelled;
  } else if (app.deadline_exceeded() == DeadlineKind::kNone || !done ||
             info.status != JobStatus::kFailed) {
    return;
  }
  // Parked, not waiting to run: a suspended state says nothing more once the job is over.
  info.suspended = false;
  info.suspend_reason.clear();
  info.deadline_at.reset();
  if (!info.finished_at) info.finished_at = *kept_at;
}

}  // namespace kje::spark
