#pragma once

// The edge's conversions between the protobuf messages and what the executor takes and answers.

#include "absl/status/statusor.h"
#include "executor/job_executor.h"
#include "jobexecutor/v1/job_executor.pb.h"
#include "k8s/event.h"
#include "spark/job_template.h"
#include "spark/schedule.h"

namespace kje::server {

// The template of a SubmitRequest as the SparkApplication builder takes it.
spark::SparkTemplate ToSparkTemplate(const jobexecutor::v1::JobTemplate& t);

// ListJobs' filters; INVALID_ARGUMENT for a status that isn't one of JobInfo.Status' values.
absl::StatusOr<executor::ListFilter> ToListFilter(const jobexecutor::v1::ListJobsRequest& request);
// A CancelRequest's mode and reason (MODE_UNSPECIFIED and unknown numbers: the deployment's).
executor::CancelOptions CancelOptionsOf(const jobexecutor::v1::CancelRequest& request);

void ToOutputChunk(const executor::OutputBatch& batch, jobexecutor::v1::OutputChunk* chunk);
void ToJobEvent(k8s::Event event, jobexecutor::v1::JobEvent* out);

// A schedule's spec as the executor takes it; a policy number no enum value has becomes
// kUnrecognized, which the backend's check refuses.
spark::ScheduleSpec FromProto(const jobexecutor::v1::ScheduleSpec& in);
void ToScheduleInfo(executor::ScheduleResult result, jobexecutor::v1::ScheduleInfo* info);
// The update the mask names, or INVALID_ARGUMENT naming the path that isn't a field.
absl::StatusOr<spark::ScheduleUpdate> UpdateFromProto(
    const jobexecutor::v1::UpdateScheduleRequest& request);

}  // namespace kje::server
