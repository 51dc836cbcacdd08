#include "cache/subscriber_index.h"

#include <catch2/catch.hpp>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cache/app_informer.h"

namespace kje::cache {
namespace {

std::shared_ptr<Subscription> Sub(std::vector<std::string> names) {
  return std::make_shared<Subscription>(std::move(names), std::make_shared<Mailbox<AppEvent>>(16));
}

// The subscriptions For(name) hands a change of `name` to.
std::set<Subscription*> Wanting(const SubscriberIndex& index, const std::string& name) {
  std::set<Subscription*> out;
  SubscriberIndex::Wanting w = index.For(name);
  for (const auto* list : {w.all.get(), w.named.get()}) {
    if (list == nullptr) continue;
    for (const auto& s : *list) CHECK(out.insert(s.get()).second);  // never twice
  }
  return out;
}

TEST_CASE("subscriber index: a change reaches who follows its name or everything, only them") {
  SubscriberIndex index;
  auto a = Sub({"a"});
  auto ab = Sub({"a", "b", "b"});
  auto every = Sub({});
  for (const auto& s : {a, ab, every}) index.Add(s, s->names());
  CHECK(index.size() == 3);
  CHECK(Wanting(index, "a") == std::set<Subscription*>{a.get(), ab.get(), every.get()});
  CHECK(Wanting(index, "b") == std::set<Subscription*>{ab.get(), every.get()});
  CHECK(Wanting(index, "c") == std::set<Subscription*>{every.get()});

  // A snapshot taken before a removal is not changed by it.
  SubscriberIndex::Wanting before = index.For("a");
  index.Remove(ab, ab->names());
  CHECK(before.named->size() == 2);
  CHECK(index.size() == 2);
  CHECK(Wanting(index, "a") == std::set<Subscription*>{a.get(), every.get()});
  CHECK(Wanting(index, "b") == std::set<Subscription*>{every.get()});
  index.Remove(ab, ab->names());  // twice is harmless
  CHECK(index.size() == 2);

  index.Remove(every, every->names());
  CHECK(Wanting(index, "c").empty());
  CHECK(index.size() == 1);
}

TEST_CASE("subscriber index: TakeAll gives each subscription once and empties the index") {
  SubscriberIndex index;
  std::vector<std::shared_ptr<Subscription>> subs;
  for (int i = 0; i < 1000; ++i) {
    subs.push_back(Sub({"app-" + std::to_string(i), "shared"}));
    index.Add(subs.back(), subs.back()->names());
  }
  index.Add(Sub({}), {});
  CHECK(index.size() == 1001);
  // One name's list holds only its own: 1,000 streams on other apps are not in it.
  CHECK(index.For("app-7").named->size() == 1);
  CHECK(index.For("shared").named->size() == 1000);
  SubscriberIndex::List all = index.TakeAll();
  CHECK(all.size() == 1001);
  CHECK(index.size() == 0);
  CHECK(Wanting(index, "shared").empty());
}

}  // namespace
}  // namespace kje::cache
