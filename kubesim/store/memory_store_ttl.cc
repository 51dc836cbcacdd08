// Objects with a time to live (Events): the API server writes each with an etcd lease of
// --event-ttl, renewed by every write, so an Event outlives the object it is about (a deleted
// pod's Events stay for the rest of their hour) and goes on its own once nothing rewrote it.

#include "kubesim/store/memory_store.h"

namespace kubesim::store_internal {

void MemoryStore::RenewLease(Bucket& b, const std::string& key) {
  DropLease(b, key);
  const int64_t at = now_ms_() + b.ttl_ms;
  b.expires_at[key] = at;
  b.expiries.emplace(at, key);
}

void MemoryStore::DropLease(Bucket& b, const std::string& key) {
  auto it = b.expires_at.find(key);
  if (it == b.expires_at.end()) return;
  b.expiries.erase({it->second, key});
  b.expires_at.erase(it);
}

size_t MemoryStore::ExpireTtl() {
  Locked lock(this);
  const int64_t now = now_ms_();
  size_t expired = 0;
  for (auto& [bkey, b] : buckets_) {
    while (!b->expiries.empty() && b->expiries.begin()->first <= now) {
      const std::string key = b->expiries.begin()->second;
      // Remove drops the lease; an object already gone has none.
      if (b->objects.count(key) == 0) {
        DropLease(*b, key);
        continue;
      }
      Remove(*b, key, std::nullopt);
      ++expired;
    }
  }
  return expired;
}

}  // namespace kubesim::store_internal
