#pragma once

// The job file of `k8s-job-executor submit -f job.yaml`: a YAML rendering of SubmitRequest
// (cli/README.md documents it). Keys are the protobuf JSON names (camelCase); the proto's own
// snake_case names are accepted too. Scalars are read as text, so `arguments: [100]` and
// `spark.executor.instances: 2` mean "100" and "2".
//
//   jobId: "1001"
//   metalake: lake
//   template:
//     name: spark-pi
//     comment: SparkPi
//     executable: local:///opt/spark/examples/jars/spark-examples.jar
//     arguments: ["100"]
//     customFields: {team: data}
//     spark:                       # or `shell: {scripts: [...]}`; neither means spark
//       className: org.apache.spark.examples.SparkPi
//       jars: [], files: [], archives: []
//       configs: {spark.executor.instances: "2"}

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "jobexecutor/v1/job_executor.pb.h"

namespace kje::cli {

// Whether a job file must name every required key itself, or may leave some to flags that are
// applied over it (which then call ValidateSubmitRequest on the result).
enum class JobFileChecks { kComplete, kShapeOnly };

// Parses job-file text. `origin` (the file name) prefixes every error, which names the key's
// path and the rule, e.g. `job.yaml: template.spark.jars: must be a list of strings`.
// Rejects unknown keys, wrong shapes, both `spark` and `shell`, and (kComplete) a missing or
// blank jobId, metalake, template.name or template.executable (the server requires each).
absl::StatusOr<jobexecutor::v1::SubmitRequest> ParseJobFile(
    const std::string& text, std::string_view origin,
    JobFileChecks checks = JobFileChecks::kComplete);

// Reads and parses the file at `path` ("-" reads standard input).
absl::StatusOr<jobexecutor::v1::SubmitRequest> LoadJobFile(
    const std::string& path, JobFileChecks checks = JobFileChecks::kComplete);

// The checks ParseJobFile applies after parsing, also applied to requests built from flags.
absl::Status ValidateSubmitRequest(const jobexecutor::v1::SubmitRequest& request);

}  // namespace kje::cli
