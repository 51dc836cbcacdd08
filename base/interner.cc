#include "base/interner.h"

#include "base/strings.h"

namespace kje {
namespace {

// What one pooled text costs beyond its characters: the node, the string and the table's slot.
constexpr size_t kEntryOverhead = sizeof(std::string) + 2 * sizeof(void*);

}  // namespace

const std::string* Interner::Intern(std::string_view text) {
  if (text.size() > kMaxTextBytes) return nullptr;
  absl::MutexLock lock(&mu_);
  auto it = pool_.find(ToAbsl(text));
  if (it != pool_.end()) return &*it;
  size_t cost = text.size() + 1 + kEntryOverhead;
  if (bytes_ + cost > max_bytes_) return nullptr;
  bytes_ += cost;
  return &*pool_.emplace(text).first;
}

void Interner::set_max_bytes(size_t max_bytes) {
  absl::MutexLock lock(&mu_);
  max_bytes_ = max_bytes;
}

size_t Interner::bytes() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

size_t Interner::size() const {
  absl::MutexLock lock(&mu_);
  return pool_.size();
}

Interner& Interner::Global() {
  static Interner* pool = new Interner(kDefaultMaxBytes);
  return *pool;
}

}  // namespace kje
