// k8s-job-executor: runs Spark jobs on Kubernetes as SparkApplications and answers
// Submit / Status / Cancel / Output for them over gRPC (`serve`), and is its own client (the
// sub-commands of cli/).

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "app/serve.h"
#include "base/quote.h"
#include "cli/cli.h"
#include "cli/client.h"
#include "cli/contexts.h"
#include "cli/exit_codes.h"

namespace {

std::string Usage() {
  return std::string(
             "usage: k8s-job-executor <command> [flags]\n"
             "\n"
             "server:\n"
             "  serve     run the gRPC server (see `k8s-job-executor serve --help`)\n"
             "  version   print the version\n"
             "\n"
             "client (see `k8s-job-executor <command> --help`):\n") +
         kje::cli::CommandsHelp() + "\n" + kje::cli::ExitCodeHelp();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << Usage();
    return args.empty() ? kje::cli::kExitUsage : kje::cli::kExitOk;
  }
  if (args[0] == "version" || args[0] == "--version") {
    std::cout << "k8s-job-executor " << KJE_VERSION << "\n";
    return 0;
  }
  if (kje::cli::IsCommand(args[0])) {
    kje::cli::Io io{std::cout, std::cerr, {}};
    for (const std::string& name : kje::cli::CliEnvironmentNames()) {
      if (const char* value = std::getenv(name.c_str())) io.env[name] = value;
    }
    return kje::cli::Run(args, io);
  }
  if (args[0] == "serve") {
    auto parsed = kje::app::ParseServeArgs({args.begin() + 1, args.end()});
    if (!parsed.ok()) {
      std::cerr << "k8s-job-executor serve: " << parsed.status().message() << "\n"
                << kje::app::ServeUsage();
      return 2;
    }
    if (parsed->help) {
      std::cout << kje::app::ServeUsage();
      return 0;
    }
    return kje::app::RunServe(*parsed);
  }
  std::cerr << "k8s-job-executor: unknown command " << kje::QuoteBounded(args[0]) << "\n"
            << Usage();
  return 2;
}
