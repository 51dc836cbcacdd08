#include "executor/kubernetes_errors.h"

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "k8s/errors.h"

namespace kje::executor {

absl::Status FromKubernetes(const absl::Status& status, std::string_view what,
                            absl::Time rpc_deadline, absl::Time now) {
  if (status.ok()) return status;
  std::string message = absl::StrCat(ToAbsl(what), ": ", status.message());
  if (absl::IsCancelled(status)) return absl::CancelledError(message);
  int code = k8s::HttpCode(status);
  if (code == 0) {
    if (absl::IsDeadlineExceeded(status)) {
      // Ours (request_timeout) is worth a retry; the caller's own is the caller's to know.
      return now >= rpc_deadline ? absl::DeadlineExceededError(message)
                                 : absl::UnavailableError(message);
    }
    if (absl::IsUnavailable(status)) return absl::UnavailableError(message);
    if (absl::IsInvalidArgument(status)) return absl::InvalidArgumentError(message);
    return absl::InternalError(message);
  }
  switch (code) {
    case 400:
    case 422:
      return absl::InvalidArgumentError(message);
    case 401:
      return absl::FailedPreconditionError(absl::StrCat(
          message, " (the API server refused the service's credentials; check its token)"));
    case 403:
      return absl::PermissionDeniedError(
          absl::StrCat(message, " (the service's RBAC permissions don't allow it)"));
    case 404:
      return absl::NotFoundError(message);
    case 409: {
      auto error = k8s::GetApiError(status);
      if (error && error->reason == "AlreadyExists") return absl::AlreadyExistsError(message);
      return absl::AbortedError(message);
    }
    case 410:
      return absl::AbortedError(message);
    case 429:
      return absl::UnavailableError(message);
    default:
      if (code >= 500 && code != 501) return absl::UnavailableError(message);
      return absl::InternalError(message);
  }
}

}  // namespace kje::executor
