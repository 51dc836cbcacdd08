#pragma once

// The one table from Kubernetes outcomes to what a caller sees, used by every RPC (the gRPC codes
// follow from server/status_mapping.h). A code says "retry" only where a retry can succeed:
//
//   429, 5xx (504 included), lost connection, our own per-request timeout  -> UNAVAILABLE
//   the caller's own deadline passed                                       -> DEADLINE_EXCEEDED
//   the caller cancelled                                                   -> CANCELLED
//   400, 422 (the object was refused)                                      -> INVALID_ARGUMENT
//   401 (the service's credentials were refused)                           -> FAILED_PRECONDITION
//   403 (RBAC forbids the service)                                         -> PERMISSION_DENIED
//   404                                                                    -> NOT_FOUND
//   409 AlreadyExists / other conflicts                                    -> ALREADY_EXISTS /
//   ABORTED 410 (a list or watch position expired)                                 -> ABORTED
//   anything else (501, an unreadable answer)                              -> INTERNAL

#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace kje::executor {

// `what` says what was being done ("reading SparkApplication ns/x"); `rpc_deadline` is the
// caller's. The reason the API server gave is kept in the message.
absl::Status FromKubernetes(const absl::Status& status, std::string_view what,
                            absl::Time rpc_deadline, absl::Time now);

}  // namespace kje::executor
