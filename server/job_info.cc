#include "server/job_info.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace kje::server {
namespace pb = jobexecutor::v1;

int32_t AttemptsField(int64_t attempts) {
  return static_cast<int32_t>(std::min<int64_t>(attempts, std::numeric_limits<int32_t>::max()));
}

google::protobuf::Timestamp ToTimestamp(absl::Time t) {
  google::protobuf::Timestamp ts;
  timespec spec = absl::ToTimespec(t);
  ts.set_seconds(spec.tv_sec);
  ts.set_nanos(static_cast<int32_t>(spec.tv_nsec));
  return ts;
}

pb::JobInfo::Status ToProtoStatus(spark::JobStatus status) {
  switch (status) {
    case spark::JobStatus::kQueued:
      return pb::JobInfo::QUEUED;
    case spark::JobStatus::kStarted:
      return pb::JobInfo::STARTED;
    case spark::JobStatus::kSucceeded:
      return pb::JobInfo::SUCCEEDED;
    case spark::JobStatus::kFailed:
      return pb::JobInfo::FAILED;
    case spark::JobStatus::kCancelling:
      return pb::JobInfo::CANCELLING;
    case spark::JobStatus::kCancelled:
      return pb::JobInfo::CANCELLED;
  }
  return pb::JobInfo::STATUS_UNSPECIFIED;
}

pb::JobInfo::OutputSource ToOutputSource(spark::OutputSource source) {
  switch (source) {
    case spark::OutputSource::kNone:
      return pb::JobInfo::OUTPUT_SOURCE_UNSPECIFIED;
    case spark::OutputSource::kLive:
      return pb::JobInfo::LIVE;
    case spark::OutputSource::kKept:
      return pb::JobInfo::KEPT;
    case spark::OutputSource::kNotKept:
      return pb::JobInfo::NOT_KEPT;
  }
  return pb::JobInfo::OUTPUT_SOURCE_UNSPECIFIED;
}

void ToJobInfo(executor::JobResult result, pb::JobInfo* info) {
  // Rendered before the strings they read are moved out.
  std::vector<spark::JobLink> links = executor::LinksOf(executor::ViewOf(result));
  info->set_execution_id(std::move(result.execution_id));
  info->set_status(ToProtoStatus(result.info.status));
  if (result.info.started_at) *info->mutable_started_at() = ToTimestamp(*result.info.started_at);
  if (result.info.finished_at) {
    *info->mutable_finished_at() = ToTimestamp(*result.info.finished_at);
  }
  info->set_operator_state(std::move(result.info.operator_state));
  info->set_message(std::move(result.info.message));
  info->set_namespace_(std::move(result.namespace_));
  info->set_name(std::move(result.name));
  info->set_driver_pod(std::move(result.driver_pod));
  info->set_job_id(std::move(result.job_id));
  info->set_spark_application_id(std::move(result.details.spark_app_id));
  info->set_attempts(AttemptsField(result.details.attempts));
  info->set_driver_ui_address(std::move(result.details.driver_ui_address));
  if (result.info.deadline_at) *info->mutable_deadline_at() = ToTimestamp(*result.info.deadline_at);
  info->set_deadline_exceeded(static_cast<pb::JobInfo::Deadline>(result.info.deadline_exceeded));
  info->set_waiting_reason(static_cast<pb::JobInfo::WaitingReason>(result.waiting.reason));
  info->set_waiting_message(std::move(result.waiting.message));
  info->set_queue(std::move(result.details.queue));
  for (spark::JobLink& link : links) {
    pb::JobLink* out = info->add_links();
    out->set_name(std::move(link.name));
    out->set_url(std::move(link.url));
  }
  info->set_cancel_reason(std::move(result.info.cancel_reason));
  info->set_output_source(ToOutputSource(result.output_source));
  info->set_output_note(std::move(result.output_note));
  if (result.exit_code) info->set_exit_code(*result.exit_code);
}

}  // namespace kje::server
