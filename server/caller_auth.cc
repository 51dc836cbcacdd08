#include "server/caller_auth.h"

#include "absl/strings/str_cat.h"

namespace kje::server {
namespace {

constexpr std::string_view kBearer = "Bearer ";

}  // namespace

absl::StatusOr<std::unique_ptr<TokenAuthenticator>> TokenAuthenticator::FromFile(
    const std::string& path, const Clock& clock, absl::Duration recheck,
    absl::Duration recheck_on_mismatch) {
  absl::StatusOr<std::unique_ptr<SecretFile>> token =
      SecretFile::Open(path, "caller token file", clock, recheck);
  if (!token.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("server.tokenFile: missing or empty token file: ", path));
  }
  return std::unique_ptr<TokenAuthenticator>(
      new TokenAuthenticator(*std::move(token), recheck_on_mismatch));
}

bool TokenAuthenticator::Matches(std::string_view authorization) const {
  return authorization.substr(0, kBearer.size()) == kBearer &&
         token_->Equals(authorization.substr(kBearer.size()));
}

absl::Status TokenAuthenticator::Check(std::string_view authorization) {
  token_->MaybeReload();
  if (Matches(authorization)) return absl::OkStatus();
  // The caller may have the rotated token before we looked: look again (rate-limited, so wrong
  // tokens can't make every request touch the file).
  token_->MaybeReload(recheck_on_mismatch_);
  if (Matches(authorization)) return absl::OkStatus();
  return absl::UnauthenticatedError("missing or invalid bearer token");
}

}  // namespace kje::server
