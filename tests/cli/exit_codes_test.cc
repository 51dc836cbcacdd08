#include "cli/exit_codes.h"

#include <catch2/catch.hpp>
#include <set>

namespace kje::cli {
namespace {

using jobexecutor::v1::JobInfo;

TEST_CASE("RPC codes map to the documented exit codes") {
  CHECK(ExitCodeForRpc(grpc::StatusCode::OK) == 0);
  CHECK(ExitCodeForRpc(grpc::StatusCode::NOT_FOUND) == 6);
  CHECK(ExitCodeForRpc(grpc::StatusCode::UNAVAILABLE) == 7);
  CHECK(ExitCodeForRpc(grpc::StatusCode::DEADLINE_EXCEEDED) == 7);
  CHECK(ExitCodeForRpc(grpc::StatusCode::UNAUTHENTICATED) == 8);
  CHECK(ExitCodeForRpc(grpc::StatusCode::PERMISSION_DENIED) == 8);
  for (auto code : {grpc::StatusCode::INVALID_ARGUMENT, grpc::StatusCode::ALREADY_EXISTS,
                    grpc::StatusCode::INTERNAL, grpc::StatusCode::UNIMPLEMENTED,
                    grpc::StatusCode::FAILED_PRECONDITION}) {
    CHECK(ExitCodeForRpc(code) == 1);
  }
}

TEST_CASE("job statuses map to exit codes, 0 only for SUCCEEDED") {
  CHECK(ExitCodeForJob(JobInfo::SUCCEEDED) == 0);
  CHECK(ExitCodeForJob(JobInfo::FAILED) == 3);
  CHECK(ExitCodeForJob(JobInfo::CANCELLED) == 4);
  CHECK(ExitCodeForJob(JobInfo::QUEUED) == 5);
  CHECK(ExitCodeForJob(JobInfo::STARTED) == 5);
  CHECK(ExitCodeForJob(JobInfo::CANCELLING) == 5);
  CHECK(ExitCodeForJob(JobInfo::STATUS_UNSPECIFIED) == 1);
  CHECK(IsTerminal(JobInfo::CANCELLED));
  CHECK_FALSE(IsTerminal(JobInfo::CANCELLING));
}

TEST_CASE("every exit code is distinct and documented in the help") {
  std::set<int> codes = {kExitOk,        kExitError,        kExitUsage,
                         kExitJobFailed, kExitJobCancelled, kExitJobNotFinished,
                         kExitNotFound,  kExitUnavailable,  kExitAuth};
  CHECK(codes.size() == 9);
  std::string help = ExitCodeHelp();
  for (int code : codes) {
    CHECK(help.find("  " + std::to_string(code) + "  ") != std::string::npos);
  }
  CHECK(std::string(GrpcCodeName(grpc::StatusCode::UNAUTHENTICATED)) == "UNAUTHENTICATED");
}

TEST_CASE("a TLS mismatch says what to do instead, and whether a retry can help") {
  using grpc::Status;
  using grpc::StatusCode;
  // The words gRPC 1.51 with OpenSSL 3 uses, as this CLI gets them.
  const TlsHint plaintext_to_tls = TlsHintFor(Status(
      StatusCode::UNAVAILABLE,
      "failed to connect to all addresses; last error: UNAVAILABLE: ipv4:127.0.0.1:50777: Socket "
      "closed"));
  CHECK(plaintext_to_tls.text.find("--tls-ca") != std::string::npos);
  CHECK(plaintext_to_tls.retry_helps);  // also what a server going away mid-handshake looks like
  const TlsHint tls_to_plaintext = TlsHintFor(
      Status(StatusCode::UNAVAILABLE,
             "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:50778: Ssl "
             "handshake failed: SSL_ERROR_SSL: error:0A00010B:SSL routines::wrong version number"));
  CHECK(tls_to_plaintext.text.find("doesn't serve TLS") != std::string::npos);
  CHECK_FALSE(tls_to_plaintext.retry_helps);
  const TlsHint wrong_ca = TlsHintFor(Status(
      StatusCode::UNAVAILABLE,
      "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:50777: Ssl "
      "handshake failed: SSL_ERROR_SSL: error:0A000086:SSL routines::certificate verify failed"));
  CHECK(wrong_ca.text.find("--tls-server-name") != std::string::npos);
  CHECK_FALSE(wrong_ca.retry_helps);
  const TlsHint wrong_name = TlsHintFor(Status(
      StatusCode::UNAVAILABLE,
      "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:38711: Peer name "
      "not-in-the-certificate is not in peer certificate"));
  CHECK(wrong_name.text.find("--tls-server-name") != std::string::npos);
  CHECK_FALSE(wrong_name.retry_helps);
  // An outage is only an outage.
  CHECK(TlsHintFor(Status(StatusCode::UNAVAILABLE,
                          "failed to connect to all addresses; last error: UNAVAILABLE: "
                          "ipv4:127.0.0.1:1: Connection refused"))
            .text.empty());
  CHECK(TlsHintFor(Status(StatusCode::NOT_FOUND, "Socket closed")).text.empty());
}

}  // namespace
}  // namespace kje::cli
