#pragma once

// The UploadArtifacts reactor: a client stream read one message at a time, each message's work
// (hashing, the store's write) done on the upload's strand of the staging threads, and only then
// the next read started. So an upload holds one message in memory, a slow store slows only its
// own caller, and neither gRPC's threads nor the io threads ever wait on a disk or the network.
// Internal to server/.

#include <atomic>
#include <optional>
#include <string>

#include "jobexecutor/v1/job_executor.grpc.pb.h"
#include "server/reactors.h"
#include "staging/stager.h"

namespace kje::server {

class UploadReactor final : public grpc::ServerReadReactor<jobexecutor::v1::UploadArtifactsRequest>,
                            public RpcLifetime {
 public:
  // `stager` null: the call can only be refused.
  UploadReactor(grpc::CallbackServerContext* ctx, staging::Stager* stager,
                jobexecutor::v1::UploadArtifactsResponse* response);

  // Takes the call's place among the uploads and starts reading; the call ends at once with
  // the refusal when there is none.
  void Start(staging::Stager::Slot slot);
  // Ends the call with `status` before any read (a refusal of the handler's).
  void Refuse(const absl::Status& status) { End(status); }

  void OnReadDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override { Done(); }

 private:
  void Step(bool is_header, std::string name, int64_t size, std::string sha256, std::string data);
  void FinishUpload();
  void End(const absl::Status& status);

  staging::Stager* stager_;
  std::optional<staging::Stager::Strand> strand_;  // set by Start
  jobexecutor::v1::UploadArtifactsResponse* response_;
  jobexecutor::v1::UploadArtifactsRequest request_;  // the one read in flight
  std::optional<staging::UploadSession> session_;    // set by Start; the strand's only
  staging::Stager::Slot slot_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace kje::server
