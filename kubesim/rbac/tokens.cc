#include "kubesim/rbac/tokens.h"

#include <openssl/rand.h>

namespace kubesim::rbac {

ServiceAccountTokens::ServiceAccountTokens(std::function<int64_t()> now_ms)
    : now_ms_(std::move(now_ms)) {}

std::string ServiceAccountTokens::Issue(std::string_view ns, std::string_view name,
                                        std::string_view uid, int64_t expires_ms) {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return "";
  static const char kHex[] = "0123456789abcdef";
  std::string token = "kubesim-sa.";
  for (unsigned char b : bytes) {
    token.push_back(kHex[b >> 4]);
    token.push_back(kHex[b & 15]);
  }
  std::lock_guard<std::mutex> lock(mu_);
  // Expired tokens are forgotten as new ones are issued, so the table stays bounded by the
  // tokens alive.
  int64_t now = now_ms_();
  for (auto it = tokens_.begin(); it != tokens_.end();) {
    it = it->second.expires_ms <= now ? tokens_.erase(it) : std::next(it);
  }
  tokens_[token] = Issued{std::string(ns), std::string(name), std::string(uid), expires_ms};
  return token;
}

std::optional<UserInfo> ServiceAccountTokens::Authenticate(std::string_view token,
                                                           const Store& store) {
  Issued issued;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = tokens_.find(token);
    if (it == tokens_.end() || it->second.expires_ms <= now_ms_()) return std::nullopt;
    issued = it->second;
  }
  const ResourceType* sa_type = store.FindType("", "v1", "serviceaccounts");
  if (sa_type == nullptr) return std::nullopt;
  auto sa = store.Get(*sa_type, issued.ns, issued.name);
  if (!sa.ok()) return std::nullopt;
  const boost::json::value* meta = sa.value().if_contains("metadata");
  const boost::json::value* uid =
      meta && meta->is_object() ? meta->as_object().if_contains("uid") : nullptr;
  if (uid == nullptr || !uid->is_string() || uid->as_string() != issued.uid) return std::nullopt;
  return ServiceAccountUser(issued.ns, issued.name);
}

}  // namespace kubesim::rbac
