#include "k8s/watch_stream.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/strings.h"

namespace kje::k8s {

absl::Status WatchStreamDecoder::Feed(std::string_view chunk, const EventCallback& on_event) {
  // The held bytes have no line feed, so only the new ones need searching: a long line arriving
  // in small chunks costs linear time, not quadratic.
  size_t search_from = pending_.size();
  pending_.append(chunk);
  size_t start = 0;
  for (size_t nl; (nl = pending_.find('\n', search_from)) != std::string::npos;
       start = search_from = nl + 1) {
    std::string_view line(pending_.data() + start, nl - start);
    if (IsBlank(line)) continue;
    absl::StatusOr<WatchEvent> event = ParseWatchEvent(line);
    if (!event.ok()) return event.status();
    on_event(*event);
  }
  pending_.erase(0, start);
  if (pending_.size() > max_event_bytes_) {
    return absl::ResourceExhaustedError(absl::StrCat("kubernetes: a watch event of ",
                                                     resource_label_, " is larger than ",
                                                     max_event_bytes_, " bytes"));
  }
  return absl::OkStatus();
}

}  // namespace kje::k8s
