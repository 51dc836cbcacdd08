#pragma once

// ServiceAccount tokens, as the TokenRequest API (POST .../serviceaccounts/<name>/token) issues
// them: opaque bearer tokens bound to the ServiceAccount's uid, valid until they expire or the
// ServiceAccount goes. Thread-safe. Tokens are secrets: never log one.

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "kubesim/rbac/rbac.h"
#include "kubesim/store/store.h"

namespace kubesim::rbac {

class ServiceAccountTokens {
 public:
  explicit ServiceAccountTokens(std::function<int64_t()> now_ms);

  // A new token for the ServiceAccount `ns`/`name` with `uid`, valid until `expires_ms`.
  std::string Issue(std::string_view ns, std::string_view name, std::string_view uid,
                    int64_t expires_ms);

  // The user `token` authenticates as: one issued here, unexpired, whose ServiceAccount still
  // exists with the uid it was issued for.
  std::optional<UserInfo> Authenticate(std::string_view token, const Store& store);

 private:
  struct Issued {
    std::string ns;
    std::string name;
    std::string uid;
    int64_t expires_ms = 0;
  };

  std::function<int64_t()> now_ms_;
  std::mutex mu_;
  std::map<std::string, Issued, std::less<>> tokens_;
};

}  // namespace kubesim::rbac
