#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "async/bounded_queue.h"
#include "executor/job_executor.h"
#include "spark/log_tail.h"

namespace kje::executor {

// The bytes of a followed log, cut into lines as they arrive on the client's thread, held for
// the stream's loop up to a byte bound (beyond it lines are counted, not kept).
class LogBuffer {
 public:
  static constexpr size_t kMaxBatchLines = 1000;

  explicit LogBuffer(size_t max_bytes) : lines_(max_bytes) {}

  // Chunk and End come from the one reading coroutine, one after the other, so the lines reach
  // the queue in the log's order.
  void Chunk(std::string_view bytes) {
    std::vector<std::string> lines;
    {
      absl::MutexLock lock(&mu_);
      received_ = true;
      lines = splitter_.Feed(bytes);
    }
    lines_.PushAll(std::move(lines));
  }

  void End(absl::Status status) {
    std::vector<std::string> rest;
    {
      absl::MutexLock lock(&mu_);
      if (status.ok()) rest = splitter_.Flush();
      end_ = std::move(status);
    }
    lines_.PushAll(std::move(rest));
    lines_.Close();
  }

  struct Taken {
    OutputBatch batch;
    bool ended = false;
    bool received = false;
    absl::Status end;
  };
  // Up to kMaxBatchLines lines; `ended` only once every line has been taken.
  Taken Take() {
    Lines::Taken taken = lines_.Take(kMaxBatchLines);
    Taken out;
    out.batch.lines = std::move(taken.items);
    out.batch.dropped_lines = taken.dropped;
    out.ended = taken.ended;
    // Set before the queue closed, so an end seen above comes with its status.
    absl::MutexLock lock(&mu_);
    out.received = received_;
    out.end = end_;
    return out;
  }

  // Calls `wake` once when more arrives, or at once if something is waiting.
  void OnReady(std::function<void()> wake) { lines_.OnReady(std::move(wake)); }

 private:
  struct Bytes {
    size_t operator()(const std::string& line) const { return line.size(); }
  };
  using Lines = async::BoundedQueue<std::string, async::Overflow::kDropAndCount, Bytes>;

  Lines lines_;
  absl::Mutex mu_;
  spark::LogLines splitter_ ABSL_GUARDED_BY(mu_);
  bool received_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status end_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje::executor
