#pragma once

// The one table from what Kubernetes answered to the code a caller sees. Every Kubernetes outcome
// of every RPC goes through FromKubernetes; a row names the outcome, the RPC it applies to ("any"
// unless an RPC must answer differently) and the code. The proto's table
// (proto/jobexecutor/v1/job_executor.proto) documents these rows; a test compares the two.
//
// A code says "retry" only where a retry can succeed: UNAVAILABLE for what a later attempt can
// get past, the caller's own DEADLINE_EXCEEDED and CANCELLED as such, and a code that says what
// to fix for everything else.

#include <span>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace kje::executor {

enum class Rpc {
  kAny,
  kSubmit,
  kStatus,
  kCancel,
  kOutput,
  kListJobs,
  kWatchStatus,
  kFollowOutput,
  kEvents,
  kCreateSchedule,
  kGetSchedule,
  kListSchedules,
  kUpdateSchedule,
  kDeleteSchedule,
  kRunScheduleNow,
  kProxyUi
};

// The RPC's name as the proto's table writes it ("any" for kAny).
std::string_view RpcName(Rpc rpc);

struct ErrorRow {
  // An HTTP status ("404"), "409 AlreadyExists", "other 5xx", or what happened without an answer:
  // "cancelled", "deadline" (the caller's), "timeout" (the service's own per-request timeout),
  // "unreachable" (no connection, or it was lost), "refused locally" (the request was malformed
  // before it was sent), "throttled" (the service's own in-flight cap had no room), "too large"
  // (an answer over the service's size limit), "other" (any other status, an unreadable answer).
  std::string_view outcome;
  Rpc rpc;
  absl::StatusCode code;
  // Said after the message: what the caller can do about it ("" for nothing).
  std::string_view hint;
};

// Every row, "any" rows and RPC rows alike.
std::span<const ErrorRow> ErrorTable();

// The outcome a failed Kubernetes call had, as the table's rows name it.
std::string_view OutcomeOf(const absl::Status& status, absl::Time rpc_deadline, absl::Time now);

// The caller's status for a failed Kubernetes call made while serving `rpc`: the row of its
// outcome for `rpc` if there is one, else the "any" row. `what` says what was being done
// ("reading SparkApplication ns/x"); the API server's reason and message are kept after it.
absl::Status FromKubernetes(const absl::Status& status, Rpc rpc, std::string_view what,
                            absl::Time rpc_deadline, absl::Time now);

// The caller's status for a builder's refusal (spark/build_error.h) while serving `rpc`: one the
// executor's own configuration causes is INTERNAL (the caller can't fix it); a refused id is
// INVALID_ARGUMENT, and for CreateSchedule names its field, schedule_id; the rest (the template,
// a run id) keep the builder's code.
absl::Status FromBuild(const absl::Status& status, Rpc rpc);

}  // namespace kje::executor
