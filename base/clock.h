#pragma once

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace kje {

// Time as the code sees it. Production uses RealClock; tests inject a FakeClock so that no
// correctness check depends on the wall clock.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
};

class RealClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
  static const Clock& Get() {
    static const RealClock clock;
    return clock;
  }
};

}  // namespace kje
