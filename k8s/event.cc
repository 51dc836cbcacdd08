#include "k8s/event.h"

#include <algorithm>
#include <string_view>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace kje::k8s {
namespace {

const rapidjson::Value* Member(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string String(const rapidjson::Value* object, const char* name) {
  if (object == nullptr) return "";
  const rapidjson::Value* v = Member(*object, name);
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : "";
}

// The range of google.protobuf.Timestamp: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
constexpr absl::Time kEarliest = absl::FromUnixSeconds(-62135596800);
constexpr absl::Time kLatest = absl::FromUnixSeconds(253402300799);

std::optional<absl::Time> Time(const rapidjson::Value* object, const char* name) {
  std::string text = String(object, name);
  if (text.empty()) return std::nullopt;
  absl::Time t;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, text, &t, &error)) return std::nullopt;
  // absl also reads "infinite-past" and years past 9999, which no API server writes and no
  // Timestamp of an answer can carry: such a time is unreadable, as a malformed one is.
  if (t < kEarliest || t > kLatest) return std::nullopt;
  return t;
}

std::string Source(const rapidjson::Value& event) {
  const rapidjson::Value* source = Member(event, "source");
  std::string component = String(source, "component");
  std::string host = String(source, "host");
  if (component.empty()) {
    component = String(&event, "reportingComponent");
    host = String(&event, "reportingInstance");
  }
  if (host.empty() || host == component) return component;
  return absl::StrCat(component, ", ", host);
}

}  // namespace

absl::StatusOr<Event> ProjectEvent(const rapidjson::Value& event) {
  if (!event.IsObject()) return absl::InvalidArgumentError("an event is not a JSON object");
  Event out;
  const rapidjson::Value* metadata = Member(event, "metadata");
  const rapidjson::Value* involved = Member(event, "involvedObject");
  out.name = String(metadata, "name");
  out.object_kind = String(involved, "kind");
  out.object_name = String(involved, "name");
  out.reason = String(&event, "reason");
  out.type = String(&event, "type");
  out.message = String(&event, "message");
  if (const rapidjson::Value* count = Member(event, "count");
      count != nullptr && count->IsInt64() && count->GetInt64() > 0) {
    out.count = count->GetInt64();
  } else if (const rapidjson::Value* series = Member(event, "series")) {
    const rapidjson::Value* n = Member(*series, "count");
    if (n != nullptr && n->IsInt64() && n->GetInt64() > 0) out.count = n->GetInt64();
  }
  out.source = Source(event);
  out.first_seen = Time(&event, "firstTimestamp");
  if (!out.first_seen) out.first_seen = Time(&event, "eventTime");
  if (!out.first_seen) out.first_seen = Time(metadata, "creationTimestamp");
  out.last_seen = Time(&event, "lastTimestamp");
  if (!out.last_seen) out.last_seen = Time(Member(event, "series"), "lastObservedTime");
  if (!out.last_seen) out.last_seen = out.first_seen;
  return out;
}

void SortOldestFirst(std::vector<Event>& events) {
  auto key = [](const Event& e) {
    return std::make_tuple(e.first_seen.value_or(absl::InfinitePast()),
                           e.last_seen.value_or(absl::InfinitePast()), std::string_view(e.name));
  };
  std::stable_sort(events.begin(), events.end(),
                   [&](const Event& a, const Event& b) { return key(a) < key(b); });
}

}  // namespace kje::k8s
