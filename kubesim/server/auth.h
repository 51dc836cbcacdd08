#pragma once

// Bearer-token authentication against a token file that tests may rotate while kubesim runs.

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

namespace kubesim {

class TokenFile {
 public:
  // With an empty `path` the token is `fixed_token` forever.
  TokenFile(std::string path, std::string fixed_token);

  // True when `authorization` ("Bearer <token>") carries the current token. The file is re-read
  // when its modification time or size changed since the last look (one stat() per call).
  bool Check(std::string_view authorization);

  // The current token (for the kubeconfig kubesim writes). Never log it.
  std::string Current();

 private:
  void RefreshLocked();

  const std::string path_;
  std::mutex mu_;
  std::string token_;
  int64_t mtime_ns_ = -1;
  int64_t size_ = -1;
};

// Compares in time independent of where the strings differ.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace kubesim
