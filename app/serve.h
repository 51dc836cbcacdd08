#pragma once

// `k8s-job-executor serve`: argument parsing and the process lifecycle.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "k8s/connection_config.h"
#include "server/config.h"

namespace kje::app {

struct ServeArgs {
  server::ConfigSources sources;
  bool help = false;
  // --check-config: load and check everything that can be checked without the network (the
  // configuration, the Kubernetes connection's files and credentials, the callers' token file),
  // print what would run, and exit.
  bool check_config = false;
};

// What --check-config prints for a configuration that would start: one line per part, never a
// token or a secret; the refusal that would stop `serve` otherwise (INVALID_ARGUMENT for the
// configuration, FAILED_PRECONDITION for the connection).
absl::StatusOr<std::string> CheckConfiguration(const server::ConfigSources& sources,
                                               const k8s::Environment& env);

// Parses the arguments after "serve": --config FILE, --listen HOST:PORT, --set KEY=VALUE
// (repeatable), --log-level LEVEL, --log-format FORMAT, --check-config, --help. Both "--flag value"
// and
// "--flag=value" are accepted.
absl::StatusOr<ServeArgs> ParseServeArgs(const std::vector<std::string>& args);

std::string ServeUsage();

// Runs the server until SIGTERM or SIGINT, then drains and returns the process exit code:
// 0 after a clean shutdown, 2 for a bad configuration, 1 when it can't start.
int RunServe(const ServeArgs& args);

}  // namespace kje::app
