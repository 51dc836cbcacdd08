#pragma once

// What became of the kept records this replica set out to write (a metric): written with the
// log, written saying why the log wasn't kept, written first by another replica, or failed (the
// next pass tries again). Bounded: these four outcomes only.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kje::executor {

enum class RecordOutcome : uint8_t { kKept = 0, kNotKept = 1, kLostRace = 2, kFailed = 3 };
inline constexpr size_t kRecordOutcomeCount = 4;

// The metric's label value: kept, not_kept, lost_race, failed.
constexpr std::string_view RecordOutcomeName(RecordOutcome outcome) {
  switch (outcome) {
    case RecordOutcome::kKept:
      return "kept";
    case RecordOutcome::kNotKept:
      return "not_kept";
    case RecordOutcome::kLostRace:
      return "lost_race";
    case RecordOutcome::kFailed:
      return "failed";
  }
  return "failed";
}

// Thread-safe counts by outcome.
class RecordOutcomes {
 public:
  void Add(RecordOutcome outcome) {
    counts_[static_cast<size_t>(outcome)].fetch_add(1, std::memory_order_relaxed);
  }
  int64_t Count(RecordOutcome outcome) const {
    return counts_[static_cast<size_t>(outcome)].load(std::memory_order_relaxed);
  }

 private:
  std::array<std::atomic<int64_t>, kRecordOutcomeCount> counts_{};
};

}  // namespace kje::executor
