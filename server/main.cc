// k8s-job-executor: runs Spark jobs on Kubernetes as SparkApplications and answers
// Submit / Status / Cancel / Output for them over gRPC.

#include <iostream>
#include <string>
#include <vector>

#include "server/serve.h"

namespace {

constexpr char kUsage[] =
    "usage: k8s-job-executor <command> [flags]\n"
    "\n"
    "commands:\n"
    "  serve     run the gRPC server (see `k8s-job-executor serve --help`)\n"
    "  version   print the version\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "version" || args[0] == "--version") {
    std::cout << "k8s-job-executor " << KJE_VERSION << "\n";
    return 0;
  }
  if (args[0] == "serve") {
    auto parsed = kje::server::ParseServeArgs({args.begin() + 1, args.end()});
    if (!parsed.ok()) {
      std::cerr << "k8s-job-executor serve: " << parsed.status().message() << "\n"
                << kje::server::ServeUsage();
      return 2;
    }
    if (parsed->help) {
      std::cout << kje::server::ServeUsage();
      return 0;
    }
    return kje::server::RunServe(*parsed);
  }
  std::cerr << "k8s-job-executor: unknown command \"" << args[0] << "\"\n" << kUsage;
  return 2;
}
