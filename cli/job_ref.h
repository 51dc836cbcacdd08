#pragma once

// How a user names a job on the command line: by its execution id
// (`<cluster>/sparkapp/<namespace>/<name>`, used as it is), or, as kubectl names objects, by its
// job id or its application's name within a namespace (`-n`, else the server's), which the CLI
// looks up with ListJobs before it calls the command's RPC.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/command.h"

namespace kje::cli {

// The lookup's outcome for one argument.
struct JobRef {
  // What to send: the execution id found, or the argument itself when nothing matched (the
  // server then answers for it, NOT_FOUND for a name it doesn't know).
  std::string execution_id;
  // When nothing matched: a line saying where the CLI looked, with "did you mean" when a job id
  // or a name is close; printed after a NOT_FOUND.
  std::string hint;
};

// Whether `arg` is an execution id rather than a job id or a name.
bool IsExecutionId(const std::string& arg);

// Looks `arg` up among the jobs of `namespace_` ("" for the server's): a job whose job id is
// `arg`, else one whose application is named `arg`. FAILED_PRECONDITION when the job id names
// several jobs (the runs of a schedule share theirs), listing some of their execution ids. A
// failed ListJobs leaves the argument as it is: the command's own call reports the server.
absl::StatusOr<JobRef> ResolveJobRef(Context& c, const std::string& arg,
                                     const std::string& namespace_);

}  // namespace kje::cli
