#pragma once

// The memory Spark asks for a driver or executor pod: the heap (spark.{driver,executor}.memory)
// plus the overhead Spark adds for what lives outside it, as Spark's Kubernetes feature steps
// compute them. A builder that must state a pod's size up front (for a queue that reserves it)
// writes these instead of leaving them to Spark.

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "spark/resolved_job.h"

namespace kje::spark {

enum class SparkRole : uint8_t { kDriver, kExecutor };

// Spark's defaults: 1g of heap, an overhead of 10% of it for a JVM job and 40% for a Python or R
// job, and never less than 384 MiB.
inline constexpr int64_t kDefaultMemoryMib = 1024;
inline constexpr double kJvmOverheadFactor = 0.1;
inline constexpr double kNonJvmOverheadFactor = 0.4;
inline constexpr int64_t kMinOverheadMib = 384;

// A memory size as Spark reads one (whole digits, then optionally a unit b, k, kb, m, mb, g, gb,
// t, tb, p or pb in any case; no unit means MiB; surrounding whitespace ignored), in MiB rounded
// down as Spark rounds it; nullopt for a fraction, a negative, an unknown unit or a size past
// int64 MiB.
std::optional<int64_t> ParseMemoryMib(std::string_view text);

struct PodMemory {
  int64_t memory_mib = kDefaultMemoryMib;
  int64_t overhead_mib = kMinOverheadMib;
};

// The memory and overhead of the role's pods under the merged conf, `non_jvm` for a Python or R
// job. The overhead is spark.<role>.memoryOverhead when set, else max(factor x memory,
// spark.<role>.minMemoryOverhead or 384 MiB), the factor rounded down to whole MiB. The factor
// is spark.<role>.memoryOverheadFactor when set; else, for the driver,
// spark.kubernetes.memoryOverheadFactor, else 0.4 for a non-JVM job and 0.1 otherwise; and for
// executors the driver's factor, which Spark hands them. INVALID_ARGUMENT naming the key and
// its source for a size ParseMemoryMib refuses or a factor that isn't a number above 0.
absl::StatusOr<PodMemory> PodMemoryOf(const MergedConf& conf, SparkRole role, bool non_jvm);

}  // namespace kje::spark
