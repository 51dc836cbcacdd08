#pragma once

// Why each waiting job waits, as last looked up: a Status answers from here instead of listing
// the job's pods and Events again, until the app changes (a new resourceVersion: the operator
// moved it) or the answer is older than the refresh interval (a pod's wait can change without
// the app changing: a pull that keeps failing, a scheduler that finds room). Sans-IO: the caller
// gives the time. Bounded: at most `max_entries`; when full, the stale entries go, and when all
// are fresh, all go (the next Status of each looks again).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "spark/waiting.h"

namespace kje::executor {

class WaitingMemo {
 public:
  WaitingMemo(size_t max_entries, absl::Duration refresh);

  // The reason remembered for the app `uid` at `epoch`, looked up less than `refresh` before
  // `now`; nullopt otherwise.
  std::optional<spark::Waiting> Fresh(std::string_view uid, std::string_view epoch,
                                      absl::Time now) const;
  void Remember(std::string_view uid, std::string_view epoch, absl::Time now,
                spark::Waiting waiting);
  size_t size() const;
  // The reasons looked up less than twice the refresh interval before `now`, counted by reason
  // (a waiting job is looked at again each interval while anybody asks for it).
  std::vector<std::pair<spark::WaitingReason, int64_t>> CountRecent(absl::Time now) const;

 private:
  struct Entry {
    std::string epoch;
    absl::Time looked_at;
    spark::Waiting waiting;
  };
  const size_t max_entries_;
  const absl::Duration refresh_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje::executor
