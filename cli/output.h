#pragma once

// How the CLI prints: aligned tables for people (-o table, the default) and protobuf JSON for
// programs (-o json; one object per line for streams).

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "google/protobuf/message.h"
#include "jobexecutor/v1/job_executor.pb.h"

namespace kje::cli {

enum class OutputFormat { kTable, kJson };

// Protobuf JSON (camelCase names, enums by name, defaults included). `multiline` pretty-prints;
// otherwise one line, for JSON Lines streams.
std::string ToJson(const google::protobuf::Message& message, bool multiline);

// Left-aligned columns separated by two spaces; the first row is the header.
std::string FormatTable(const std::vector<std::vector<std::string>>& rows);

// RFC 3339 in UTC ("2026-12-01T03:40:05Z"), or "-" when unset.
std::string FormatTimestamp(const jobexecutor::v1::JobInfo& info, bool finished);

// `status`: one "KEY  value" row per field.
std::string FormatJobInfo(const jobexecutor::v1::JobInfo& info);

// `list`: one row per job.
std::string FormatJobList(const std::vector<jobexecutor::v1::JobInfo>& jobs);

// A table printed in parts as its rows arrive (`events -f`): the header with the first part,
// each part aligned to the widest cell seen so far, so a column never moves left.
class GrowingTable {
 public:
  explicit GrowingTable(std::vector<std::string> header);
  // The header (the first time) and `rows`.
  std::string Format(const std::vector<std::vector<std::string>>& rows);

 private:
  std::vector<std::string> header_;
  bool header_printed_ = false;
  std::vector<size_t> widths_;
};

// A timestamp to the second, RFC 3339 in UTC, or "-" when unset.
std::string FormatSeconds(const google::protobuf::Timestamp& t, bool set);

// `events`: one row per event, oldest first, as `kubectl describe` shows them: the object as
// kind/name, and the count after the last time when it happened more than once.
std::string FormatEvents(const jobexecutor::v1::EventsResponse& events);
std::vector<std::string> EventsHeader();
std::vector<std::string> EventRow(const jobexecutor::v1::JobEvent& event);

// A concurrency policy as the operator spells it ("Allow", "Forbid", "Replace"); "-" for
// unspecified.
std::string PolicyName(jobexecutor::v1::ScheduleSpec::ConcurrencyPolicy policy);

// `schedule get`, `create`, `update`: the spec, the state and its reason, the last and next run
// as "KEY  value" rows, then the runs GetSchedule returned (newest first) as a table.
std::string FormatSchedule(const jobexecutor::v1::ScheduleInfo& info);

// `schedule list`: one row per schedule.
std::string FormatScheduleList(const std::vector<jobexecutor::v1::ScheduleInfo>& schedules);

// `watch`: one transition, e.g. "  +12.3s  STARTED     RunningHealthy", with the execution id
// after the time when several jobs are watched, and the message at the end when there is one.
std::string FormatTransition(absl::Duration elapsed, const jobexecutor::v1::JobInfo& info,
                             bool with_id);

}  // namespace kje::cli
