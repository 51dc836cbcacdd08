#include "cli/exit_codes.h"

#include "base/grpc_codes.h"

namespace kje::cli {

using jobexecutor::v1::JobInfo;

int ExitCodeForRpc(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return kExitOk;
    case grpc::StatusCode::NOT_FOUND:
      return kExitNotFound;
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return kExitUnavailable;
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
      return kExitAuth;
    default:
      return kExitError;
  }
}

TlsHint TlsHintFor(const grpc::Status& status) {
  if (status.error_code() != grpc::StatusCode::UNAVAILABLE) return {};
  const std::string& message = status.error_message();
  auto has = [&](const char* text) { return message.find(text) != std::string::npos; };
  if (has("Ssl handshake failed") && has("wrong version number")) {
    return {
        "the server at this address doesn't serve TLS: leave out --tls, --tls-ca and --tls-cert",
        false};
  }
  if (has("Ssl handshake failed") && has("certificate verify failed")) {
    return {
        "the server's certificate isn't signed by the CA given with --tls-ca (or, without it, "
        "by one the system trusts), or doesn't name the address's host (--tls-server-name)",
        false};
  }
  if (has("is not in peer certificate")) {
    return {
        "the server's certificate doesn't name the host this CLI checks: give the name it "
        "carries with --tls-server-name, or connect by that name",
        false};
  }
  // A plaintext connection a TLS server closes at once; a server that is down refuses it instead.
  if (has("failed to connect to all addresses") && has("Socket closed")) {
    return {
        "the server closed the connection at once: if it serves TLS, give --tls-ca FILE (or "
        "--tls for a certificate the system trusts)",
        true};
  }
  return {};
}

int ExitCodeForJob(JobInfo::Status status) {
  switch (status) {
    case JobInfo::SUCCEEDED:
      return kExitOk;
    case JobInfo::FAILED:
      return kExitJobFailed;
    case JobInfo::CANCELLED:
      return kExitJobCancelled;
    case JobInfo::QUEUED:
    case JobInfo::STARTED:
    case JobInfo::CANCELLING:
      return kExitJobNotFinished;
    default:
      // A status this build doesn't know: it is not a success a script may rely on.
      return kExitError;
  }
}

bool IsTerminal(JobInfo::Status status) {
  return status == JobInfo::SUCCEEDED || status == JobInfo::FAILED || status == JobInfo::CANCELLED;
}

const char* GrpcCodeName(grpc::StatusCode code) {
  return GrpcCodeNameOf(static_cast<int>(code)).data();
}

const char* ExitCodeHelp() {
  return "exit codes:\n"
         "  0  OK; for status and watch: the job SUCCEEDED\n"
         "  1  other error (e.g. INVALID_ARGUMENT, ALREADY_EXISTS, INTERNAL, a failed TLS "
         "handshake)\n"
         "  2  usage error: bad flags or job file; nothing was sent\n"
         "  3  the job FAILED (status, watch)\n"
         "  4  the job was CANCELLED (status, watch)\n"
         "  5  the job has not finished: QUEUED, STARTED or CANCELLING (status)\n"
         "  6  NOT_FOUND: no such job or schedule, or a malformed execution id\n"
         "  7  UNAVAILABLE or DEADLINE_EXCEEDED: the server or Kubernetes can't be reached; retry\n"
         "  8  UNAUTHENTICATED or PERMISSION_DENIED: check --token-file and the TLS flags\n";
}

}  // namespace kje::cli
