#pragma once

// The staging store of the configuration (staging.*), or none.

#include <memory>

#include "absl/status/statusor.h"
#include "base/clock.h"
#include "server/config.h"
#include "staging/stager.h"

namespace kje::app {

// Null when staging.store is none. The S3 credentials are read here, from their files or the
// environment, and kept only by the store: no log line or error carries them.
absl::StatusOr<std::unique_ptr<staging::Stager>> NewStager(const server::Config& config,
                                                           const Clock& clock);

}  // namespace kje::app
