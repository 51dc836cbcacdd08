#pragma once

// Bearer-token authentication of callers on the gRPC port (server.tokenFile). The accepted token
// is the file's content, re-read when the file changes, so a mounted Secret can be rotated without
// a restart; if the file is emptied or removed later, the last token stays in force (and a warning
// is logged once), as with the Kubernetes token file. Tokens never reach a log.
//
// The file is looked at on a timer, not per request: at most once per `recheck` (and, for a
// token that doesn't match, once per `recheck_on_mismatch`, so a caller that rotated first isn't
// refused for long). A check takes a shared lock for the comparison and never waits for a file.

#include <ctime>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/clock.h"

namespace kje::server {

class TokenAuthenticator {
 public:
  // INVALID_ARGUMENT when the file is missing or empty at start.
  static absl::StatusOr<std::unique_ptr<TokenAuthenticator>> FromFile(
      const std::string& path, const Clock& clock = RealClock::Get(),
      absl::Duration recheck = absl::Seconds(1),
      absl::Duration recheck_on_mismatch = absl::Milliseconds(100));

  // OK when `authorization` (the request's authorization metadata) is "Bearer <the token>";
  // UNAUTHENTICATED otherwise, without saying more than that.
  absl::Status Check(std::string_view authorization);

 private:
  TokenAuthenticator(std::string path, const Clock& clock, absl::Duration recheck,
                     absl::Duration recheck_on_mismatch)
      : path_(std::move(path)),
        clock_(clock),
        recheck_(recheck),
        recheck_on_mismatch_(recheck_on_mismatch) {}
  bool Matches(std::string_view authorization) const;
  // Looks at the file when the last look is older than `interval` and nobody else is looking.
  void MaybeRefresh(absl::Duration interval);
  // Re-reads the file if its modification time or size changed.
  void Refresh() ABSL_EXCLUSIVE_LOCKS_REQUIRED(file_mu_);

  const std::string path_;
  const Clock& clock_;
  const absl::Duration recheck_;
  const absl::Duration recheck_on_mismatch_;

  mutable absl::Mutex token_mu_;
  std::string token_ ABSL_GUARDED_BY(token_mu_);

  // Held only by the one request that looks at the file; the others don't wait for it.
  absl::Mutex file_mu_;
  absl::Time last_look_ ABSL_GUARDED_BY(file_mu_) = absl::InfinitePast();
  timespec mtime_ ABSL_GUARDED_BY(file_mu_) = {};
  off_t size_ ABSL_GUARDED_BY(file_mu_) = -1;
  bool warned_ ABSL_GUARDED_BY(file_mu_) = false;
  bool has_token_ ABSL_GUARDED_BY(file_mu_) = false;
};

}  // namespace kje::server
