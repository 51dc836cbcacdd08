#pragma once

// A stop that keeps the record: Cancel (and a deadline) in keep mode stops the job without
// deleting its application, which then stays as the job's record until its TTL. The application
// is marked first, with the resourceVersion the stop was decided on (one replica writes it; the
// others see it written), then each operator stops the run its own way (the backend's part of the
// patch, and the pods the service then deletes). The mark carries when the stop was asked for and
// why; a marked app is never resumed by the service. Pure.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "spark/app_projection.h"
#include "spark/job_status.h"

namespace kje::spark {

// Why the job was cancelled, as the caller said it (masked and escaped).
inline constexpr std::string_view kAnnotationCancelReason = "gravitino.apache.org/cancel-reason";
// When the service stopped the job keeping its application (RFC 3339): the mark of keep mode.
inline constexpr std::string_view kAnnotationStopKeptAt = "gravitino.apache.org/stop-kept-at";
// "true" once the service has deleted the pods the operator left after it stopped the run: the
// kept stop needs nothing more.
inline constexpr std::string_view kAnnotationStopKeptDone = "gravitino.apache.org/stop-kept-done";
// A CancelRequest.reason is at most this many bytes.
inline constexpr size_t kMaxCancelReasonBytes = 1024;

enum class CancelMode { kDelete, kKeep };

// "delete" or "keep" (cancelMode); INVALID_ARGUMENT naming `key` otherwise.
absl::StatusOr<CancelMode> ParseCancelMode(std::string_view text, std::string_view key);
std::string_view CancelModeName(CancelMode mode);

// INVALID_ARGUMENT when the reason is longer than kMaxCancelReasonBytes (its bytes not echoed).
absl::Status CheckCancelReason(std::string_view reason);
// The reason as it is stored and shown: sensitive values masked, control, quote and backslash
// bytes escaped (so it can't forge a log line or drive a terminal), never cut (a checked reason
// fits its annotation).
std::string StoredCancelReason(std::string_view reason);

// Delete mode's mark with a reason: cancel-requested and cancel-reason (shown while the app is
// being deleted).
std::string CancelReasonPatch(std::string_view reason);

// What marks an app stopped in keep mode.
struct KeptStop {
  std::string resource_version;  // the precondition: the version the stop was decided on
  bool cancel = false;           // a Cancel (cancel-requested and the reason are written)
  std::string reason;            // StoredCancelReason's, "" for none
  DeadlineKind deadline = DeadlineKind::kNone;  // a deadline's stop (deadline-exceeded is written)
  absl::Time at;                                // when
  // The operator's part: a JSON object merged into the app's spec (the backend's
  // KeptStopSpecPatch), "" for none.
  std::string spec_patch;
};
// The merge patch of the mark.
std::string KeptStopPatch(const KeptStop& stop);
// The merge patch that says the kept stop is finished (kAnnotationStopKeptDone).
std::string KeptStopDonePatch();

// When the app was stopped in keep mode; nullopt when it wasn't (or the mark is unreadable).
std::optional<absl::Time> StopKeptAt(const AppProjection& app);

// Applies keep mode to a status the backend mapped: a kept cancel is CANCELLED once the operator
// has stopped the run (the backend's stopped or suspended state), with the mark's time when the
// operator gives no finish time, and CANCELLING until then; a kept deadline stop gets its finish
// time alike. Any cancel's reason is copied to `info`.
void ApplyKeptStop(const AppProjection& app, JobStatusInfo& info);

// Whether the operator has stopped the run of an app marked for a kept stop (`info` the backend's
// mapping of it).
bool KeptStopDone(const AppProjection& app, const JobStatusInfo& info);

}  // namespace kje::spark
