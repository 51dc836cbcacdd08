#pragma once

// `k8s-job-executor serve`: argument parsing and the process lifecycle.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/config.h"

namespace kje::app {

struct ServeArgs {
  server::ConfigSources sources;
  bool help = false;
};

// Parses the arguments after "serve": --config FILE, --listen HOST:PORT, --set KEY=VALUE
// (repeatable), --log-level LEVEL, --log-format FORMAT, --help. Both "--flag value" and
// "--flag=value" are accepted.
absl::StatusOr<ServeArgs> ParseServeArgs(const std::vector<std::string>& args);

std::string ServeUsage();

// Runs the server until SIGTERM or SIGINT, then drains and returns the process exit code:
// 0 after a clean shutdown, 2 for a bad configuration, 1 when it can't start.
int RunServe(const ServeArgs& args);

}  // namespace kje::app
