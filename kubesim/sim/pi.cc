#include "kubesim/sim/pi.h"

#include <cstdio>
#include <cstdlib>

namespace kubesim::sim {

double EstimatePi(uint64_t seed, int64_t samples) {
  if (samples <= 0) return 0;
  uint64_t state = seed | 1;
  auto next = [&state] {
    // xorshift64*: small, fast and plenty for a Monte-Carlo toy.
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return (state * 0x2545F4914F6CDD1DULL) >> 11;  // 53 bits
  };
  const double kScale = 1.0 / 9007199254740992.0;  // 2^-53
  // Jittered sampling: one random point in each cell of a k x k grid over the unit square. Only
  // the cells the circle crosses add variance, so the estimate is far tighter than plain Monte
  // Carlo for the same number of points, and still varies with the seed.
  int64_t k = 1;
  while ((k + 1) * (k + 1) <= samples) ++k;
  int64_t inside = 0;
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      double x = (static_cast<double>(i) + static_cast<double>(next()) * kScale) / k;
      double y = (static_cast<double>(j) + static_cast<double>(next()) * kScale) / k;
      if (x * x + y * y <= 1) ++inside;
    }
  }
  return 4.0 * static_cast<double>(inside) / static_cast<double>(k * k);
}

std::string ShortestDouble(double d) {
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string s = buf;
  if (s.find('.') == std::string::npos && s.find('e') == std::string::npos) s += ".0";
  return s;
}

}  // namespace kubesim::sim
