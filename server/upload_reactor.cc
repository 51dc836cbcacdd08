#include "server/upload_reactor.h"

#include <boost/asio/post.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/job_executor_service.h"

namespace kje::server {

namespace pb = jobexecutor::v1;

UploadReactor::UploadReactor(grpc::CallbackServerContext* ctx, staging::Stager* stager,
                             pb::UploadArtifactsResponse* response)
    : RpcLifetime(ctx, "UploadArtifacts"), stager_(stager), response_(response) {}

void UploadReactor::Start(staging::Stager::Slot slot) {
  slot_ = std::move(slot);
  strand_.emplace(stager_->NewStrand());
  session_.emplace(stager_->store(), stager_->options().limits, stager_->Deadline(Deadline()));
  HandOff();
  StartRead(&request_);
}

void UploadReactor::OnReadDone(bool ok) {
  Reaction reaction(this);
  if (!ok) {
    // The caller half-closed (it sent everything), or the call was cancelled.
    boost::asio::post(*strand_, [this] { FinishUpload(); });
    return;
  }
  // Moved out of the message, so the strand owns its bytes and request_ is free for the next
  // read (which starts only after this step).
  const bool is_header = request_.has_header();
  std::string name, sha256, data;
  int64_t size = 0;
  if (is_header) {
    name = std::move(*request_.mutable_header()->mutable_name());
    sha256 = std::move(*request_.mutable_header()->mutable_sha256());
    size = request_.header().size();
  } else if (request_.part_case() == pb::UploadArtifactsRequest::kData) {
    data.swap(*request_.mutable_data());
  }
  const bool empty = !is_header && request_.part_case() != pb::UploadArtifactsRequest::kData;
  request_.Clear();
  if (empty) {
    boost::asio::post(*strand_, [this] {
      End(absl::InvalidArgumentError("a message with neither a header nor data"));
    });
    return;
  }
  boost::asio::post(*strand_, [this, is_header, name = std::move(name), size,
                               sha256 = std::move(sha256), data = std::move(data)]() mutable {
    Step(is_header, std::move(name), size, std::move(sha256), std::move(data));
  });
}

void UploadReactor::Step(bool is_header, std::string name, int64_t size, std::string sha256,
                         std::string data) {
  if (cancelled_.load()) return End(absl::CancelledError("the upload was cancelled"));
  absl::Status step = is_header ? session_->OnHeader(std::move(name), size, std::move(sha256))
                                : session_->OnData(data);
  if (!step.ok()) return End(step);
  HandOff();
  StartRead(&request_);
}

void UploadReactor::FinishUpload() {
  if (cancelled_.load()) {
    return End(
        absl::CancelledError("the upload was cancelled (or its deadline passed) before "
                             "it ended; nothing of the unfinished file was kept"));
  }
  auto files = session_->Finish();
  if (!files.ok()) return End(files.status());
  int64_t stored = 0;
  for (staging::UploadedFile& f : *files) {
    pb::UploadedArtifact* a = response_->add_artifacts();
    a->set_name(f.key.name);
    a->set_sha256(f.key.sha256);
    a->set_size(f.size);
    a->set_reference(std::move(f.reference));
    a->set_already_stored(f.already_stored);
    if (!f.already_stored) ++stored;
  }
  Note("files", absl::StrCat(files->size()));
  Note("stored", absl::StrCat(stored));
  End(absl::OkStatus());
}

void UploadReactor::OnCancel() {
  Reaction reaction(this);
  cancelled_.store(true);
}

void UploadReactor::End(const absl::Status& status) {
  slot_ = staging::Stager::Slot();
  GiveBackPlace();
  if (session_.has_value()) Note("bytes", absl::StrCat(session_->received_bytes()));
  grpc::Status s = ToGrpcStatus(status);
  log::Event line = rpc().FinishLine(s);
  HandOff();
  Finish(std::move(s));
}

}  // namespace kje::server

namespace kje::server {

grpc::ServerReadReactor<jobexecutor::v1::UploadArtifactsRequest>*
JobExecutorService::UploadArtifacts(grpc::CallbackServerContext* ctx,
                                    jobexecutor::v1::UploadArtifactsResponse* response) {
  if (stager_ == nullptr) {
    auto* reactor = new UploadReactor(ctx, nullptr, response);
    reactor->Refuse(absl::FailedPreconditionError(
        "UploadArtifacts: this deployment stages no files (staging.store is none): name files "
        "by URIs the cluster reaches instead"));
    reactor->Attach(nullptr);
    return reactor;
  }
  auto* reactor = new UploadReactor(ctx, stager_, response);
  absl::Status admitted = AdmitStream(ctx, "UploadArtifacts", *reactor);
  absl::StatusOr<staging::Stager::Slot> slot =
      admitted.ok() ? stager_->StartUpload() : absl::StatusOr<staging::Stager::Slot>(admitted);
  if (!slot.ok()) {
    reactor->Refuse(slot.status());
  } else {
    reactor->Start(*std::move(slot));
  }
  reactor->Attach(nullptr);
  return reactor;
}

}  // namespace kje::server
