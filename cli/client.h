#pragma once

// The CLI's connection to a k8s-job-executor: a synchronous gRPC channel with the same TLS and
// bearer-token options the server has (server.tls.*, server.tokenFile).

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobexecutor/v1/job_executor.grpc.pb.h"

namespace kje::cli {

// The server's own default listen port (server.listen 0.0.0.0:50051).
inline constexpr char kDefaultServer[] = "127.0.0.1:50051";
inline constexpr char kServerEnv[] = "K8S_JOB_EXECUTOR_SERVER";
// Unary calls without --timeout get this deadline; streams get none (they last as long as the
// job does) unless --timeout is given.
inline constexpr absl::Duration kDefaultUnaryTimeout = absl::Seconds(30);

struct ConnectionOptions {
  std::string server = kDefaultServer;
  bool tls = false;           // implied by any of the files below
  std::string tls_ca_file;    // roots that sign the server's certificate; system roots if empty
  std::string tls_cert_file;  // client certificate for mutual TLS (with tls_key_file)
  std::string tls_key_file;
  std::string tls_server_name;  // the name to verify instead of the host in `server`
  std::string token_file;       // sent as "authorization: Bearer <content>"
  std::optional<absl::Duration> timeout;
};

class Connection {
 public:
  // Reads the TLS files and the token (INVALID_ARGUMENT naming the file when one can't be read
  // or is empty) and creates the channel; it connects lazily, on the first call.
  static absl::StatusOr<std::unique_ptr<Connection>> Open(const ConnectionOptions& options);

  jobexecutor::v1::JobExecutor::Stub& stub() { return *stub_; }
  // For other services on the same server (grpc.health.v1.Health).
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }

  // A context for one call, carrying the token and the deadline.
  std::unique_ptr<grpc::ClientContext> NewContext(bool streaming) const;

  // Whether a token goes out over plaintext (worth a warning: anyone on the path can read it).
  bool TokenWithoutTls() const { return !token_.empty() && !tls_; }

 private:
  Connection() = default;

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<jobexecutor::v1::JobExecutor::Stub> stub_;
  std::string token_;
  bool tls_ = false;
  std::optional<absl::Duration> timeout_;
};

// The trimmed content of a small text file (certificates, keys, tokens); at most 1 MiB.
absl::StatusOr<std::string> ReadSmallFile(const std::string& path, const std::string& what);

}  // namespace kje::cli
