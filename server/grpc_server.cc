#include "server/grpc_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "grpc/health/v1/health.pb.h"
#include "server/grpc_metrics.h"

namespace kje::server {
namespace {

// How often certificate files are checked for changes, so rotated certificates (cert-manager,
// a mounted Secret) are picked up without a restart.
constexpr unsigned kCertRefreshSeconds = 60;

constexpr const char* kHealthServices[] = {"", "liveness", "readiness",
                                           "jobexecutor.v1.JobExecutor"};
// Readiness: the service's own name (what a gRPC-aware load balancer checks), and "readiness" as
// an alias. "" and "liveness" say only that the process serves, until it shuts down.
constexpr const char* kReadinessServices[] = {"jobexecutor.v1.JobExecutor", "readiness"};

std::shared_ptr<grpc::ServerCredentials> MakeCredentials(const ServerConfig& config) {
  if (config.tls_cert_file.empty()) return grpc::InsecureServerCredentials();
  std::shared_ptr<grpc::experimental::CertificateProviderInterface> provider;
  if (config.tls_client_ca_file.empty()) {
    provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
        config.tls_key_file, config.tls_cert_file, kCertRefreshSeconds);
  } else {
    provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
        config.tls_key_file, config.tls_cert_file, config.tls_client_ca_file, kCertRefreshSeconds);
  }
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (config.tls_client_ca_file.empty()) {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  } else {
    options.watch_root_certs();
    options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  }
  return grpc::experimental::TlsServerCredentials(options);
}

}  // namespace

absl::StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Start(
    const ServerConfig& config, const std::vector<grpc::Service*>& services, Metrics* metrics) {
  // Keeps health.proto's descriptor in the binary's pool, so reflection can describe
  // grpc.health.v1.Health (the built-in health service does not register it).
  (void)grpc::health::v1::HealthCheckResponse::descriptor();
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();

  std::unique_ptr<GrpcServer> s(new GrpcServer());
  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT by default, which lets a second server bind a port already in use and
  // silently take half of its connections. A port in use must be an error instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(config.listen, MakeCredentials(config), &s->port_);
  for (grpc::Service* service : services) builder.RegisterService(service);
  if (metrics != nullptr) {
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
    creators.push_back(std::make_unique<GrpcMetricsInterceptorFactory>(
        metrics, std::vector<std::string>{"jobexecutor.v1.JobExecutor", "grpc.health.v1.Health",
                                          "grpc.reflection.v1alpha.ServerReflection"}));
    builder.experimental().SetInterceptorCreators(std::move(creators));
  }
  s->server_ = builder.BuildAndStart();
  if (s->server_ == nullptr || s->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("server.listen: can't listen on ", config.listen,
                                               " (address in use or not local?)"));
  }
  s->keeper_ = std::make_unique<grpc_util::PollKeeper>(
      s->server_->InProcessChannel(grpc::ChannelArguments()), grpc_util::PollKeeper::kMethod);
  if (!config.health_listen.empty()) {
    // No service of ours is registered here: the default health service alone answers (and
    // reflection, which describes only it), so the plaintext port opens nothing else.
    grpc::ServerBuilder health_builder;
    health_builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    health_builder.AddListeningPort(config.health_listen, grpc::InsecureServerCredentials(),
                                    &s->health_port_);
    s->health_server_ = health_builder.BuildAndStart();
    if (s->health_server_ == nullptr || s->health_port_ == 0) {
      return absl::UnavailableError(absl::StrCat("server.healthListen: can't listen on ",
                                                 config.health_listen, " (address in use?)"));
    }
  }
  for (const char* name : kHealthServices) s->SetServing(name, true);
  return s;
}

void GrpcServer::SetServing(const char* name, bool serving) {
  server_->GetHealthCheckService()->SetServingStatus(name, serving);
  if (health_server_ != nullptr) {
    health_server_->GetHealthCheckService()->SetServingStatus(name, serving);
  }
}

GrpcServer::~GrpcServer() { Shutdown(absl::ZeroDuration()); }

void GrpcServer::SetReady(bool ready) {
  if (server_ == nullptr || shut_down_) return;
  for (const char* name : kReadinessServices) SetServing(name, ready);
}

void GrpcServer::Shutdown(absl::Duration drain) {
  if (server_ == nullptr || shut_down_) return;
  shut_down_ = true;
  keeper_.reset();
  for (const char* name : kReadinessServices) SetServing(name, false);
  server_->Shutdown(absl::ToChronoTime(absl::Now() + drain));
  server_->Wait();
  // Last: the probes see NOT_SERVING readiness while the main port drains.
  if (health_server_ != nullptr) {
    health_server_->Shutdown(absl::ToChronoTime(absl::Now()));
    health_server_->Wait();
  }
}

}  // namespace kje::server
