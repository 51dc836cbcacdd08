#include "executor/waiting_memo.h"

#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "base/strings.h"

namespace kje::executor {

WaitingMemo::WaitingMemo(size_t max_entries, absl::Duration refresh)
    : max_entries_(max_entries), refresh_(refresh) {}

std::optional<spark::Waiting> WaitingMemo::Fresh(std::string_view uid, std::string_view epoch,
                                                 absl::Time now) const {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(ToAbsl(uid));
  if (it == entries_.end() || it->second.epoch != epoch || now - it->second.looked_at >= refresh_) {
    return std::nullopt;
  }
  return it->second.waiting;
}

void WaitingMemo::Remember(std::string_view uid, std::string_view epoch, absl::Time now,
                           spark::Waiting waiting) {
  if (uid.empty() || max_entries_ == 0) return;
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(ToAbsl(uid));
  if (it == entries_.end() && entries_.size() >= max_entries_) {
    absl::erase_if(entries_,
                   [&](const auto& entry) { return now - entry.second.looked_at >= refresh_; });
    if (entries_.size() >= max_entries_) entries_.clear();
  }
  entries_.insert_or_assign(std::string(uid), Entry{std::string(epoch), now, std::move(waiting)});
}

std::vector<std::pair<spark::WaitingReason, int64_t>> WaitingMemo::CountRecent(
    absl::Time now) const {
  std::map<spark::WaitingReason, int64_t> counts;
  absl::MutexLock lock(&mu_);
  for (const auto& [uid, entry] : entries_) {
    if (entry.waiting.reason == spark::WaitingReason::kNone) continue;
    if (now - entry.looked_at < 2 * refresh_) ++counts[entry.waiting.reason];
  }
  return {counts.begin(), counts.end()};
}

size_t WaitingMemo::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

}  // namespace kje::executor
