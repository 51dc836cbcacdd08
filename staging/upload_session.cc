#include "staging/upload_session.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/quote.h"

namespace kje::staging {

UploadSession::UploadSession(ArtifactStore& store, UploadLimits limits, absl::Time deadline)
    : store_(store), limits_(limits), deadline_(deadline) {}

absl::Status UploadSession::Fail(absl::Status status) {
  failed_ = true;
  current_.reset();  // drops what was written of the file
  return status;
}

absl::Status UploadSession::OnHeader(std::string name, int64_t size, std::string sha256) {
  if (failed_) return absl::FailedPreconditionError("the upload already failed");
  if (current_.has_value()) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "file ", QuoteBounded(current_->file.key.name), " is short: ", current_->received,
        " of its ", current_->file.size, " bytes came before the next header")));
  }
  if (absl::Status named = spark::CheckStagedName(name); !named.ok()) return Fail(named);
  if (!spark::IsSha256Hex(sha256)) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("file ", QuoteBounded(name), ": sha256 must be 64 lower-case hex digits, got ",
                     QuoteBounded(sha256))));
  }
  if (size < 0) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("file ", QuoteBounded(name), ": size must not be negative, got ", size)));
  }
  if (size > limits_.max_file_bytes) {
    return Fail(absl::ResourceExhaustedError(
        absl::StrCat("file ", QuoteBounded(name), " has ", size, " bytes, more than the ",
                     limits_.max_file_bytes, " a file may have (staging.maxFileBytes)")));
  }
  if (static_cast<int64_t>(done_.size()) >= limits_.max_files) {
    return Fail(absl::ResourceExhaustedError(
        absl::StrCat("one upload takes at most ", limits_.max_files,
                     " files (staging.maxFilesPerUpload): upload the rest in another call")));
  }
  if (declared_total_ + size > limits_.max_upload_bytes) {
    return Fail(absl::ResourceExhaustedError(
        absl::StrCat("file ", QuoteBounded(name), " would bring the upload to ",
                     declared_total_ + size, " bytes, more than the ", limits_.max_upload_bytes,
                     " one upload may carry (staging.maxUploadBytes): upload it in another call")));
  }
  declared_total_ += size;
  UploadInProgress& current = current_.emplace();
  current.file.key = spark::StagedKey{std::move(sha256), std::move(name)};
  current.file.size = size;
  current.file.reference = current.file.key.Reference();
  // Found, it counts as uploaded now, for the sweep's grace period.
  auto exists = store_.Refresh(current.file.key, deadline_);
  if (!exists.ok()) return Fail(exists.status());
  current.file.already_stored = *exists;
  if (!*exists) {
    auto writer = store_.StartWrite(current.file.key, size, deadline_);
    if (!writer.ok()) return Fail(writer.status());
    current.writer = *std::move(writer);
  }
  if (size == 0) return CompleteCurrent();
  return absl::OkStatus();
}

absl::Status UploadSession::OnData(std::string_view bytes) {
  if (failed_) return absl::FailedPreconditionError("the upload already failed");
  if (!current_.has_value()) {
    return Fail(absl::InvalidArgumentError(
        "data came before a header: each file starts with its header (name, size, sha256)"));
  }
  UploadInProgress& current = *current_;
  const int64_t n = static_cast<int64_t>(bytes.size());
  if (n > current.file.size - current.received) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("file ", QuoteBounded(current.file.key.name), " is longer than its header's ",
                     current.file.size, " bytes")));
  }
  current.hash.Update(bytes);
  if (current.writer != nullptr) {
    if (absl::Status wrote = current.writer->Append(bytes); !wrote.ok()) return Fail(wrote);
  }
  current.received += n;
  received_total_ += n;
  if (current.received == current.file.size) return CompleteCurrent();
  return absl::OkStatus();
}

absl::Status UploadSession::CompleteCurrent() {
  UploadInProgress& current = *current_;
  std::string got = current.hash.HexDigest();
  if (got != current.file.key.sha256) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "file ", QuoteBounded(current.file.key.name), ": checksum mismatch: its bytes hash to ",
        got, ", not the header's ", current.file.key.sha256, "; nothing was stored")));
  }
  if (current.writer != nullptr) {
    if (absl::Status committed = current.writer->Commit(); !committed.ok()) return Fail(committed);
  }
  done_.push_back(std::move(current.file));
  current_.reset();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<UploadedFile>> UploadSession::Finish() {
  if (failed_) return absl::FailedPreconditionError("the upload already failed");
  if (current_.has_value()) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "file ", QuoteBounded(current_->file.key.name), " is short: ", current_->received,
        " of its ", current_->file.size, " bytes came before the stream ended")));
  }
  if (done_.empty()) {
    return absl::InvalidArgumentError("the upload named no file: send a header, then its bytes");
  }
  return std::move(done_);
}

}  // namespace kje::staging
