// Watches: per-watcher queues fed from each type's event history, selector transitions, and the
// bounded history that answers watches from a resourceVersion.

#include <algorithm>

#include "kubesim/store/memory_store.h"

namespace kubesim::store_internal {

namespace json = boost::json;

std::vector<WatchEvent> WatcherImpl::Drain() {
  std::deque<QueuedEvent> taken;
  {
    std::lock_guard<std::mutex> lock(mu_);
    taken.swap(queue_);
  }
  std::vector<WatchEvent> out;
  out.reserve(taken.size());
  json::storage_ptr sp = taken.empty() ? json::storage_ptr() : Arena();
  for (QueuedEvent& e : taken) {
    if (e.obj == nullptr) {
      out.push_back(WatchEvent{e.type, std::move(e.status)});
      continue;
    }
    json::object o = e.obj->Object(sp);
    o["apiVersion"] = api_version_;
    o["kind"] = kind_;
    out.push_back(WatchEvent{e.type, std::move(o)});
  }
  return out;
}

std::string WatcherImpl::BookmarkResourceVersion() const {
  // Read the published version first: every event at or below it was queued before it was
  // published, so an empty queue means all of them were drained.
  uint64_t published = published_rv_->load(std::memory_order_acquire);
  std::lock_guard<std::mutex> lock(mu_);
  if (!queue_.empty()) return std::to_string(queue_.front().floor);
  return std::to_string(published);
}

void WatcherImpl::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  queue_.clear();
}

bool WatcherImpl::Stopped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_;
}

bool WatcherImpl::Matches(const Stored& s) const {
  if (!ns_.empty() && GetString(Meta(s.shell), "namespace") != ns_) return false;
  if (!labels_.Matches(GetObject(Meta(s.shell), "labels"))) return false;
  return fields_.Empty() || fields_.Matches(fields_.OnlyMetadata() ? s.shell : s.Object());
}

// Translates a store event into what this watcher sees (selector transitions included).
// Returns true when the watcher wants a notification.
bool WatcherImpl::Offer(const HistoryEvent& e) {
  bool now = e.type != EventType::kDeleted && Matches(*e.obj);
  bool before = e.prev != nullptr && Matches(*e.prev);
  const char* type = nullptr;
  if (e.type == EventType::kDeleted) {
    if (before) type = "DELETED";
  } else if (now && before) {
    type = "MODIFIED";
  } else if (now) {
    type = "ADDED";
  } else if (before) {
    type = "DELETED";
  }
  if (type == nullptr) return false;
  return Push(QueuedEvent{type, e.obj, {}, e.rv - 1});
}

bool WatcherImpl::Push(QueuedEvent e) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return false;
  if (queue_.size() >= max_queue_) {
    queue_.clear();
    ApiError gone = Expired("The resourceVersion for the provided watch is too old.");
    queue_.push_back(QueuedEvent{"ERROR", nullptr, StatusObject(gone), 0});
    stopped_ = true;  // no more events; the ERROR is still delivered by Drain
    return true;
  }
  queue_.push_back(std::move(e));
  return true;
}

bool WatcherImpl::Expire() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return false;
  ApiError gone = Expired("The resourceVersion for the provided watch is too old.");
  queue_.push_back(QueuedEvent{"ERROR", nullptr, StatusObject(gone), 0});
  stopped_ = true;
  return true;
}

Result<std::shared_ptr<WatchHandle>> MemoryStore::Watch(const ResourceType& type_in,
                                                        std::string_view ns_in,
                                                        const ListOptions& options,
                                                        std::function<void()> notify) {
  Locked lock(this);
  const ResourceType* type = Lookup(type_in);
  if (type == nullptr) return NoSuchType();
  Bucket& b = BucketOf(*type);
  std::string ns = type->namespaced ? std::string(ns_in) : "";
  auto labels = LabelSelector::Parse(options.label_selector);
  if (!labels.ok()) return labels.error();
  auto fields = FieldSelector::Parse(options.field_selector, SupportedFieldSelectors(*type));
  if (!fields.ok()) return fields.error();
  auto watcher = std::make_shared<WatcherImpl>(ns, std::move(labels.value()),
                                               std::move(fields.value()), type->api_version(),
                                               type->kind, std::move(notify), published_rv_);
  size_t initial = 0;
  if (options.resource_version.empty() || options.resource_version == "0") {
    std::string prefix = ns.empty() ? "" : ns + "/";
    for (auto it = b.objects.lower_bound(prefix); it != b.objects.end(); ++it) {
      if (!prefix.empty() && !std::string_view(it->first).starts_with(prefix)) break;
      if (!watcher->Matches(*it->second)) continue;
      ++initial;
      watcher->SetInitialCount(initial);
      watcher->Push(QueuedEvent{"ADDED", it->second, {}, rv_});
    }
  } else {
    auto rv = ParseRv(options.resource_version);
    if (!rv) {
      return BadRequest("Invalid value: \"" + options.resource_version +
                        "\": resourceVersion must be an unsigned integer");
    }
    if (*rv < b.compacted_rv) {
      return Expired("too old resource version: " + std::to_string(*rv) + " (" +
                     std::to_string(b.compacted_rv) + ")");
    }
    auto first = std::upper_bound(b.history.begin(), b.history.end(), *rv,
                                  [](uint64_t v, const HistoryEvent& e) { return v < e.rv; });
    for (auto it = first; it != b.history.end(); ++it) watcher->Offer(*it);
  }
  b.watchers.push_back(watcher);
  if (watcher->notify()) notifications_.push_back(watcher->notify());
  return std::shared_ptr<WatchHandle>(watcher);
}

void MemoryStore::Record(Bucket& b, HistoryEvent e) {
  for (auto it = b.watchers.begin(); it != b.watchers.end();) {
    std::shared_ptr<WatcherImpl> w = it->lock();
    if (w == nullptr || w->Stopped()) {
      it = b.watchers.erase(it);
      continue;
    }
    if (w->Offer(e) && w->notify()) notifications_.push_back(w->notify());
    ++it;
  }
  b.history.push_back(std::move(e));
  while (b.history.size() > kHistoryPerType) {
    b.compacted_rv = b.history.front().rv;
    b.history.pop_front();
  }
}

void MemoryStore::Compact() {
  Locked lock(this);
  for (auto& [k, b] : buckets_) {
    b->history.clear();
    b->compacted_rv = rv_;
  }
}

size_t MemoryStore::ExpireWatches() {
  Locked lock(this);
  size_t expired = 0;
  for (auto& [k, b] : buckets_) {
    for (const auto& weak : b->watchers) {
      std::shared_ptr<WatcherImpl> w = weak.lock();
      if (w == nullptr || !w->Expire()) continue;
      ++expired;
      if (w->notify()) notifications_.push_back(w->notify());
    }
    b->watchers.clear();
  }
  return expired;
}

}  // namespace kubesim::store_internal
