#pragma once

// Bearer-token authentication of callers on the gRPC port (server.tokenFile). The accepted token
// is the file's content, rotated as every secret file is (base/secret_file.h: re-read on a timer
// when it changes, the last token kept if it is emptied or removed). A token that doesn't match
// has the file looked at sooner, once per `recheck_on_mismatch`, so a caller that rotated first
// isn't refused for long. A check never waits for the file. Tokens never reach a log.

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "base/secret_file.h"

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
  TokenAuthenticator(std::unique_ptr<SecretFile> token, absl::Duration recheck_on_mismatch)
      : token_(std::move(token)), recheck_on_mismatch_(recheck_on_mismatch) {}
  bool Matches(std::string_view authorization) const;

  const std::unique_ptr<SecretFile> token_;
  const absl::Duration recheck_on_mismatch_;
};

}  // namespace kje::server
