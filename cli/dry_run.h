#pragma once

// `submit --dry-run`: the SparkApplication the server would create, printed as kubectl's
// `create --dry-run=server -o yaml` prints an object; nothing is created.

#include "cli/command.h"
#include "jobexecutor/v1/job_executor.pb.h"

namespace kje::cli {

// Sends `request` as a dry run and prints the application: YAML, or with -o json its JSON.
// A job whose template names local files is refused (a dry run uploads nothing).
int SubmitDryRun(Context& c, jobexecutor::v1::SubmitRequest request);

}  // namespace kje::cli
