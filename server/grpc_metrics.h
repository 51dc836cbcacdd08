#pragma once

// A gRPC server interceptor that fills the grpc_server_* series of Metrics (go-grpc-prometheus
// names and labels) for every service the server hosts: ours, health and reflection alike.

#include <grpcpp/support/server_interceptor.h>

#include <memory>
#include <string_view>

#include "server/metrics.h"

namespace kje::server {

// "unary", "client_stream", "server_stream", "bidi_stream": go-grpc-prometheus's grpc_type.
std::string_view GrpcTypeName(grpc::experimental::ServerRpcInfo::Type type);

// Register with builder.experimental().SetInterceptorCreators(). `metrics` is not owned and must
// outlive the server.
class GrpcMetricsInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit GrpcMetricsInterceptorFactory(Metrics* metrics) : metrics_(metrics) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  Metrics* metrics_;
};

}  // namespace kje::server
