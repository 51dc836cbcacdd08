#pragma once

// A closed-loop gRPC load generator: `concurrency` calls in flight at all times over `channels`
// channels (each its own HTTP/2 connection), each call issued from the completion of the one
// before it, through the callback API. The same code drives every method, so a ratio between
// two methods measures the server, not the client.
//
// And a stream holder (RunWatch): `concurrency` WatchStatus streams held open at once, each
// reading everything the server sends, timing every message that carries its send time.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kje::bench {

enum class Method { kHealthCheck, kStatus, kSubmit, kWatch };

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
  // Watch: stream i watches ids[i % size].
  std::vector<std::string> execution_ids;
  // Watch: once told to end, wait for this many timed messages in all (0: don't), but no
  // longer than `settle_ms` without a new message; then cancel the streams.
  int64_t expect_timed = 0;
  int64_t settle_ms = 2000;
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

// What a set of WatchStatus streams received.
struct WatchResult {
  int64_t streams = 0;
  int64_t opened = 0;       // streams that received their first message
  double open_seconds = 0;  // from the first stream started to the last one opened
  int64_t messages = 0;     // every message received, first ones included
  int64_t timed = 0;        // messages after a stream's first carrying a send time
  // Streams that ended before the client cancelled them, by gRPC code name ("OK" included).
  std::map<std::string, int64_t> ended;
  double seconds = 0;  // from the first stream started to the last one cancelled
  // Delivery latency of the timed messages (arrival - send, both CLOCK_REALTIME), in ms.
  double p50_ms = 0;
  double p90_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
  double mean_ms = 0;
};

// A message whose text holds this marker followed by CLOCK_REALTIME nanoseconds is timed, unless
// it is its stream's first (the current status, not a change): the sender and this client share
// the machine's clock, so arrival - send is the delivery latency.
inline constexpr char kSentMarker[] = "sent_ns=";

struct WatchHooks {
  // Called once every stream has had its first message or ended.
  std::function<void(const WatchResult& so_far)> on_open;
  // Returns when the streams should end (after expect_timed / settle_ms, see LoadOptions).
  std::function<void()> wait_for_end;
};

// Opens `concurrency` WatchStatus streams over `channels` channels, each with `deadline_ms`,
// and reads them until told to end. An error only when the options are bad or the server can't
// be reached.
absl::StatusOr<WatchResult> RunWatch(const LoadOptions& options, const WatchHooks& hooks);

// {"method":"watch", "streams", "channels", "opened", "open_seconds", "messages", "timed",
// "ended": {...}, "seconds", "latency_ms": {"p50", "p90", "p99", "max", "mean"}}.
std::string WatchToJson(const LoadOptions& options, const WatchResult& result);

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
