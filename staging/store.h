#pragma once

// A staging store: where uploaded files live until no application names them. Its calls block
// (a disk write, an HTTP request to an object store), so they run on the staging threads
// (stager.h), never on an io thread or in a gRPC reaction. A store keeps no state of its own
// beyond its objects: any replica sees what any other stored.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "spark/staged_reference.h"

namespace kje::staging {

// One file being written. Its bytes become visible under the key only at Commit, at once (a
// reader never sees half a file); a writer dropped without Commit leaves nothing behind.
class ArtifactWriter {
 public:
  virtual ~ArtifactWriter() = default;
  virtual absl::Status Append(std::string_view bytes) = 0;
  virtual absl::Status Commit() = 0;
};

struct StoredObject {
  std::string path;  // "sha256/<hex>/<name>"
  absl::Time modified;
};

class ArtifactStore {
 public:
  virtual ~ArtifactStore() = default;
  // "volume" or "s3", for logs and errors.
  virtual std::string_view Kind() const = 0;
  virtual absl::StatusOr<bool> Exists(const spark::StagedKey& key, absl::Time deadline) = 0;
  // Whether the object is stored; if it is, its modified time becomes now. The sweep's grace
  // period then runs from the last upload or look-up that found a file, not from its first
  // write, so a file stored long ago that no application names isn't removed between the call
  // that found it and the Submit that names it.
  virtual absl::StatusOr<bool> Refresh(const spark::StagedKey& key, absl::Time deadline) = 0;
  // A writer of `size` bytes for `key`.
  virtual absl::StatusOr<std::unique_ptr<ArtifactWriter>> StartWrite(const spark::StagedKey& key,
                                                                     int64_t size,
                                                                     absl::Time deadline) = 0;
  // The URI a driver reads the object at (`now` for a presigned URL's validity).
  virtual absl::StatusOr<std::string> ClusterUri(const spark::StagedKey& key, absl::Time now) = 0;
  // The Spark conf a job needs to read its staged files (a volume's mount; an s3a endpoint and
  // the credentials' Secret): no secret value, only names.
  virtual std::vector<std::pair<std::string, std::string>> JobConf() const = 0;
  // Every staged object.
  virtual absl::StatusOr<std::vector<StoredObject>> List(absl::Time deadline) = 0;
  // Deletes one; OK when it was gone already.
  virtual absl::Status Delete(std::string_view path, absl::Time deadline) = 0;
};

}  // namespace kje::staging
