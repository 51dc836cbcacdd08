#pragma once

// The canonical names of gRPC's 17 status codes ("OK", "NOT_FOUND", ...), as metrics labels, the
// CLI's messages and the load client print them. By number, so base/ needs no gRPC.

#include <iterator>
#include <string_view>

namespace kje {

inline constexpr std::string_view kGrpcCodeNames[] = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};

// "UNKNOWN" for a number outside the 17, so the set of names stays fixed. Null-terminated.
inline constexpr std::string_view GrpcCodeNameOf(int code) {
  return code >= 0 && code < static_cast<int>(std::size(kGrpcCodeNames)) ? kGrpcCodeNames[code]
                                                                         : kGrpcCodeNames[2];
}

}  // namespace kje
