#pragma once

// The CLI's exit codes: part of its interface, so scripts can branch on the outcome without
// parsing output. 0 always means "succeeded": for `status` and `watch` that the job succeeded,
// for the other commands that the request did.

#include <grpcpp/support/status.h>

#include <string>

#include "jobexecutor/v1/job_executor.pb.h"

namespace kje::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,           // any other error (INVALID_ARGUMENT, ALREADY_EXISTS, INTERNAL, ...)
  kExitUsage = 2,           // bad command line or job file; nothing was sent
  kExitJobFailed = 3,       // status/watch: the job FAILED
  kExitJobCancelled = 4,    // status/watch: the job was CANCELLED
  kExitJobNotFinished = 5,  // status: QUEUED, STARTED or CANCELLING
  kExitNotFound = 6,        // NOT_FOUND: no such job or schedule, or a malformed execution id
  kExitUnavailable = 7,     // UNAVAILABLE or DEADLINE_EXCEEDED: retry later
  kExitAuth = 8,            // UNAUTHENTICATED or PERMISSION_DENIED
};

// The exit code for an RPC that ended with `code` (kExitOk for OK).
int ExitCodeForRpc(grpc::StatusCode code);

// What a failed connection says about a TLS mismatch, which gRPC reports as UNAVAILABLE like an
// outage: what to do instead ("" when the failure is no TLS mismatch), and whether retrying can
// help (a handshake that failed on the certificate or the protocol never will).
struct TlsHint {
  std::string text;
  bool retry_helps = true;
};
TlsHint TlsHintFor(const grpc::Status& status);

// The exit code that reports a job's status: 0 only for SUCCEEDED.
int ExitCodeForJob(jobexecutor::v1::JobInfo::Status status);

// Whether the job has stopped for good (SUCCEEDED, FAILED, CANCELLED).
bool IsTerminal(jobexecutor::v1::JobInfo::Status status);

// The canonical name of a gRPC code, e.g. "NOT_FOUND".
const char* GrpcCodeName(grpc::StatusCode code);

// The exit-code table as `--help` prints it.
const char* ExitCodeHelp();

}  // namespace kje::cli
