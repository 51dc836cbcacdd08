#pragma once

// The client sub-commands of the k8s-job-executor binary: submit, status, cancel, logs, events,
// list, watch, health, and the verbs of schedule. cli/README.md documents them, the job file and
// the exit codes (cli/exit_codes.h).

#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/clock.h"

namespace kje::cli {

// What a command may touch besides the network, injected so tests capture output and control
// time.
struct Io {
  std::ostream& out;
  std::ostream& err;
  // The process environment: the variables cli/contexts.h names.
  std::map<std::string, std::string> env;
  // Measures the elapsed times `watch` prints; dates the run ids `schedule run` makes up.
  const Clock& clock = RealClock::Get();
  // Waits between the calls of `events -f`.
  std::function<void(absl::Duration)> sleep = [](absl::Duration d) { absl::SleepFor(d); };
};

// Whether `name` is one of the CLI's sub-commands.
bool IsCommand(std::string_view name);

// Runs a sub-command: args[0] is its name, the rest its flags and arguments. Returns the process
// exit code (cli/exit_codes.h).
int Run(const std::vector<std::string>& args, Io& io);

// The commands' summary, for the binary's top-level usage.
std::string CommandsHelp();

}  // namespace kje::cli
