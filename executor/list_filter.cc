#include "executor/list_filter.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace kje::executor {
namespace {

bool InRange(const std::optional<absl::Time>& t, const std::optional<absl::Time>& after,
             const std::optional<absl::Time>& before) {
  if (!after && !before) return true;
  if (!t) return false;
  if (after && *t < *after) return false;
  if (before && *t >= *before) return false;
  return true;
}

absl::Status CheckRange(const char* what, const std::optional<absl::Time>& after,
                        const std::optional<absl::Time>& before) {
  if (!after || !before || *after < *before) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      what, "_after (", absl::FormatTime(absl::RFC3339_full, *after, absl::UTCTimeZone()),
      ") must be before ", what, "_before (",
      absl::FormatTime(absl::RFC3339_full, *before, absl::UTCTimeZone()), "): no job is in [", what,
      "_after, ", what, "_before)"));
}

}  // namespace

bool ListFilter::Matches(const spark::JobStatusInfo& info,
                         std::optional<absl::Time> created_at) const {
  if (statuses != 0 && (statuses & (uint32_t{1} << static_cast<int>(info.status))) == 0) {
    return false;
  }
  return InRange(created_at, created_after, created_before) &&
         InRange(info.finished_at, finished_after, finished_before);
}

absl::Status CheckListFilter(const ListFilter& filter) {
  if (absl::Status bad = CheckRange("created", filter.created_after, filter.created_before);
      !bad.ok()) {
    return bad;
  }
  return CheckRange("finished", filter.finished_after, filter.finished_before);
}

}  // namespace kje::executor
