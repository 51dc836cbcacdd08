// kje_grpc_load: drives one unary RPC of a k8s-job-executor server with N calls in flight and
// prints one JSON line (see bench/load.h and bench/README.md). With --method watch it holds N
// WatchStatus streams instead: one JSON line when they are all open, then, once stdin closes
// (or --duration-ms after they opened), one JSON line with what they received.

#include <charconv>
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "bench/load.h"

namespace {

constexpr char kUsage[] =
    "usage: kje_grpc_load --target HOST:PORT --method health|status|submit\n"
    "                     (--calls N | --duration-ms MS) [--warmup-calls N]\n"
    "                     [--concurrency N] [--channels N] [--deadline-ms MS]\n"
    "                     [--id EXECUTION_ID]... [--ids-file FILE]\n"
    "                     [--job-prefix P] [--submit-namespace NS]\n"
    "       kje_grpc_load --target HOST:PORT --method watch --concurrency STREAMS\n"
    "                     (--id EXECUTION_ID... | --ids-file FILE) [--channels N]\n"
    "                     [--deadline-ms MS] [--duration-ms MS] [--expect-timed N]\n"
    "                     [--settle-ms MS]\n";

bool ToInt(const std::string& text, int64_t* out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
}

int Usage(const std::string& problem) {
  std::cerr << "kje_grpc_load: " << problem << "\n" << kUsage;
  return 2;
}

// The streams stay open while the caller measures and makes changes; closing our stdin (the
// caller's pipe) says it is done, whenever that is.
int Watch(const kje::bench::LoadOptions& options) {
  kje::bench::WatchHooks hooks;
  hooks.on_open = [&](const kje::bench::WatchResult& so_far) {
    std::cout << kje::bench::WatchToJson(options, so_far) << std::endl;
  };
  hooks.wait_for_end = [&] {
    if (options.duration_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(options.duration_ms));
      return;
    }
    std::string ignored;
    while (std::getline(std::cin, ignored)) {
    }
  };
  auto result = kje::bench::RunWatch(options, hooks);
  if (!result.ok()) {
    std::cerr << "kje_grpc_load: " << result.status().message() << "\n";
    return 1;
  }
  std::cout << kje::bench::WatchToJson(options, *result) << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  kje::bench::LoadOptions options;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& name = args[i];
    if (name == "-h" || name == "--help") {
      std::cout << kUsage;
      return 0;
    }
    if (i + 1 >= args.size()) return Usage(name + " needs a value");
    const std::string& value = args[++i];
    int64_t n = 0;
    auto number = [&](int64_t min) {
      if (!ToInt(value, &n) || n < min) return false;
      return true;
    };
    if (name == "--target") {
      options.target = value;
    } else if (name == "--method") {
      auto m = kje::bench::ParseMethod(value);
      if (!m.ok()) return Usage(std::string(m.status().message()));
      options.method = *m;
    } else if (name == "--calls") {
      if (!number(1)) return Usage("--calls must be positive");
      options.calls = n;
    } else if (name == "--duration-ms") {
      if (!number(1)) return Usage("--duration-ms must be positive");
      options.duration_ms = n;
    } else if (name == "--warmup-calls") {
      if (!number(0)) return Usage("--warmup-calls must not be negative");
      options.warmup_calls = n;
    } else if (name == "--concurrency") {
      if (!number(1) || n > 10000) return Usage("--concurrency must be 1..10000");
      options.concurrency = static_cast<int>(n);
    } else if (name == "--channels") {
      if (!number(1) || n > 256) return Usage("--channels must be 1..256");
      options.channels = static_cast<int>(n);
    } else if (name == "--deadline-ms") {
      if (!number(1)) return Usage("--deadline-ms must be positive");
      options.deadline_ms = n;
    } else if (name == "--id") {
      options.execution_ids.push_back(value);
    } else if (name == "--ids-file") {
      std::ifstream in(value);
      if (!in) return Usage("can't read " + value);
      std::string line;
      while (std::getline(in, line)) {
        if (!line.empty()) options.execution_ids.push_back(line);
      }
    } else if (name == "--job-prefix") {
      options.job_prefix = value;
    } else if (name == "--submit-namespace") {
      options.submit_namespace = value;
    } else if (name == "--expect-timed") {
      if (!number(0)) return Usage("--expect-timed must not be negative");
      options.expect_timed = n;
    } else if (name == "--settle-ms") {
      if (!number(0)) return Usage("--settle-ms must not be negative");
      options.settle_ms = n;
    } else {
      return Usage("unknown flag " + name);
    }
  }
  if (options.method == kje::bench::Method::kWatch) return Watch(options);
  auto result = kje::bench::RunLoad(options);
  if (!result.ok()) {
    std::cerr << "kje_grpc_load: " << result.status().message() << "\n";
    return 1;
  }
  std::cout << kje::bench::ToJson(options, *result) << std::endl;
  return 0;
}
