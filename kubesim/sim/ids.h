#pragma once

// Deterministic ids for simulated objects (app ids, pod name suffixes, submission ids): the same
// inputs give the same id, so a reconcile that is repeated writes the same object again.

#include <cstdint>
#include <cstdio>
#include <string>

namespace kubesim::sim {

// SplitMix64's finaliser: a well-spread 64-bit value from any seed.
inline uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// `len` lower-case hex digits drawn from `seed`.
inline std::string Hex(uint64_t seed, size_t len) {
  std::string out;
  uint64_t x = seed;
  while (out.size() < len) {
    x = Mix(x);
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(x));
    out += buf;
  }
  return out.substr(0, len);
}

}  // namespace kubesim::sim
