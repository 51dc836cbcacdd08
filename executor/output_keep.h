#pragma once

// Which jobs owe a kept record (executor/kept_record.h), and the bounded queue of those waiting
// for one on a replica. Pure: the capture itself is output_keep.cc's coroutine.
//
// Every replica follows the same transitions, so each queues the same jobs; the record is written
// once because its name is the application's and a second create gets 409. A job is owed a
// record once it is terminal (the driver has stopped for good) and until its application carries
// the output label: so a replica that restarts, or that dropped a job from a full queue, finds it
// again on its next pass over the cache.

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "cache/app_informer.h"
#include "spark/app_projection.h"
#include "spark/job_status.h"
#include "spark/log_tail.h"

namespace kje::executor {

// Whether the job of `app` (mapped to `info`) owes a kept record now: one of ours, named by this
// deployment (`<name_prefix>-...`: another deployment sharing the namespace keeps its own jobs'
// records, under its own rights), terminal, not being deleted (a record owned by an application
// on its way out would go with it at once), and without the output label.
bool OwesKeptRecord(const spark::AppProjection& app, const spark::JobStatusInfo& info,
                    std::string_view name_prefix);

// A replica stopping a job in keep mode reads the record before its stop ends the driver, marks
// the app, then writes it. The mark alone can make the job terminal (an operator that stops on
// it), so another replica's keeper may see the job owe a record in between: capturing then, it
// would find the driver gone and write "not kept" first. It leaves the record to the stopper for
// this long after the mark (the stopper may die before writing it).
inline constexpr absl::Duration kKeptRecordGrace = absl::Minutes(2);

// Until when, seen at `now`, the record of `app` is left to the replica that stopped it in keep
// mode; nullopt when the keeper may capture it now.
std::optional<absl::Time> LeftToStopperUntil(const spark::AppProjection& app, absl::Time now);

// Where the job's output comes from as far as the application says, without a request: none
// before it has a driver, then the pod's log, then (once the record is written, its label on the
// app) the kept tail or why there is none; and the driver's exit code once recorded.
struct OutputState {
  spark::OutputSource source = spark::OutputSource::kNone;
  std::string_view note;  // static text
  std::optional<int32_t> exit_code;
};
OutputState OutputStateOf(const spark::AppProjection& app, const spark::JobStatusInfo& info);

// The jobs waiting for a capture, oldest first, each once (by application uid), at most
// `max_pending`: beyond it a job is refused (and found again on the next pass).
class KeepQueue {
 public:
  explicit KeepQueue(size_t max_pending) : max_pending_(max_pending) {}

  // false when the job is already queued or taken, or the queue is full.
  bool Add(cache::AppPtr app);
  // The oldest job, now in flight until Done; null when none waits.
  cache::AppPtr Take();
  // The capture of `uid` is over: the job may be queued again (if it still owes a record).
  void Done(const std::string& uid);
  size_t pending() const { return pending_.size(); }
  size_t refused() const { return refused_; }

 private:
  const size_t max_pending_;
  std::deque<cache::AppPtr> pending_;
  absl::flat_hash_set<std::string> known_;  // queued or in flight
  size_t refused_ = 0;
};

}  // namespace kje::executor
