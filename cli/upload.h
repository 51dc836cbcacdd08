#pragma once

// `submit -f`'s staging of local files: the template's executable, jars, files and archives
// that name a file on this machine (a plain path, or file://) are uploaded through
// UploadArtifacts in one call, each replaced by the reference the server answers, so the job
// runs with files that exist only here.

#include <grpcpp/client_context.h>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "jobexecutor/v1/job_executor.grpc.pb.h"

namespace kje::cli {

// Whether a template entry names a local file: no URI scheme, or file://.
bool IsLocalPath(const std::string& uri);
// The local file an entry names, relative paths taken from `base_dir` ("" for the working
// directory).
std::string LocalFileOf(const std::string& uri, const std::string& base_dir);

struct UploadPlan {
  struct File {
    std::string path;  // on this machine
    std::string name;  // its base name, as the job sees it
    int64_t size = 0;
    std::string sha256;
  };
  std::vector<File> files;  // distinct paths, in the template's order
};

// The template's local files (the paths that are files here), read once to hash them;
// INVALID_ARGUMENT naming a file that can't be read.
absl::StatusOr<UploadPlan> PlanUpload(const jobexecutor::v1::JobTemplate& t,
                                      const std::string& base_dir);

// Uploads the plan in one call and rewrites the template's local entries into the answered
// references. `progress` (may be null) gets one line at a time without a newline, for a
// terminal ("\r" first); `log` gets one line per file. The gRPC status on failure.
grpc::Status UploadAndRewrite(jobexecutor::v1::JobExecutor::Stub& stub, grpc::ClientContext* ctx,
                              const UploadPlan& plan, const std::string& base_dir,
                              jobexecutor::v1::JobTemplate* t, std::ostream* progress,
                              std::ostream& log);

}  // namespace kje::cli
