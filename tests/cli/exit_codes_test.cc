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

}  // namespace
}  // namespace kje::cli
