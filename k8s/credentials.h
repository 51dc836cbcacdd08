#pragma once

// Where the client's identity comes from: a fixed token or certificate, a token file that rotates
// (projected service-account tokens, tokenFile), or an exec credential plugin (EKS, GKE, OIDC
// helpers). The transport asks for credentials before each request and calls Invalidate() after a
// 401, then asks again once.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/clock.h"

namespace kje::k8s {

struct Credentials {
  std::string bearer_token;
  // PEM; both set or both empty.
  std::string client_cert_pem;
  std::string client_key_pem;
};

class CredentialProvider {
 public:
  virtual ~CredentialProvider() = default;
  // Thread-safe. May block briefly (a file read; an exec plugin run when the cache is stale).
  virtual absl::StatusOr<Credentials> Get() = 0;
  // The server rejected the current credentials: drop caches so the next Get() reloads.
  virtual void Invalidate() {}
};

class StaticCredentialProvider final : public CredentialProvider {
 public:
  explicit StaticCredentialProvider(Credentials credentials)
      : credentials_(std::move(credentials)) {}
  absl::StatusOr<Credentials> Get() override { return credentials_; }

 private:
  const Credentials credentials_;
};

// A bearer token read from a file and re-read whenever the file changes (mtime, size or inode).
// Once a token was read, an emptied or removed file keeps the last token and warns once per file
// version, so a rotation that replaces the file non-atomically never fails requests. Create()
// fails when the file is missing or empty at start. A client certificate may ride along.
class TokenFileCredentialProvider final : public CredentialProvider {
 public:
  static absl::StatusOr<std::unique_ptr<TokenFileCredentialProvider>> Create(
      std::string path, std::string client_cert_pem = "", std::string client_key_pem = "");

  absl::StatusOr<Credentials> Get() override;
  void Invalidate() override;

 private:
  struct FileVersion {
    bool exists = false;
    int64_t mtime_ns = 0;
    int64_t size = 0;
    uint64_t inode = 0;
    bool operator==(const FileVersion&) const = default;
  };

  TokenFileCredentialProvider(std::string path, std::string cert, std::string key)
      : path_(std::move(path)), cert_(std::move(cert)), key_(std::move(key)) {}
  absl::Status Refresh() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  const std::string cert_;
  const std::string key_;
  absl::Mutex mu_;
  std::optional<FileVersion> seen_ ABSL_GUARDED_BY(mu_);
  std::string token_ ABSL_GUARDED_BY(mu_);
};

// A kubeconfig `user.exec` section.
struct ExecConfig {
  std::string api_version;  // client.authentication.k8s.io/v1 or /v1beta1
  std::string command;      // looked up on PATH when it has no slash
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // added to the service's environment
  std::string install_hint;
  absl::Duration timeout = absl::Seconds(60);
  size_t max_output_bytes = 1 << 20;
};

// Runs the plugin, parses its ExecCredential (status.token, or status.clientCertificateData and
// clientKeyData; status.expirationTimestamp), and caches the result until shortly before it
// expires (no expiry: until Invalidate()). Neither the output nor the environment is ever logged.
class ExecCredentialProvider final : public CredentialProvider {
 public:
  ExecCredentialProvider(ExecConfig config, const Clock& clock)
      : config_(std::move(config)), clock_(clock) {}

  absl::StatusOr<Credentials> Get() override;
  void Invalidate() override;

  // How many times the plugin ran (for tests and diagnostics).
  int runs() const;

 private:
  absl::StatusOr<std::string> Run() const;

  const ExecConfig config_;
  const Clock& clock_;
  mutable absl::Mutex mu_;
  std::optional<Credentials> cached_ ABSL_GUARDED_BY(mu_);
  absl::Time expires_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  int runs_ ABSL_GUARDED_BY(mu_) = 0;
};

// Parses an ExecCredential for the expected apiVersion.
struct ExecCredentialResult {
  Credentials credentials;
  std::optional<absl::Time> expiration;
};
absl::StatusOr<ExecCredentialResult> ParseExecCredential(std::string_view json,
                                                         std::string_view expected_api_version);

}  // namespace kje::k8s
