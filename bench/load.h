#pragma once

// A closed-loop gRPC load generator: `concurrency` calls in flight at all times over `channels`
// channels (each its own HTTP/2 connection), each call issued from the completion of the one
// before it, through the callback API. The same code drives every method, so a ratio between
// two methods measures the server, not the client.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kje::bench {

enum class Method { kHealthCheck, kStatus, kSubmit };

struct LoadOptions {
  std::string target;  // host:port, plaintext
  Method method = Method::kHealthCheck;
  int concurrency = 16;
  int channels = 1;
  // Stop after this many measured calls (> 0), or else after duration_ms.
  int64_t calls = 0;
  int64_t duration_ms = 0;
  // Calls made (and not measured) before the measured ones, with the same concurrency.
  int64_t warmup_calls = 0;
  int64_t deadline_ms = 10000;  // per call
  int64_t connect_timeout_ms = 10000;
  // Status: the execution ids, cycled through in order (call i asks for ids[i % size]).
  std::vector<std::string> execution_ids;
  // Submit: call i submits job id "<job_prefix>-<i>" (warm-up calls are "<job_prefix>-w<i>").
  std::string job_prefix = "bench";
  std::string submit_namespace;  // empty: the server's namespace
};

struct LoadResult {
  int64_t calls = 0;  // measured calls completed, whatever their outcome
  int64_t ok = 0;
  std::map<std::string, int64_t> errors;  // by gRPC code name, e.g. "NOT_FOUND"
  double seconds = 0;                     // wall time of the measured phase
  double throughput = 0;                  // calls per second
  // Latency of the measured calls, in milliseconds.
  double p50_ms = 0;
  double p90_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
  double mean_ms = 0;
};

// Connects, warms up, measures. An error only when the options are bad or the server can't be
// reached; failed calls are counted in the result, not returned as an error.
absl::StatusOr<LoadResult> RunLoad(const LoadOptions& options);

// The q-quantile (0..1) of `sorted` by the nearest-rank method; 0 for an empty vector.
double Quantile(const std::vector<double>& sorted, double q);

// One JSON object: {"method", "concurrency", "channels", "calls", "ok", "errors": {...},
// "seconds", "throughput", "latency_ms": {"p50", "p90", "p99", "max", "mean"}}.
std::string ToJson(const LoadOptions& options, const LoadResult& result);

std::string MethodName(Method method);
absl::StatusOr<Method> ParseMethod(const std::string& name);

}  // namespace kje::bench
