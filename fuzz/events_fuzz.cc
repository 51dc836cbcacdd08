// The Events RPC and the waiting reader read core/v1 Events from the API server: objects anyone
// allowed to create Events can fill with anything. Input: an EventList's JSON.
// Invariants: projecting never fails on an object; a count is at least one; a time is one an
// answer's Timestamp can carry; the order is total (sorting a reversed copy gives the same
// sequence of keys) and a second sort changes nothing.

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "k8s/event.h"
#include "rapidjson/document.h"

namespace {

using kje::k8s::Event;

// The order's own key: an event without a time sorts as the infinite past.
auto Key(const Event& e) {
  return std::make_tuple(e.first_seen.value_or(absl::InfinitePast()),
                         e.last_seen.value_or(absl::InfinitePast()), e.name);
}

bool InTimestampRange(const std::optional<absl::Time>& t) {
  return !t ||
         (*t >= absl::FromUnixSeconds(-62135596800) && *t <= absl::FromUnixSeconds(253402300799));
}

bool SameKeys(const std::vector<Event>& a, const std::vector<Event>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Key(a[i]) != Key(b[i])) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = kje::fuzz::AsText(data, size);
  rapidjson::Document list;
  list.Parse(text.data(), text.size());
  if (list.HasParseError() || !list.IsObject()) return 0;
  auto items = list.FindMember("items");
  if (items == list.MemberEnd() || !items->value.IsArray()) return 0;
  std::vector<Event> events;
  for (const rapidjson::Value& item : items->value.GetArray()) {
    auto event = kje::k8s::ProjectEvent(item);
    FUZZ_CHECK(event.ok() == item.IsObject());
    if (!event.ok()) continue;
    FUZZ_CHECK(event->count >= 1);
    FUZZ_CHECK(InTimestampRange(event->first_seen) && InTimestampRange(event->last_seen));
    events.push_back(*std::move(event));
  }
  std::vector<Event> sorted = events;
  kje::k8s::SortOldestFirst(sorted);
  std::vector<Event> reversed(events.rbegin(), events.rend());
  kje::k8s::SortOldestFirst(reversed);
  FUZZ_CHECK(SameKeys(sorted, reversed));
  std::vector<Event> again = sorted;
  kje::k8s::SortOldestFirst(again);
  FUZZ_CHECK(SameKeys(sorted, again));
  // Events without a first time come first: no time left is the infinite past itself.
  bool seen_timed = false;
  for (const Event& e : sorted) {
    if (e.first_seen) seen_timed = true;
    FUZZ_CHECK(e.first_seen || !seen_timed);
  }
  return 0;
}
