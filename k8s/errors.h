#pragma once

// Kubernetes API errors as absl::Status. The API server answers a failed request with a `Status`
// object {code, reason, message}; callers need the HTTP code and reason (404, 409 AlreadyExists vs
// Conflict, 410 Gone, 422 Invalid) to decide what to do, so they travel on the absl::Status as a
// payload and stay readable through GetApiError().

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace kje::k8s {

struct ApiError {
  int http_code = 0;
  std::string reason;   // e.g. "NotFound", "AlreadyExists", "Conflict", "Expired", "Invalid"
  std::string message;  // the API server's message
};

// The canonical code for an HTTP status of the API server:
// 400 InvalidArgument, 401 Unauthenticated, 403 PermissionDenied, 404 NotFound,
// 409 AlreadyExists (reason AlreadyExists) or Aborted (other conflicts), 410 OutOfRange (the
// resourceVersion is too old: relist), 422 InvalidArgument, 429 Unavailable, 500 Internal,
// 501 Unimplemented, 502/503 Unavailable, 504 DeadlineExceeded, anything else Unknown.
absl::StatusCode CodeForHttp(int http_code, std::string_view reason);

absl::Status MakeApiStatus(const ApiError& error);

// Builds the status for an error response. `body` is parsed as a Kubernetes Status object when it
// is one; otherwise a bounded prefix of it becomes the message.
absl::Status StatusFromResponse(int http_code, std::string_view body);

// The API error carried by `status`, if it came from the API server.
std::optional<ApiError> GetApiError(const absl::Status& status);

// The HTTP code of the API error on `status`, or 0 when there is none.
int HttpCode(const absl::Status& status);

inline bool IsK8sNotFound(const absl::Status& s) { return HttpCode(s) == 404; }
inline bool IsK8sConflict(const absl::Status& s) { return HttpCode(s) == 409; }
inline bool IsK8sGone(const absl::Status& s) { return HttpCode(s) == 410; }
inline bool IsK8sInvalid(const absl::Status& s) { return HttpCode(s) == 422; }

}  // namespace kje::k8s
