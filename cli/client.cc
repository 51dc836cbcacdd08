#include "cli/client.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace kje::cli {
namespace {

constexpr size_t kMaxFileBytes = 1 << 20;
// Long watches sit idle for minutes: keepalive pings notice a server that vanished without
// closing the connection. Servers refuse pings more often than every 5 minutes by default.
constexpr int kKeepaliveTimeMs = 6 * 60 * 1000;
constexpr int kKeepaliveTimeoutMs = 20 * 1000;

}  // namespace

absl::StatusOr<std::string> ReadSmallFile(const std::string& path, const std::string& what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::InvalidArgumentError(absl::StrCat(what, ": can't read ", path));
  std::string text(kMaxFileBytes + 1, '\0');
  f.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(f.gcount()));
  if (text.size() > kMaxFileBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", path, " is larger than ", kMaxFileBytes, " bytes"));
  }
  std::string trimmed(absl::StripAsciiWhitespace(text));
  if (trimmed.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", path, " is empty"));
  }
  return trimmed;
}

absl::StatusOr<std::unique_ptr<Connection>> Connection::Open(const ConnectionOptions& options) {
  std::unique_ptr<Connection> conn(new Connection());
  conn->timeout_ = options.timeout;
  if (!options.token_file.empty()) {
    ASSIGN_OR_RETURN(conn->token_, ReadSmallFile(options.token_file, "--token-file"));
  }
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  }
  conn->tls_ = options.tls || !options.tls_ca_file.empty() || !options.tls_cert_file.empty();
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (conn->tls_) {
    grpc::SslCredentialsOptions ssl;
    if (!options.tls_ca_file.empty()) {
      ASSIGN_OR_RETURN(ssl.pem_root_certs, ReadSmallFile(options.tls_ca_file, "--tls-ca"));
    }
    if (!options.tls_cert_file.empty()) {
      ASSIGN_OR_RETURN(ssl.pem_cert_chain, ReadSmallFile(options.tls_cert_file, "--tls-cert"));
      ASSIGN_OR_RETURN(ssl.pem_private_key, ReadSmallFile(options.tls_key_file, "--tls-key"));
    }
    if (!options.tls_server_name.empty()) {
      args.SetSslTargetNameOverride(options.tls_server_name);
    }
    creds = grpc::SslCredentials(ssl);
  } else {
    if (!options.tls_server_name.empty()) {
      return absl::InvalidArgumentError("--tls-server-name needs TLS (--tls or --tls-ca)");
    }
    creds = grpc::InsecureChannelCredentials();
  }
  conn->channel_ = grpc::CreateCustomChannel(options.server, creds, args);
  conn->stub_ = jobexecutor::v1::JobExecutor::NewStub(conn->channel_);
  return conn;
}

std::unique_ptr<grpc::ClientContext> Connection::NewContext(bool streaming) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  if (!token_.empty()) ctx->AddMetadata("authorization", absl::StrCat("Bearer ", token_));
  std::optional<absl::Duration> timeout = timeout_;
  if (!timeout && !streaming) timeout = kDefaultUnaryTimeout;
  if (timeout) ctx->set_deadline(absl::ToChronoTime(absl::Now() + *timeout));
  return ctx;
}

}  // namespace kje::cli
