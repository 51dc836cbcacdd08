#pragma once

// A core/v1 Event as a reader of an object's history needs it, and the order `kubectl describe`
// shows them in. Pure: no I/O.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "rapidjson/document.h"

namespace kje::k8s {

struct Event {
  std::string name;         // metadata.name
  std::string object_kind;  // involvedObject.kind, e.g. "Pod"
  std::string object_name;
  std::string reason;
  std::string type;  // "Normal" or "Warning"
  std::string message;
  int64_t count = 1;  // how often the recorder saw it; an event without a count happened once
  // "<component>" or "<component>, <host>", as kubectl shows it: the events.k8s.io fields
  // (reportingComponent, reportingInstance) when the older source is empty.
  std::string source;
  std::optional<absl::Time> first_seen;  // firstTimestamp, else eventTime, else creation
  std::optional<absl::Time> last_seen;   // lastTimestamp, else series.lastObservedTime, else first
};

// INVALID_ARGUMENT for a value that isn't an object; missing or mistyped fields stay empty
// (an event with an unreadable time still shows, without it).
absl::StatusOr<Event> ProjectEvent(const rapidjson::Value& event);

// Oldest first: by first_seen (events without one first), then last_seen, then name, so the
// order is total and the same on every replica.
void SortOldestFirst(std::vector<Event>& events);

}  // namespace kje::k8s
