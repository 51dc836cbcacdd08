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

// An API error's code is UNKNOWN on purpose: what an HTTP status means to a caller depends on what
// the caller was doing (a 404 of a GET is "no such job", of a create "no such namespace"), so it is
// decided in one place above this layer (executor/error_table.h). Read the answer with HttpCode()
// and GetApiError(). Outcomes without an answer keep their own codes: UNAVAILABLE (no connection,
// or it was lost), DEADLINE_EXCEEDED (the request's deadline), CANCELLED.
absl::Status MakeApiStatus(const ApiError& error);

// Builds the status for an error response. `body` is parsed as a Kubernetes Status object when it
// is one; otherwise a bounded prefix of it becomes the message.
absl::Status StatusFromResponse(int http_code, std::string_view body);

// The API error carried by `status`, if it came from the API server.
std::optional<ApiError> GetApiError(const absl::Status& status);

// The HTTP code of the API error on `status`, or 0 when there is none.
int HttpCode(const absl::Status& status);

// The client's own refusal to send a request now (kubernetes.maxInFlight's waiters full):
// RESOURCE_EXHAUSTED marked as such, where a response over a size limit is RESOURCE_EXHAUSTED
// without the mark. A retry with backoff can get past the first, never past the second.
absl::Status MakeThrottledStatus(std::string_view message);
bool IsThrottled(const absl::Status& status);

inline bool IsK8sNotFound(const absl::Status& s) { return HttpCode(s) == 404; }
inline bool IsK8sConflict(const absl::Status& s) { return HttpCode(s) == 409; }
inline bool IsK8sGone(const absl::Status& s) { return HttpCode(s) == 410; }
inline bool IsK8sInvalid(const absl::Status& s) { return HttpCode(s) == 422; }

}  // namespace kje::k8s
