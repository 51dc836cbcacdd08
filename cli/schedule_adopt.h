#pragma once

// `schedule create` of an id that has a schedule already, with another spec: the server refuses
// it (ALREADY_EXISTS, naming what differs), and so does the CLI, saying what to do, unless
// --adopt: then the existing schedule takes the spec given (UpdateSchedule), and the CLI prints
// what changed. Its template can't change: a schedule made from another template stays refused.

#include <grpcpp/support/status.h>

#include "cli/command.h"
#include "jobexecutor/v1/job_executor.pb.h"

namespace kje::cli {

// Whether a schedule has the spec asked for, reading unset values as the server writes them
// (Allow, history 1).
bool SameScheduleSpec(const jobexecutor::v1::ScheduleSpec& asked,
                      const jobexecutor::v1::ScheduleSpec& got);

// The spec fields (UpdateSchedule's mask paths) whose values differ, in the proto's order.
std::vector<std::string> DifferingSpecPaths(const jobexecutor::v1::ScheduleSpec& existing,
                                            const jobexecutor::v1::ScheduleSpec& wanted);

// After `request`'s CreateSchedule was refused with `refused`: the error and what to do, or,
// with --adopt and an ALREADY_EXISTS, the existing schedule made to take the spec. The exit code.
int ScheduleExists(Context& c, const jobexecutor::v1::CreateScheduleRequest& request,
                   const grpc::Status& refused);

}  // namespace kje::cli
