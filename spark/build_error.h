#pragma once

// Which input a builder refused, carried on its status, so that the edge picks the caller's code
// and field from a type rather than from the message's words: the template (the caller's to fix),
// the job or schedule id (a field of the request), the run id of a manual run, or the executor's
// own configuration (not the caller's to fix).

#include <cstdint>

#include "absl/status/status.h"

namespace kje::spark {

enum class BuildInput : uint8_t { kTemplate, kJobId, kRunId, kServerConfig };

// `status` tagged with the input it refuses; OK stays OK.
absl::Status TagBuildError(BuildInput input, absl::Status status);
// The input a builder's error refused; kTemplate for an untagged one.
BuildInput BuildInputOf(const absl::Status& status);

}  // namespace kje::spark
