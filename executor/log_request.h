#pragma once

// What of a job's log Output and FollowOutput read besides how much: whose pod (the driver, or a
// Spark executor while its pod lives), since when, with the kubelet's stamps, and (Output only)
// the container's previous run, as kubectl logs' flags. Checked before anything is read.

#include <cstdint>

#include "absl/status/status.h"

namespace kje::executor {

struct LogRequest {
  // 0: the driver; N >= 1: Spark executor N (its live pod only: the kept record is the
  // driver's).
  int executor = 0;
  // > 0: only the lines the kubelet stamped at most this many seconds ago.
  int64_t since_seconds = 0;
  // Each line keeps the kubelet's RFC 3339 stamp and a space in front.
  bool timestamps = false;
  // The log of the container's run before its last restart.
  bool previous = false;

  // Whether anything beyond the driver's current log is asked: then what can't be read is an
  // error for the caller, not an empty answer.
  bool Specific() const { return executor > 0 || previous; }
};

// INVALID_ARGUMENT naming the field for a negative executor or since_seconds, and for previous
// on a follow (`follow`): a previous run has ended, there is nothing to follow.
absl::Status CheckLogRequest(const LogRequest& request, bool follow);

}  // namespace kje::executor
