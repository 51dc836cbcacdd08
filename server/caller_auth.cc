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
    const std::string& path) {
  std::unique_ptr<TokenAuthenticator> auth(new TokenAuthenticator(path));
  absl::MutexLock lock(&auth->mu_);
  auth->Refresh();
  if (auth->token_.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("server.tokenFile: missing or empty token file: ", path));
  }
  return auth;
}

void TokenAuthenticator::Refresh() {
  struct stat st;
  if (::stat(path_.c_str(), &st) != 0) {
    if (!token_.empty() && !warned_) {
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
    if (!token_.empty() && !warned_) {
      warned_ = true;
      log::Warn("caller token file is empty; keeping the last token").Kv("file", path_);
    }
    return;  // stat again next time: the file may be half written
  }
  mtime_ = st.st_mtim;
  size_ = st.st_size;
  if (token != token_) {
    if (!token_.empty()) log::Info("caller token reloaded").Kv("file", path_);
    token_ = std::move(token);
    warned_ = false;
  }
}

absl::Status TokenAuthenticator::Check(std::string_view authorization) {
  absl::MutexLock lock(&mu_);
  Refresh();
  bool ok = authorization.size() == kBearer.size() + token_.size() &&
            authorization.substr(0, kBearer.size()) == kBearer &&
            CRYPTO_memcmp(authorization.data() + kBearer.size(), token_.data(), token_.size()) == 0;
  if (!ok) return absl::UnauthenticatedError("missing or invalid bearer token");
  return absl::OkStatus();
}

}  // namespace kje::server
