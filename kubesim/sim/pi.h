#pragma once

// The simulated SparkPi's arithmetic, shared so that every simulated driver prints the same kind
// of estimate.

#include <cstdint>
#include <string>

namespace kubesim::sim {

// The samples every simulated SparkPi draws: bounded so that 100k simulated jobs cost little CPU,
// still a real estimate. Stratified (one per cell of a square grid), 90k of them land within
// ±0.002 of pi, so the log reads "Pi is roughly 3.14…" as SparkPi's does, for about 0.3 ms of CPU
// per job. (SparkPi itself draws 100,000 per slice, always more.)
inline constexpr int64_t kPiSamples = 90000;

// 4 * (points inside the unit circle) / samples, with a generator seeded by `seed`.
double EstimatePi(uint64_t seed, int64_t samples);

// The shortest decimal that reads back as `d`, as Scala prints a Double ("3.14159", "2.0").
std::string ShortestDouble(double d);

}  // namespace kubesim::sim
