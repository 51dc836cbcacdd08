#include "server/proto_convert.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/job_info.h"
#include "spark/time_util.h"

namespace kje::server {

namespace pb = jobexecutor::v1;

spark::SparkTemplate ToSparkTemplate(const pb::JobTemplate& t) {
  spark::SparkTemplate out;
  out.name = t.name();
  out.comment = t.comment();
  out.executable = t.executable();
  out.arguments.assign(t.arguments().begin(), t.arguments().end());
  out.environments.insert(t.environments().begin(), t.environments().end());
  out.custom_fields.insert(t.custom_fields().begin(), t.custom_fields().end());
  out.is_shell = t.has_shell();
  if (t.has_spark()) {
    const pb::SparkJob& s = t.spark();
    out.class_name = s.class_name();
    out.jars.assign(s.jars().begin(), s.jars().end());
    out.files.assign(s.files().begin(), s.files().end());
    out.archives.assign(s.archives().begin(), s.archives().end());
    out.configs.insert(s.configs().begin(), s.configs().end());
  }
  return out;
}

absl::StatusOr<executor::ListFilter> ToListFilter(const pb::ListJobsRequest& request) {
  executor::ListFilter filter;
  for (int status : request.statuses()) {
    static constexpr std::pair<int, spark::JobStatus> kStatuses[] = {
        {pb::JobInfo::QUEUED, spark::JobStatus::kQueued},
        {pb::JobInfo::STARTED, spark::JobStatus::kStarted},
        {pb::JobInfo::SUCCEEDED, spark::JobStatus::kSucceeded},
        {pb::JobInfo::FAILED, spark::JobStatus::kFailed},
        {pb::JobInfo::CANCELLING, spark::JobStatus::kCancelling},
        {pb::JobInfo::CANCELLED, spark::JobStatus::kCancelled}};
    bool known = false;
    for (const auto& [number, job_status] : kStatuses) {
      if (number != status) continue;
      filter.AddStatus(job_status);
      known = true;
    }
    if (!known) {
      return absl::InvalidArgumentError(absl::StrCat(
          "statuses: ", status,
          " is not a job status (QUEUED, STARTED, SUCCEEDED, FAILED, CANCELLING, CANCELLED)"));
    }
  }
  auto bound = [](bool has, const google::protobuf::Timestamp& ts) -> std::optional<absl::Time> {
    if (!has) return std::nullopt;
    return absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
  };
  filter.created_after = bound(request.has_created_after(), request.created_after());
  filter.created_before = bound(request.has_created_before(), request.created_before());
  filter.finished_after = bound(request.has_finished_after(), request.finished_after());
  filter.finished_before = bound(request.has_finished_before(), request.finished_before());
  return filter;
}

void ToOutputChunk(const executor::OutputBatch& batch, pb::OutputChunk* chunk) {
  chunk->set_dropped_lines(batch.dropped_lines);
  for (const auto& line : batch.lines) chunk->add_lines(line);
  chunk->set_cursor(batch.cursor);
}

void ToJobEvent(k8s::Event e, pb::JobEvent* out) {
  out->set_object_kind(std::move(e.object_kind));
  out->set_object_name(std::move(e.object_name));
  out->set_reason(std::move(e.reason));
  out->set_type(std::move(e.type));
  out->set_message(std::move(e.message));
  out->set_count(e.count);
  out->set_source(std::move(e.source));
  if (e.first_seen) *out->mutable_first_seen() = ToTimestamp(*e.first_seen);
  if (e.last_seen) *out->mutable_last_seen() = ToTimestamp(*e.last_seen);
}

namespace {

pb::ScheduleSpec::ConcurrencyPolicy ToProto(spark::ConcurrencyPolicy policy) {
  switch (policy) {
    case spark::ConcurrencyPolicy::kAllow:
      return pb::ScheduleSpec::ALLOW;
    case spark::ConcurrencyPolicy::kForbid:
      return pb::ScheduleSpec::FORBID;
    case spark::ConcurrencyPolicy::kReplace:
      return pb::ScheduleSpec::REPLACE;
    case spark::ConcurrencyPolicy::kUnset:
    case spark::ConcurrencyPolicy::kUnrecognized:
      break;
  }
  return pb::ScheduleSpec::CONCURRENCY_POLICY_UNSPECIFIED;
}

}  // namespace

spark::ScheduleSpec FromProto(const pb::ScheduleSpec& in) {
  spark::ScheduleSpec out;
  out.cron = in.schedule();
  out.time_zone = in.time_zone();
  switch (in.concurrency_policy()) {
    case pb::ScheduleSpec::FORBID:
      out.concurrency_policy = spark::ConcurrencyPolicy::kForbid;
      break;
    case pb::ScheduleSpec::REPLACE:
      out.concurrency_policy = spark::ConcurrencyPolicy::kReplace;
      break;
    case pb::ScheduleSpec::ALLOW:
    case pb::ScheduleSpec::CONCURRENCY_POLICY_UNSPECIFIED:
      out.concurrency_policy = spark::ConcurrencyPolicy::kAllow;
      break;
    default:  // a number no enum value has: refused by CheckScheduleSpec
      out.concurrency_policy = spark::ConcurrencyPolicy::kUnrecognized;
      break;
  }
  if (in.has_successful_run_history_limit()) {
    out.successful_run_history_limit = in.successful_run_history_limit();
  }
  if (in.has_failed_run_history_limit()) {
    out.failed_run_history_limit = in.failed_run_history_limit();
  }
  out.suspended = in.suspend();
  return out;
}

void ToScheduleInfo(executor::ScheduleResult result, pb::ScheduleInfo* info) {
  spark::Schedule& s = result.schedule;
  info->set_schedule_id(std::move(result.schedule_id));
  info->set_namespace_(std::move(s.namespace_));
  info->set_name(std::move(s.name));
  pb::ScheduleSpec* spec = info->mutable_spec();
  spec->set_schedule(std::move(s.spec.cron));
  spec->set_time_zone(std::move(s.spec.time_zone));
  spec->set_concurrency_policy(ToProto(s.spec.concurrency_policy));
  spec->set_successful_run_history_limit(s.spec.successful_run_history_limit);
  spec->set_failed_run_history_limit(s.spec.failed_run_history_limit);
  spec->set_suspend(s.spec.suspended);
  info->set_schedule_state(std::move(s.state));
  info->set_reason(std::move(s.reason));
  if (auto t = spark::ToOptionalTime(s.last_run)) *info->mutable_last_run() = ToTimestamp(*t);
  info->set_last_run_name(std::move(s.last_run_name));
  if (auto t = spark::ToOptionalTime(s.next_run)) *info->mutable_next_run() = ToTimestamp(*t);
  for (executor::JobResult& run : result.runs) ToJobInfo(std::move(run), info->add_runs());
  info->set_more_runs(result.more_runs);
  info->set_adopted(result.adopted);
}

absl::StatusOr<spark::ScheduleUpdate> UpdateFromProto(const pb::UpdateScheduleRequest& request) {
  if (request.update_mask().paths().empty()) {
    return absl::InvalidArgumentError("update_mask names no field");
  }
  const spark::ScheduleSpec spec = FromProto(request.spec());
  spark::ScheduleUpdate update;
  for (const std::string& path : request.update_mask().paths()) {
    if (path == "schedule") {
      update.cron = spec.cron;
    } else if (path == "time_zone") {
      update.time_zone = spec.time_zone;
    } else if (path == "concurrency_policy") {
      update.concurrency_policy = spec.concurrency_policy;
    } else if (path == "successful_run_history_limit") {
      update.successful_run_history_limit = spec.successful_run_history_limit;
    } else if (path == "failed_run_history_limit") {
      update.failed_run_history_limit = spec.failed_run_history_limit;
    } else if (path == "suspend") {
      update.suspended = spec.suspended;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "update_mask: \"", path.substr(0, 128),
          "\" is not a field of ScheduleSpec (schedule, time_zone, concurrency_policy, "
          "successful_run_history_limit, failed_run_history_limit, suspend)"));
    }
  }
  return update;
}

executor::CancelOptions CancelOptionsOf(const jobexecutor::v1::CancelRequest& request) {
  executor::CancelOptions options;
  options.reason = request.reason();
  if (request.mode() == jobexecutor::v1::CancelRequest::KEEP) {
    options.mode = spark::CancelMode::kKeep;
  } else if (request.mode() == jobexecutor::v1::CancelRequest::DELETE) {
    options.mode = spark::CancelMode::kDelete;
  }
  return options;
}

}  // namespace kje::server
