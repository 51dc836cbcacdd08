#pragma once

// The simulated SparkPi's arithmetic, shared so that every simulated driver prints the same kind
// of estimate.

#include <cstdint>
#include <string>

namespace kubesim::sim {

// 4 * (points inside the unit circle) / samples, with a generator seeded by `seed`.
double EstimatePi(uint64_t seed, int64_t samples);

// The shortest decimal that reads back as `d`, as Scala prints a Double ("3.14159", "2.0").
std::string ShortestDouble(double d);

}  // namespace kubesim::sim
