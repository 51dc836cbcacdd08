#pragma once

// SHA-256 and HMAC-SHA256 over OpenSSL's EVP interface: the content address of a staged file and
// the primitives of request signing (sigv4.h).

#include <memory>
#include <string>
#include <string_view>

namespace kje::staging {

// An incremental SHA-256.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view bytes);
  // The digest as 64 lower-case hex digits; the hasher is spent afterwards.
  std::string HexDigest();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

// The SHA-256 of `bytes`, hex.
std::string Sha256Hex(std::string_view bytes);
// HMAC-SHA256 of `data` under `key`: the 32 raw bytes.
std::string HmacSha256(std::string_view key, std::string_view data);
// Lower-case hex of raw bytes.
std::string HexOf(std::string_view raw);

}  // namespace kje::staging
