#pragma once

// Bulk seeding for benchmarks: many SparkApplications (and their driver pods) written straight
// into the store (kubesim does it while it serves and prints `kubesim seeded <spec>` after
// each), where creating them through the API would take minutes;
// and driver logs of any size generated on the fly instead of stored.
//
// Seeded applications look like what k8s-job-executor creates (its labels, annotations and
// spec) with a status as the operator writes it. The simulated operator reconciles seeded
// applications like any other in the namespaces it watches; seed into a namespace outside
// --operator-namespaces to keep them in the seeded state.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "kubesim/server/http_types.h"
#include "kubesim/store/store.h"

namespace kubesim {

// The pod annotation that makes a pod's log synthetic: its value is the log's size in bytes.
inline constexpr const char kSyntheticLogAnnotation[] = "kubesim.dev/synthetic-log-bytes";

// Every synthetic log line has this many bytes, its line feed included.
inline constexpr int64_t kSyntheticLineBytes = 100;

// `--seed NS:COUNT:STATE[:LOG_BYTES]`: COUNT applications in namespace NS (which must exist),
// named gravitino-job-<state>-<i> with job id <state>-<i> (state lower-cased), i = 0..COUNT-1.
// STATE is Running (currentState RunningHealthy, no pods) or Succeeded (the full history to
// TerminatedWithoutReleaseResources and a terminated driver pod <app>-0-driver). LOG_BYTES
// (Succeeded only) gives each driver pod a synthetic log of that size.
struct SeedSpec {
  std::string ns;
  int64_t count = 0;
  std::string state;  // "Running" or "Succeeded"
  int64_t log_bytes = 0;
};

bool ParseSeedSpec(const std::string& text, SeedSpec* spec, std::string* error);

// Writes the objects of `spec` into `store` (create, then the status subresource), then compacts
// the store's watch history so the seeding leaves no backlog. `now_ms` dates the statuses.
// Stops early (returning false) once `*cancel` is true.
bool SeedStore(Store& store, const SeedSpec& spec, int64_t now_ms, std::string* error,
               const std::atomic<bool>* cancel = nullptr);

// The job id, application name and driver pod name of the i-th application of a seed.
std::string SeedJobId(const SeedSpec& spec, int64_t i);
std::string SeedAppName(const SeedSpec& spec, int64_t i);
std::string SeedDriverPodName(const SeedSpec& spec, int64_t i);

// Line `i` (0-based) of a synthetic log: kSyntheticLineBytes bytes ending in '\n'.
std::string SyntheticLogLine(int64_t i);

// A log request (followed or not: the container has terminated) for a pod carrying
// kSyntheticLogAnnotation: the body, honouring
// tailLines and limitBytes, generated a chunk at a time as the connection drains it (the whole
// log never exists in memory). Null when the pod has no such annotation (or doesn't exist), so
// the caller serves the stored log.
std::shared_ptr<BodyStream> SyntheticLogStream(const Store& store, const std::string& ns,
                                               const std::string& pod, const LogOptions& options,
                                               std::function<void()> notify);

}  // namespace kubesim
