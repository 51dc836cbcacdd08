#pragma once

// The gRPC server process edge: listening (plaintext or TLS with certificates re-read on change,
// optionally mutual), health for "", "liveness" and "readiness", reflection, and a graceful
// shutdown that drains in-flight RPCs within a deadline.

#include <grpcpp/grpcpp.h>

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpc_util/poll_keeper.h"
#include "server/config.h"

namespace kje::server {

class Metrics;

class GrpcServer {
 public:
  // Builds and starts the server on config.listen with `services` registered (not owned; they
  // must outlive the server). With `metrics` (not owned, outliving the server), every call of
  // every service is counted in its grpc_server_* series. Fails if the address can't be bound.
  static absl::StatusOr<std::unique_ptr<GrpcServer>> Start(
      const ServerConfig& config, const std::vector<grpc::Service*>& services,
      Metrics* metrics = nullptr);

  ~GrpcServer();

  // The bound port; the chosen one when the configured port was 0.
  int port() const { return port_; }
  // The health-only port (server.healthListen); 0 without one.
  int health_port() const { return health_port_; }

  // Readiness as the "readiness" health service reports it.
  void SetReady(bool ready);

  // Readiness goes NOT_SERVING, new RPCs are refused, in-flight RPCs get up to `drain` to finish
  // and are cancelled after that. Returns once the server has stopped. Idempotent.
  void Shutdown(absl::Duration drain);

  grpc::Server* server() { return server_.get(); }

 private:
  GrpcServer() = default;

  // Sets one health name's status on every server that answers health.
  void SetServing(const char* name, bool serving);

  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<grpc_util::PollKeeper> keeper_;  // stopped before the server
  // Health alone, in plaintext on loopback, with the same statuses as the main port's.
  std::unique_ptr<grpc::Server> health_server_;
  int port_ = 0;
  int health_port_ = 0;
  bool shut_down_ = false;
};

}  // namespace kje::server
