#pragma once

// Bearer-token authentication of callers on the gRPC port (server.tokenFile). The accepted token
// is the file's content, re-read when the file changes, so a mounted Secret can be rotated without
// a restart; if the file is emptied or removed later, the last token stays in force (and a warning
// is logged once), as with the Kubernetes token file. Tokens never reach a log.

#include <ctime>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace kje::server {

class TokenAuthenticator {
 public:
  // INVALID_ARGUMENT when the file is missing or empty at start.
  static absl::StatusOr<std::unique_ptr<TokenAuthenticator>> FromFile(const std::string& path);

  // OK when `authorization` (the request's authorization metadata) is "Bearer <the token>";
  // UNAUTHENTICATED otherwise, without saying more than that.
  absl::Status Check(std::string_view authorization);

 private:
  explicit TokenAuthenticator(std::string path) : path_(std::move(path)) {}
  // Re-reads the file if its modification time or size changed.
  void Refresh() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  absl::Mutex mu_;
  std::string token_ ABSL_GUARDED_BY(mu_);
  timespec mtime_ ABSL_GUARDED_BY(mu_) = {};
  off_t size_ ABSL_GUARDED_BY(mu_) = -1;
  bool warned_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace kje::server
