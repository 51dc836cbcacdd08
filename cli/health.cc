// `health`: grpc.health.v1.Health/Check.

#include <ostream>

#include "cli/verbs.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace kje::cli {
namespace {

// grpc.health.v1.Health/Check, for exec probes: the kubelet's own gRPC probe can't speak TLS nor
// reach a sidecar listening on loopback, a command inside the container can.
int Health(Context& c) {
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(c.flags.Get("service").value_or(""));
  grpc::health::v1::HealthCheckResponse response;
  auto stub = grpc::health::v1::Health::NewStub(c.conn.channel());
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = stub->Check(ctx.get(), request, &response);
  if (!status.ok()) return RpcError(c.io, "health", status);
  std::string name = grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status());
  if (!PrintStructured(c, response)) c.io.out << name << "\n";
  return response.status() == grpc::health::v1::HealthCheckResponse::SERVING ? kExitOk
                                                                             : kExitUnavailable;
}

}  // namespace

Command HealthCommand() {
  return Command{
      "health",
      "[--service NAME] [flags]",
      "check the server's health (grpc.health.v1.Health/Check)",
      "Exit code 0 when SERVING, 7 otherwise or when the server can't be reached. For exec\n"
      "probes, e.g. `k8s-job-executor health --service readiness --timeout 1s`.\n",
      {
          {"service", 0, "NAME", false, "\"\" (default), liveness or readiness"},
      },
      "",
      0,
      0,
      Health};
}

}  // namespace kje::cli
