#pragma once

// The staging store on S3-compatible object storage (AWS S3, GCS's XML API, MinIO, Ceph RGW):
// path-style requests signed with SigV4 (sigv4.h) through libcurl, multipart upload for files
// larger than one part. A job reads its files either through presigned https:// URLs (no
// credentials or hadoop-aws in the image; valid for presign_expiry) or as s3a:// URIs with the
// credentials of a Secret its pods read through Spark's secretKeyRef conf (the Secret's name and
// keys are in the application, never its values). Blocking: the staging threads' only.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "staging/sigv4.h"
#include "staging/store.h"

namespace kje::staging {

struct S3StoreOptions {
  std::string endpoint;  // http(s)://host[:port], no trailing slash
  std::string bucket;
  std::string prefix;  // "" or ending in '/'
  SigningScope scope;
  AwsCredentials credentials;
  bool presigned = true;           // else s3a://
  std::string credentials_secret;  // s3a: the Secret with AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY
  int64_t presign_expiry_seconds = 604800;
  int64_t part_bytes = 16 << 20;
  // S3 answers 500 InternalError and 503 SlowDown for a request to be sent again; each request is
  // made up to max_attempts times, waiting retry_delay, then twice that, never past its deadline.
  int max_attempts = 3;
  absl::Duration retry_delay = absl::Milliseconds(100);
};

class S3Store final : public ArtifactStore {
 public:
  explicit S3Store(S3StoreOptions options);

  std::string_view Kind() const override { return "s3"; }
  absl::StatusOr<bool> Exists(const spark::StagedKey& key, absl::Time deadline) override;
  absl::StatusOr<bool> Refresh(const spark::StagedKey& key, absl::Time deadline) override;
  absl::StatusOr<std::unique_ptr<ArtifactWriter>> StartWrite(const spark::StagedKey& key,
                                                             int64_t size,
                                                             absl::Time deadline) override;
  absl::StatusOr<std::string> ClusterUri(const spark::StagedKey& key, absl::Time now) override;
  std::vector<std::pair<std::string, std::string>> JobConf() const override;
  absl::StatusOr<std::vector<StoredObject>> List(absl::Time deadline) override;
  absl::Status Delete(std::string_view path, absl::Time deadline) override;

  struct Response {
    long status = 0;
    std::string body;
    std::string etag;
  };
  // One signed request: `path` is the object path inside the prefix ("" for the bucket itself);
  // `extra_headers` are sent and signed too. Sent again, signed anew, while S3 asks for that.
  absl::StatusOr<Response> Send(
      std::string_view method, std::string_view object_path,
      const std::vector<std::pair<std::string, std::string>>& query, std::string_view body,
      absl::Time deadline,
      const std::vector<std::pair<std::string, std::string>>& extra_headers = {});

 private:
  std::string KeyOf(std::string_view object_path) const;
  absl::StatusOr<Response> SendOnce(
      std::string_view method, std::string_view object_path,
      const std::vector<std::pair<std::string, std::string>>& query, std::string_view body,
      absl::Time deadline, const std::vector<std::pair<std::string, std::string>>& extra_headers);
  const S3StoreOptions options_;
  std::string host_;  // host[:port] of the endpoint
};

}  // namespace kje::staging
