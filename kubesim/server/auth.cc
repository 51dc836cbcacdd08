#include "kubesim/server/auth.h"

#include <sys/stat.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace kubesim {

TokenFile::TokenFile(std::string path, std::string fixed_token)
    : path_(std::move(path)), token_(std::move(fixed_token)) {
  std::lock_guard<std::mutex> lock(mu_);
  RefreshLocked();
}

void TokenFile::RefreshLocked() {
  if (path_.empty()) return;
  struct stat st {};
  if (stat(path_.c_str(), &st) != 0) {
    // A missing file accepts no token, rather than an old one: rotation by delete + create must
    // not leave a window where a revoked token still works.
    token_.clear();
    mtime_ns_ = -1;
    size_ = -1;
    return;
  }
  int64_t mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  if (mtime_ns == mtime_ns_ && static_cast<int64_t>(st.st_size) == size_) return;
  std::ifstream in(path_, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  std::string text = buf.str();
  size_t end = text.find_last_not_of(" \t\r\n");
  size_t begin = text.find_first_not_of(" \t\r\n");
  token_ = begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
  mtime_ns_ = mtime_ns;
  size_ = static_cast<int64_t>(st.st_size);
}

bool TokenFile::Check(std::string_view authorization) {
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.size() <= kBearer.size()) return false;
  std::string_view scheme = authorization.substr(0, kBearer.size());
  bool is_bearer = true;
  for (size_t i = 0; i < kBearer.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(scheme[i])) !=
        std::tolower(static_cast<unsigned char>(kBearer[i]))) {
      is_bearer = false;
    }
  }
  if (!is_bearer) return false;
  std::string_view presented = authorization.substr(kBearer.size());
  std::lock_guard<std::mutex> lock(mu_);
  RefreshLocked();
  return !token_.empty() && ConstantTimeEquals(presented, token_);
}

std::string TokenFile::Current() {
  std::lock_guard<std::mutex> lock(mu_);
  RefreshLocked();
  return token_;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  size_t n = a.size() < b.size() ? a.size() : b.size();
  for (size_t i = 0; i < n; ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace kubesim
