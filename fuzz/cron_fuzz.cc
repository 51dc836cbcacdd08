// Differential: the service's schedule check (spark/kubeflow/cron_check.h), which decides what a
// CreateSchedule or UpdateSchedule may write, against kubesim's re-implementation of the
// operator's own parser (kubesim/schedule/cron.h), which the end-to-end tests trust as the
// controller. A schedule or zone the service accepts must be one the controller accepts: else it
// is parked in FailedValidation for good. The service may refuse more, but only what it documents
// as stricter: an `@every` of zero or less, a `*-n` or `?-n` range (the operator reads `*`), and
// a schedule that never runs.
// Input: the time zone, then a `%%` line and the schedule (without one, the whole input is the
// schedule and the zone is empty).

#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "fuzz/fuzz_check.h"
#include "kubesim/schedule/cron.h"
#include "spark/kubeflow/cron_check.h"

namespace kubeflow = kje::spark::kubeflow;
namespace sim = kubesim::schedule;

namespace {

// The `@every` descriptor's duration is zero or negative (or unreadable, as Go reads it).
bool NonPositiveEvery(std::string_view spec) {
  const std::string lower = absl::AsciiStrToLower(std::string(spec));
  const size_t at = lower.find("@every ");
  if (at == std::string::npos) return false;
  std::string error;
  std::optional<int64_t> ns = sim::ParseGoDuration(spec.substr(at + 7), &error);
  return !ns || *ns <= 0;
}

bool NeverRuns(const sim::CronSchedule& schedule) {
  const absl::Time from = absl::FromUnixSeconds(1778580000);  // 2026-05-12
  return schedule.Next(from) == absl::InfinitePast();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string_view> parts = kje::fuzz::SplitParts(kje::fuzz::AsText(data, size));
  const std::string_view zone = parts.size() > 1 ? parts[0] : std::string_view();
  const std::string_view spec = parts.size() > 1 ? parts[1] : parts[0];

  // The zone: the same verdict ("" and "Local" are the controller's own).
  std::string zone_error;
  const bool sim_zone = sim::LoadLocation(zone, absl::UTCTimeZone(), &zone_error).has_value();
  const absl::Status our_zone = kubeflow::CheckTimeZone(zone);
  FUZZ_CHECK(our_zone.ok() || absl::IsInvalidArgument(our_zone));
  FUZZ_CHECK(our_zone.ok() == sim_zone);

  // The schedule.
  const absl::StatusOr<kubeflow::CronSchedule> ours = kubeflow::ParseCron(spec);
  FUZZ_CHECK(ours.ok() || absl::IsInvalidArgument(ours.status()));
  const sim::CronParse theirs = sim::ParseStandard(spec, absl::UTCTimeZone());
  const bool sim_ok = theirs.error_kind == sim::CronError::kNone && theirs.schedule.has_value();
  if (ours.ok()) {
    // Never one the controller refuses (or panics on).
    FUZZ_CHECK(sim_ok);
    if (sim_ok) {
      FUZZ_CHECK(!NeverRuns(*theirs.schedule));
      FUZZ_CHECK((ours->every() > absl::ZeroDuration()) == theirs.schedule->constant_delay());
    }
  } else if (sim_ok) {
    // Refused here, accepted there: only where the service says it is stricter.
    FUZZ_CHECK(spec.find("*-") != std::string_view::npos ||
               spec.find("?-") != std::string_view::npos || NonPositiveEvery(spec) ||
               NeverRuns(*theirs.schedule));
  }
  return 0;
}
