#include "server/caller_auth.h"

#include <openssl/crypto.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"

namespace kje::server {
namespace {

constexpr std::string_view kBearer = "Bearer ";

std::string ReadTrimmed(const std::string& path, bool* ok) {
  std::ifstream f(path);
  *ok = static_cast<bool>(f);
  if (!f) return "";
  std::stringstream buf;
  buf << f.rdbuf();
  return std::string(absl::StripAsciiWhitespace(buf.str()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<TokenAuthenticator>> TokenAuthenticator::FromFile(
    const std::string& path, const Clock& clock, absl::Duration recheck,
    absl::Duration recheck_on_mismatch) {
  std::unique_ptr<TokenAuthenticator> auth(
      new TokenAuthenticator(path, clock, recheck, recheck_on_mismatch));
  absl::MutexLock lock(&auth->file_mu_);
  auth->last_look_ = clock.Now();
  auth->Refresh();
  if (!auth->has_token_) {
    return absl::InvalidArgumentError(
        absl::StrCat("server.tokenFile: missing or empty token file: ", path));
  }
  return auth;
}

void TokenAuthenticator::Refresh() {
  struct stat st;
  if (::stat(path_.c_str(), &st) != 0) {
    if (has_token_ && !warned_) {
      warned_ = true;
      log::Warn("caller token file is gone; keeping the last token").Kv("file", path_);
    }
    size_ = -1;
    return;
  }
  if (st.st_mtim.tv_sec == mtime_.tv_sec && st.st_mtim.tv_nsec == mtime_.tv_nsec &&
      st.st_size == size_) {
    return;
  }
  bool ok = false;
  std::string token = ReadTrimmed(path_, &ok);
  if (!ok || token.empty()) {
    if (has_token_ && !warned_) {
      warned_ = true;
      log::Warn("caller token file is empty; keeping the last token").Kv("file", path_);
    }
    return;  // look again next time: the file may be half written
  }
  mtime_ = st.st_mtim;
  size_ = st.st_size;
  bool reloaded = false;
  {
    absl::MutexLock lock(&token_mu_);
    if (token != token_) {
      reloaded = has_token_;
      token_ = std::move(token);
      warned_ = false;
    }
  }
  has_token_ = true;
  if (reloaded) log::Info("caller token reloaded").Kv("file", path_);
}

void TokenAuthenticator::MaybeRefresh(absl::Duration interval) {
  if (!file_mu_.TryLock()) return;  // someone else is looking right now
  absl::Time now = clock_.Now();
  if (now - last_look_ >= interval) {
    last_look_ = now;
    Refresh();
  }
  file_mu_.Unlock();
}

bool TokenAuthenticator::Matches(std::string_view authorization) const {
  absl::ReaderMutexLock lock(&token_mu_);
  return authorization.size() == kBearer.size() + token_.size() &&
         authorization.substr(0, kBearer.size()) == kBearer &&
         CRYPTO_memcmp(authorization.data() + kBearer.size(), token_.data(), token_.size()) == 0;
}

absl::Status TokenAuthenticator::Check(std::string_view authorization) {
  MaybeRefresh(recheck_);
  if (Matches(authorization)) return absl::OkStatus();
  // The caller may have the rotated token before we looked: look again (rate-limited, so wrong
  // tokens can't make every request touch the file).
  MaybeRefresh(recheck_on_mismatch_);
  if (Matches(authorization)) return absl::OkStatus();
  return absl::UnauthenticatedError("missing or invalid bearer token");
}

}  // namespace kje::server
