#pragma once

// Shell completion for the CLI (`k8s-job-executor completion bash|zsh`), made from the same
// command and flag tables the parser uses, so it can't fall behind them.

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/flags.h"

namespace kje::cli {

// A command as completion sees it: "status", or "schedule create" for a verb of `schedule`, and
// every flag it takes (the common ones included).
struct CompletionCommand {
  std::string name;
  std::vector<FlagSpec> flags;
};

// The script for `shell` ("bash" or "zsh"; zsh runs the bash function through bashcompinit).
// INVALID_ARGUMENT for another shell. Commands, verbs and flags complete from the tables; values
// of -o and --context from what they may be (the contexts from `contexts`), files after a flag
// whose value is a FILE, and nothing is asked of the server.
absl::StatusOr<std::string> CompletionScript(std::string_view shell,
                                             const std::vector<CompletionCommand>& commands);

}  // namespace kje::cli
