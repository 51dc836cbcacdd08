#pragma once

// The body of a watch response is one JSON event per line, and the transport hands it over in
// chunks that end anywhere: mid-line, mid-UTF-8 character, or after many lines. This decoder
// turns those chunks into events, without I/O, so the framing can be tested and fuzzed alone.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "k8s/resource.h"

namespace kje::k8s {

class WatchStreamDecoder {
 public:
  using EventCallback = std::function<void(const WatchEvent&)>;

  // `resource_label` names the watched resources in errors; one line may hold at most
  // `max_event_bytes` bytes before its line feed.
  WatchStreamDecoder(std::string resource_label, size_t max_event_bytes)
      : resource_label_(std::move(resource_label)), max_event_bytes_(max_event_bytes) {}

  // Hands every event the chunk completes to `on_event`, in order; blank lines are skipped. The
  // first line that isn't a watch event ends it with that line's error (an ERROR event: the
  // error it carries), the events before it delivered. RESOURCE_EXHAUSTED once the unfinished
  // line is longer than max_event_bytes.
  absl::Status Feed(std::string_view chunk, const EventCallback& on_event);

  // Forgets the unfinished line: the next chunk starts a new stream.
  void Reset() { pending_.clear(); }

  // The bytes of the unfinished line held now.
  size_t pending_bytes() const { return pending_.size(); }

 private:
  std::string resource_label_;
  size_t max_event_bytes_;
  std::string pending_;  // Never holds a line feed between calls.
};

}  // namespace kje::k8s
