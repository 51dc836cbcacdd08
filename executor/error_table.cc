#include "executor/error_table.h"

#include <array>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "k8s/errors.h"
#include "spark/build_error.h"

namespace kje::executor {
namespace {

using absl::StatusCode;

constexpr std::string_view kCredentialsHint =
    "the API server refused the service's credentials; check its token";
constexpr std::string_view kRbacHint = "the service's RBAC permissions don't allow it";
constexpr std::string_view kMissingNamespaceHint =
    "the namespace doesn't exist, or the operator's CRD isn't installed";
constexpr std::string_view kExpiredTokenHint =
    "the page token expired; list again from the first page";

constexpr std::array kRows = {
    ErrorRow{"cancelled", Rpc::kAny, StatusCode::kCancelled, ""},
    ErrorRow{"deadline", Rpc::kAny, StatusCode::kDeadlineExceeded, ""},
    ErrorRow{"timeout", Rpc::kAny, StatusCode::kUnavailable, ""},
    ErrorRow{"unreachable", Rpc::kAny, StatusCode::kUnavailable, ""},
    ErrorRow{"refused locally", Rpc::kAny, StatusCode::kInvalidArgument, ""},
    ErrorRow{"throttled", Rpc::kAny, StatusCode::kResourceExhausted, ""},
    // A retry gets the same answer: nothing for the caller to wait out.
    ErrorRow{"too large", Rpc::kAny, StatusCode::kInternal, ""},
    // A UI page over server.maxUiProxyBytes: the limit is the caller's to know about.
    ErrorRow{"too large", Rpc::kProxyUi, StatusCode::kResourceExhausted,
             "the Spark UI's answer is larger than server.maxUiProxyBytes"},
    ErrorRow{"400", Rpc::kAny, StatusCode::kInvalidArgument, ""},
    ErrorRow{"401", Rpc::kAny, StatusCode::kFailedPrecondition, kCredentialsHint},
    ErrorRow{"403", Rpc::kAny, StatusCode::kPermissionDenied, kRbacHint},
    ErrorRow{"404", Rpc::kAny, StatusCode::kNotFound, ""},
    // Creating in a namespace that doesn't exist, or of a kind whose CRD isn't installed: the
    // request names what is missing, not the job.
    ErrorRow{"404", Rpc::kSubmit, StatusCode::kInvalidArgument, kMissingNamespaceHint},
    ErrorRow{"404", Rpc::kCreateSchedule, StatusCode::kInvalidArgument, kMissingNamespaceHint},
    // The driver pod went between finding it and proxying to it: the job is stopping.
    ErrorRow{"404", Rpc::kProxyUi, StatusCode::kFailedPrecondition,
             "the driver pod is gone, and its Spark UI with it; a finished job's UI is the Spark "
             "history server's"},
    ErrorRow{"409 AlreadyExists", Rpc::kAny, StatusCode::kAlreadyExists, ""},
    ErrorRow{"409", Rpc::kAny, StatusCode::kAborted, "a concurrent change; retry"},
    ErrorRow{"410", Rpc::kAny, StatusCode::kAborted, "the list position expired; start again"},
    // A page token outlived the API server's continue window: only a new first page helps.
    ErrorRow{"410", Rpc::kListJobs, StatusCode::kInvalidArgument, kExpiredTokenHint},
    ErrorRow{"410", Rpc::kListSchedules, StatusCode::kInvalidArgument, kExpiredTokenHint},
    ErrorRow{"422", Rpc::kAny, StatusCode::kInvalidArgument, ""},
    ErrorRow{"429", Rpc::kAny, StatusCode::kUnavailable, ""},
    ErrorRow{"500", Rpc::kAny, StatusCode::kUnavailable, ""},
    ErrorRow{"501", Rpc::kAny, StatusCode::kInternal, ""},
    ErrorRow{"502", Rpc::kAny, StatusCode::kUnavailable, ""},
    ErrorRow{"503", Rpc::kAny, StatusCode::kUnavailable, ""},
    ErrorRow{"504", Rpc::kAny, StatusCode::kUnavailable, ""},
    ErrorRow{"other 5xx", Rpc::kAny, StatusCode::kUnavailable, ""},
    ErrorRow{"other", Rpc::kAny, StatusCode::kInternal, ""},
};

const ErrorRow& RowFor(std::string_view outcome, Rpc rpc) {
  const ErrorRow* any = nullptr;
  for (const ErrorRow& row : kRows) {
    if (row.outcome != outcome) continue;
    if (row.rpc == rpc) return row;
    if (row.rpc == Rpc::kAny) any = &row;
  }
  if (any != nullptr) return *any;
  return kRows.back();  // "other"
}

}  // namespace

std::string_view RpcName(Rpc rpc) {
  switch (rpc) {
    case Rpc::kAny:
      return "any";
    case Rpc::kSubmit:
      return "Submit";
    case Rpc::kStatus:
      return "Status";
    case Rpc::kCancel:
      return "Cancel";
    case Rpc::kOutput:
      return "Output";
    case Rpc::kListJobs:
      return "ListJobs";
    case Rpc::kEvents:
      return "Events";
    case Rpc::kWatchStatus:
      return "WatchStatus";
    case Rpc::kFollowOutput:
      return "FollowOutput";
    case Rpc::kCreateSchedule:
      return "CreateSchedule";
    case Rpc::kGetSchedule:
      return "GetSchedule";
    case Rpc::kListSchedules:
      return "ListSchedules";
    case Rpc::kUpdateSchedule:
      return "UpdateSchedule";
    case Rpc::kDeleteSchedule:
      return "DeleteSchedule";
    case Rpc::kRunScheduleNow:
      return "RunScheduleNow";
    case Rpc::kProxyUi:
      return "ProxyUi";
  }
  return "any";
}

std::span<const ErrorRow> ErrorTable() { return kRows; }

std::string_view OutcomeOf(const absl::Status& status, absl::Time rpc_deadline, absl::Time now) {
  int code = k8s::HttpCode(status);
  if (code == 0) {
    if (absl::IsCancelled(status)) return "cancelled";
    // Ours (the per-request timeout) is worth a retry; the caller's own is the caller's to know.
    if (absl::IsDeadlineExceeded(status)) return now >= rpc_deadline ? "deadline" : "timeout";
    if (absl::IsUnavailable(status)) return "unreachable";
    if (absl::IsInvalidArgument(status)) return "refused locally";
    if (absl::IsResourceExhausted(status)) {
      return k8s::IsThrottled(status) ? "throttled" : "too large";
    }
    return "other";
  }
  if (code == 409) {
    auto error = k8s::GetApiError(status);
    return error && error->reason == "AlreadyExists" ? "409 AlreadyExists" : "409";
  }
  const std::string text = std::to_string(code);
  for (const ErrorRow& row : kRows) {
    if (row.outcome == text) return row.outcome;
  }
  if (code >= 500 && code <= 599) return "other 5xx";
  return "other";
}

absl::Status FromBuild(const absl::Status& status, Rpc rpc) {
  if (status.ok()) return status;
  switch (spark::BuildInputOf(status)) {
    case spark::BuildInput::kServerConfig:
      return absl::InternalError(status.message());
    case spark::BuildInput::kJobId:
      if (rpc == Rpc::kCreateSchedule) {
        return absl::InvalidArgumentError(absl::StrCat("schedule_id: ", status.message()));
      }
      return absl::InvalidArgumentError(status.message());
    case spark::BuildInput::kTemplate:
    case spark::BuildInput::kRunId:
      break;
  }
  return status;
}

absl::Status FromKubernetes(const absl::Status& status, Rpc rpc, std::string_view what,
                            absl::Time rpc_deadline, absl::Time now) {
  if (status.ok()) return status;
  const ErrorRow& row = RowFor(OutcomeOf(status, rpc_deadline, now), rpc);
  std::string message = absl::StrCat(ToAbsl(what), ": ", status.message());
  if (!row.hint.empty()) absl::StrAppend(&message, " (", ToAbsl(row.hint), ")");
  return absl::Status(row.code, message);
}

}  // namespace kje::executor
