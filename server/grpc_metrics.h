#pragma once

// A gRPC server interceptor that fills the grpc_server_* series of Metrics (go-grpc-prometheus
// names and labels) for every service the server hosts: ours, health and reflection alike.

#include <grpcpp/support/server_interceptor.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/metrics.h"

namespace kje::server {

// "unary", "client_stream", "server_stream", "bidi_stream": go-grpc-prometheus's grpc_type.
std::string_view GrpcTypeName(grpc::experimental::ServerRpcInfo::Type type);

// Register with builder.experimental().SetInterceptorCreators(). `metrics` is not owned and must
// outlive the server.
class GrpcMetricsInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  // Calls of methods outside `services` (full names, e.g. "grpc.health.v1.Health") count under
  // grpc_service="unknown", grpc_method="unknown": the path is the caller's text, and a label
  // must not take any value a caller sends.
  GrpcMetricsInterceptorFactory(Metrics* metrics, std::vector<std::string> services)
      : metrics_(metrics), services_(std::move(services)) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  Metrics* metrics_;
  const std::vector<std::string> services_;
};

}  // namespace kje::server
