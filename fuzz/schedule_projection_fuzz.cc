// Schedules are read back from whatever the API server holds (anyone allowed to edit a
// ScheduledSparkApplication can put anything there), and written by the service's builder.
// Input, read two ways:
//  - the whole input as a ScheduledSparkApplication's JSON: projecting it never crashes, and a
//    projected schedule has a name and a namespace, a bounded reason, and refused only when the
//    operator's state says FailedValidation;
//  - its "%%"-separated parts as a schedule's name, cron, zone, policy, two limits and suspend
//    flag: whatever the builder accepts projects back to the same name and spec.

#include <charconv>
#include <string>
#include <vector>

#include "base/quote.h"
#include "fuzz/fuzz_check.h"
#include "spark/kubeflow/schedule_builder.h"
#include "spark/kubeflow/schedule_projection.h"

namespace {

using kje::spark::ScheduleSpec;

constexpr std::string_view kApplication =
    R"({"apiVersion":"sparkoperator.k8s.io/v1beta2","kind":"SparkApplication",)"
    R"("metadata":{"name":"run","namespace":"spark-jobs"},)"
    R"("spec":{"type":"Scala","mode":"cluster","mainClass":"Main"}})";

int32_t Limit(std::string_view text) {
  int32_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

void ReadAsObject(std::string_view text) {
  auto schedule = kje::spark::kubeflow::ProjectScheduleJson(text);
  if (!schedule.ok()) {
    FUZZ_CHECK(schedule.status().message().size() <= kje::kMaxMessageBytes);
    return;
  }
  FUZZ_CHECK(!schedule->name.empty() && !schedule->namespace_.empty());
  FUZZ_CHECK(schedule->reason.size() <= kje::spark::kMaxMessageBytes + 3);
  if (schedule->refused) FUZZ_CHECK(schedule->state == "FailedValidation");
}

void BuildAndReadBack(const std::vector<std::string_view>& parts) {
  if (parts.size() < 7) return;
  ScheduleSpec spec;
  spec.cron = std::string(parts[1]);
  spec.time_zone = std::string(parts[2]);
  spec.concurrency_policy = kje::spark::kubeflow::ParseConcurrencyPolicy(parts[3]);
  spec.successful_run_history_limit = Limit(parts[4]);
  spec.failed_run_history_limit = Limit(parts[5]);
  spec.suspended = parts[6] == "1";
  kje::spark::ScheduleMeta meta;
  meta.name = std::string(parts[0]);
  meta.namespace_ = "spark-jobs";
  auto built = kje::spark::kubeflow::BuildScheduledApplication(meta, spec, kApplication);
  if (!built.ok()) {
    FUZZ_CHECK(built.status().message().size() <= kje::kMaxMessageBytes);
    return;
  }
  auto read = kje::spark::kubeflow::ProjectScheduleJson(built->json);
  FUZZ_CHECK(read.ok());
  FUZZ_CHECK(read->name == meta.name && read->namespace_ == meta.namespace_);
  FUZZ_CHECK(read->spec.cron == spec.cron);
  FUZZ_CHECK(read->spec.time_zone == spec.time_zone);
  FUZZ_CHECK(read->spec.concurrency_policy == spec.concurrency_policy);
  FUZZ_CHECK(read->spec.successful_run_history_limit == spec.successful_run_history_limit);
  FUZZ_CHECK(read->spec.failed_run_history_limit == spec.failed_run_history_limit);
  FUZZ_CHECK(read->spec.suspended == spec.suspended);
  FUZZ_CHECK(read->state.empty() && !read->refused);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = kje::fuzz::AsText(data, size);
  ReadAsObject(text);
  BuildAndReadBack(kje::fuzz::SplitParts(text));
  return 0;
}
