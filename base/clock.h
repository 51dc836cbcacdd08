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

#include "absl/synchronization/mutex.h"

namespace kje {

// A clock that moves only when told to. Thread-safe.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1767225600)) : now_(start) {}
  absl::Time Now() const override {
    absl::MutexLock lock(&mu_);
    return now_;
  }
  void Advance(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    now_ += d;
  }
  void Set(absl::Time t) {
    absl::MutexLock lock(&mu_);
    now_ = t;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje
