#pragma once

// Interned strings: one copy of each distinct text for the life of the process, shared by every
// holder. The informer caches keep hundreds of thousands of applications whose namespace, label
// keys and driver container name repeat; each holds a pointer instead of its own copy. The pool
// never shrinks, so it is bounded in bytes: past the bound Intern answers nullptr and the caller
// keeps its own copy, which costs memory but never correctness.

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/node_hash_set.h"
#include "absl/synchronization/mutex.h"

namespace kje {

class Interner {
 public:
  explicit Interner(size_t max_bytes) : max_bytes_(max_bytes) {}
  Interner(const Interner&) = delete;
  Interner& operator=(const Interner&) = delete;

  // The pooled copy of `text`, stable until the process ends; nullptr when adding it would take
  // the pool past its bound.
  const std::string* Intern(std::string_view text) ABSL_LOCKS_EXCLUDED(mu_);
  // Texts longer than this are never pooled: a label key is at most 317 bytes, a namespace 63.
  static constexpr size_t kMaxTextBytes = 320;

  void set_max_bytes(size_t max_bytes) ABSL_LOCKS_EXCLUDED(mu_);
  size_t bytes() const ABSL_LOCKS_EXCLUDED(mu_);
  size_t size() const ABSL_LOCKS_EXCLUDED(mu_);

  // The process's pool (server.maxInternedBytes sets its bound at start).
  static Interner& Global();
  static constexpr size_t kDefaultMaxBytes = size_t{1} << 20;

 private:
  mutable absl::Mutex mu_;
  absl::node_hash_set<std::string> pool_ ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  size_t max_bytes_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kje
