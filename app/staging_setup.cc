#include "app/staging_setup.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "staging/s3_store.h"
#include "staging/volume_store.h"

namespace kje::app {

namespace {

staging::StagerOptions StagerOptionsFrom(const server::StagingConfig& c) {
  staging::StagerOptions o;
  o.limits.max_file_bytes = c.max_file_bytes;
  o.limits.max_upload_bytes = c.max_upload_bytes;
  o.limits.max_files = c.max_files_per_upload;
  o.max_concurrent_uploads = c.max_concurrent_uploads;
  o.threads = c.threads;
  return o;
}

// A credential from its file, else from the environment variable; never logged or quoted.
absl::StatusOr<std::string> Credential(const std::string& file, const char* env, const char* key) {
  if (!file.empty()) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    std::string value(absl::StripAsciiWhitespace(text.str()));
    if (!in || value.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(key, ": the file ", file, " is unreadable or empty"));
    }
    return value;
  }
  const char* value = std::getenv(env);
  if (value == nullptr || *value == '\0') {
    return absl::InvalidArgumentError(
        absl::StrCat(key, " is unset and so is the environment variable ", env,
                     ": staging.store s3 needs the store's credentials"));
  }
  return std::string(value);
}

}  // namespace

absl::StatusOr<std::unique_ptr<staging::Stager>> NewStager(const server::Config& config,
                                                           const Clock& clock) {
  const server::StagingConfig& c = config.staging;
  std::unique_ptr<staging::ArtifactStore> store;
  if (c.store == "volume") {
    store = std::make_unique<staging::VolumeStore>(
        staging::VolumeStoreOptions{c.volume_path, c.volume_claim_name, c.volume_mount_path});
  } else if (c.store == "s3") {
    staging::S3StoreOptions o;
    o.endpoint = std::string(absl::StripSuffix(c.s3_endpoint, "/"));
    o.bucket = c.s3_bucket;
    o.prefix = c.s3_prefix;
    if (!o.prefix.empty() && !absl::EndsWith(o.prefix, "/")) o.prefix += "/";
    o.scope.region = c.s3_region;
    auto id = Credential(c.s3_access_key_file, "AWS_ACCESS_KEY_ID", "staging.s3.accessKeyFile");
    if (!id.ok()) return id.status();
    auto secret =
        Credential(c.s3_secret_key_file, "AWS_SECRET_ACCESS_KEY", "staging.s3.secretKeyFile");
    if (!secret.ok()) return secret.status();
    o.credentials = {*std::move(id), *std::move(secret)};
    o.presigned = c.url_mode == "presigned";
    o.credentials_secret = c.s3_credentials_secret;
    o.presign_expiry_seconds = c.presign_expiry_seconds;
    o.part_bytes = c.multipart_part_bytes;
    store = std::make_unique<staging::S3Store>(std::move(o));
  } else {
    return std::unique_ptr<staging::Stager>();
  }
  return std::make_unique<staging::Stager>(std::move(store), StagerOptionsFrom(c), clock);
}

}  // namespace kje::app
