#pragma once

// A job as the caller sees it: the JobInfo message (WatchStatus, ListJobs, a schedule's runs).
// Status writes the same message's wire form without one (status_wire.h).

#include <google/protobuf/timestamp.pb.h>

#include <cstdint>

#include "absl/time/time.h"
#include "executor/job_executor.h"
#include "jobexecutor/v1/job_executor.pb.h"
#include "spark/job_status.h"
#include "spark/log_tail.h"

namespace kje::server {

google::protobuf::Timestamp ToTimestamp(absl::Time t);
jobexecutor::v1::JobInfo::Status ToProtoStatus(spark::JobStatus status);
// JobInfo.output_source and OutputResponse.source.
jobexecutor::v1::JobInfo::OutputSource ToOutputSource(spark::OutputSource source);
// JobInfo.attempts: an int32, so a larger count is capped.
int32_t AttemptsField(int64_t attempts);

// A job's result as a JobInfo message.
void ToJobInfo(executor::JobResult result, jobexecutor::v1::JobInfo* info);

}  // namespace kje::server
