#pragma once

// What the simulated driver prints: a SparkPi-like main with realistic Spark log lines, a real
// Monte-Carlo estimate of Pi seeded from the application's uid, and an exception stack when the
// job fails. Internal to kubesim/operator.

#include <cstdint>
#include <string>

#include "kubesim/operator/driver.h"

namespace kubesim::op::internal {

// The lines printed from container start until the job's main is running.
std::string DriverLogStart(const JobConf& conf, int64_t attempt, const Timeline& timeline);

// The lines printed from then until the container ends (by `conf.outcome`).
std::string DriverLogEnd(const JobConf& conf, int64_t attempt, const Timeline& timeline);

// 4 * (points inside the unit circle) / samples, with a generator seeded by `seed`.
double EstimatePi(uint64_t seed, int64_t samples);

}  // namespace kubesim::op::internal
