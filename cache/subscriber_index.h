#pragma once

// Who wants which application's changes: the subscriptions by the names they follow, and those
// that follow every application. Each list is replaced, never changed in place, so a publisher
// takes the two lists that matter for one change under its lock and hands the change over
// outside it. A change costs what its own subscribers cost, whatever the number of streams open
// on other applications; adding or removing a subscription copies only its names' lists.
//
// Not synchronised: the informer guards it with its subscribers' mutex.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace kje::cache {

class Subscription;

class SubscriberIndex {
 public:
  using List = std::vector<std::shared_ptr<Subscription>>;
  // The subscriptions that want a change of one application: those following every application
  // and those following it by name. Either may be null.
  struct Wanting {
    std::shared_ptr<const List> all;
    std::shared_ptr<const List> named;
  };

  // `names` empty: every application.
  void Add(const std::shared_ptr<Subscription>& subscription,
           const std::vector<std::string>& names);
  void Remove(const std::shared_ptr<Subscription>& subscription,
              const std::vector<std::string>& names);
  Wanting For(std::string_view name) const;
  size_t size() const { return size_; }
  // Every subscription (once each), leaving the index empty.
  List TakeAll();

 private:
  static std::shared_ptr<const List> With(const std::shared_ptr<const List>& list,
                                          const std::shared_ptr<Subscription>& subscription);
  // Null when nothing is left.
  static std::shared_ptr<const List> Without(const std::shared_ptr<const List>& list,
                                             const std::shared_ptr<Subscription>& subscription);

  std::shared_ptr<const List> all_;
  absl::flat_hash_map<std::string, std::shared_ptr<const List>> by_name_;
  size_t size_ = 0;
};

}  // namespace kje::cache
