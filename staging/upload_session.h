#pragma once

// One UploadArtifacts call's rules, without gRPC: a header (name, size, SHA-256), then data parts
// adding up to its size, then the next header. Each file is hashed as it arrives and written to
// the store unless the store holds that content under that name already (then the bytes are
// still checked, and dropped). Bounds by configuration: bytes per file, bytes per call, files per
// call. Every error is final for the call, and what was written of a refused file is dropped.
// Blocking (the store's calls): run on the staging threads, one step at a time.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "staging/sha256.h"
#include "staging/store.h"

namespace kje::staging {

struct UploadLimits {
  int64_t max_file_bytes = int64_t{1} << 30;    // staging.maxFileBytes
  int64_t max_upload_bytes = int64_t{4} << 30;  // staging.maxUploadBytes: one call's files
  int64_t max_files = 100;                      // staging.maxFilesPerUpload
};

struct UploadedFile {
  spark::StagedKey key;
  int64_t size = 0;
  std::string reference;
  bool already_stored = false;
};

// The file an upload is receiving. Outside the session: a nested type with member initializers
// isn't default-constructible to clang until the session is complete.
struct UploadInProgress {
  UploadedFile file;
  int64_t received = 0;
  Sha256 hash;
  std::unique_ptr<ArtifactWriter> writer;  // null when already stored
};

class UploadSession {
 public:
  UploadSession(ArtifactStore& store, UploadLimits limits, absl::Time deadline);

  absl::Status OnHeader(std::string name, int64_t size, std::string sha256);
  absl::Status OnData(std::string_view bytes);
  // The caller has sent everything: the files, in order; an error for a file cut short.
  absl::StatusOr<std::vector<UploadedFile>> Finish();

  // Bytes the call has sent so far (every file's data).
  int64_t received_bytes() const { return received_total_; }

 private:
  absl::Status CompleteCurrent();
  absl::Status Fail(absl::Status status);

  ArtifactStore& store_;
  const UploadLimits limits_;
  const absl::Time deadline_;
  std::optional<UploadInProgress> current_;
  std::vector<UploadedFile> done_;
  int64_t declared_total_ = 0;
  int64_t received_total_ = 0;
  bool failed_ = false;
};

}  // namespace kje::staging
