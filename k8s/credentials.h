#pragma once

// Where the client's identity comes from: a fixed token or certificate, a token file that rotates
// (projected service-account tokens, tokenFile), or an exec credential plugin (EKS, GKE, OIDC
// helpers). The transport asks for credentials before each request and calls Invalidate() after a
// 401, then asks again once.

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "base/secret_file.h"

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
  // Get() without blocking the calling thread for long: `done` gets the credentials inline when
  // they are at hand, or later from a thread of the provider's own (an exec plugin's run). `done`
  // must not block. The client's io threads use this one.
  virtual void GetAsync(std::function<void(absl::StatusOr<Credentials>)> done) { done(Get()); }
};

class StaticCredentialProvider final : public CredentialProvider {
 public:
  explicit StaticCredentialProvider(Credentials credentials)
      : credentials_(std::move(credentials)) {}
  absl::StatusOr<Credentials> Get() override { return credentials_; }

 private:
  const Credentials credentials_;
};

// A bearer token read from a file, rotated as every secret file is (base/secret_file.h: looked at
// on a timer, re-read when its version changes, the last token kept with a warning per file
// version if it is emptied or removed). Create() fails when the file is missing or empty at start.
// A client certificate may ride along. Invalidate() makes the next Get() read the file.
class TokenFileCredentialProvider final : public CredentialProvider {
 public:
  static absl::StatusOr<std::unique_ptr<TokenFileCredentialProvider>> Create(
      std::string path, std::string client_cert_pem = "", std::string client_key_pem = "",
      const Clock& clock = RealClock::Get(), absl::Duration recheck = absl::Seconds(1));

  absl::StatusOr<Credentials> Get() override;
  void Invalidate() override;

 private:
  TokenFileCredentialProvider(std::unique_ptr<SecretFile> token, std::string cert, std::string key)
      : token_(std::move(token)), cert_(std::move(cert)), key_(std::move(key)) {}

  const std::unique_ptr<SecretFile> token_;
  const std::string cert_;
  const std::string key_;
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
  ~ExecCredentialProvider() override;

  absl::StatusOr<Credentials> Get() override;
  void Invalidate() override;
  // Cached credentials inline; otherwise one run of the plugin on the provider's worker thread
  // answers every caller waiting for it.
  void GetAsync(std::function<void(absl::StatusOr<Credentials>)> done) override;

  // How many times the plugin ran (for tests and diagnostics).
  int runs() const;

 private:
  absl::StatusOr<std::string> Run() const;
  // Runs the plugin and caches what it gave; mu_ must not be held (the run takes seconds).
  absl::StatusOr<Credentials> RunAndCache();
  void WorkerLoop();

  const ExecConfig config_;
  const Clock& clock_;
  // The asynchronous path's worker: started on first need, stopped by the destructor.
  absl::Mutex worker_mu_;
  std::vector<std::function<void(absl::StatusOr<Credentials>)>> waiters_
      ABSL_GUARDED_BY(worker_mu_);
  bool stopping_ ABSL_GUARDED_BY(worker_mu_) = false;
  std::thread worker_;
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
