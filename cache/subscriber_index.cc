#include "cache/subscriber_index.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "base/strings.h"

namespace kje::cache {

std::shared_ptr<const SubscriberIndex::List> SubscriberIndex::With(
    const std::shared_ptr<const List>& list, const std::shared_ptr<Subscription>& subscription) {
  auto next = list != nullptr ? std::make_shared<List>(*list) : std::make_shared<List>();
  next->push_back(subscription);
  return next;
}

std::shared_ptr<const SubscriberIndex::List> SubscriberIndex::Without(
    const std::shared_ptr<const List>& list, const std::shared_ptr<Subscription>& subscription) {
  if (list == nullptr) return nullptr;
  auto next = std::make_shared<List>();
  next->reserve(list->size());
  for (const auto& s : *list) {
    if (s != subscription) next->push_back(s);
  }
  if (next->empty()) return nullptr;
  return next;
}

void SubscriberIndex::Add(const std::shared_ptr<Subscription>& subscription,
                          const std::vector<std::string>& names) {
  ++size_;
  if (names.empty()) {
    all_ = With(all_, subscription);
    return;
  }
  for (const std::string& name : names) {
    std::shared_ptr<const List>& list = by_name_[name];
    // A name given twice is followed once.
    if (list != nullptr && std::find(list->begin(), list->end(), subscription) != list->end()) {
      continue;
    }
    list = With(list, subscription);
  }
}

void SubscriberIndex::Remove(const std::shared_ptr<Subscription>& subscription,
                             const std::vector<std::string>& names) {
  bool found = false;
  if (names.empty()) {
    found = all_ != nullptr && std::find(all_->begin(), all_->end(), subscription) != all_->end();
    all_ = Without(all_, subscription);
  }
  for (const std::string& name : names) {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) continue;
    if (std::find(it->second->begin(), it->second->end(), subscription) != it->second->end()) {
      found = true;
    }
    it->second = Without(it->second, subscription);
    if (it->second == nullptr) by_name_.erase(it);
  }
  if (found) --size_;
}

SubscriberIndex::Wanting SubscriberIndex::For(std::string_view name) const {
  Wanting wanting;
  wanting.all = all_;
  if (auto it = by_name_.find(ToAbsl(name)); it != by_name_.end()) wanting.named = it->second;
  return wanting;
}

SubscriberIndex::List SubscriberIndex::TakeAll() {
  List every;
  absl::flat_hash_set<Subscription*> seen;
  auto take = [&](const std::shared_ptr<const List>& list) {
    if (list == nullptr) return;
    for (const auto& s : *list) {
      if (seen.insert(s.get()).second) every.push_back(s);
    }
  };
  take(all_);
  for (const auto& [name, list] : by_name_) take(list);
  all_ = nullptr;
  by_name_.clear();
  size_ = 0;
  return every;
}

}  // namespace kje::cache
