#pragma once

// How the CLI prints, as kubectl's -o: aligned tables for people (table, the default; wide with
// more columns), the protobuf JSON mapping for programs (json, one object per line for streams;
// yaml, the same values as YAML documents), and name (just the execution or schedule id).

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"
#include "jobexecutor/v1/job_executor.pb.h"

namespace kje::cli {

enum class OutputFormat { kTable, kWide, kJson, kYaml, kName };

// The -o value's name ("table", "wide", "json", "yaml", "name").
std::string_view FormatName(OutputFormat format);

// The format `value` names when it is one of `accepted`; otherwise INVALID_ARGUMENT naming the
// accepted ones.
absl::StatusOr<OutputFormat> ParseOutputFormat(std::string_view value,
                                               const std::vector<OutputFormat>& accepted);

// Protobuf JSON (camelCase names, enums by name, defaults included). `multiline` pretty-prints;
// otherwise one line, for JSON Lines streams.
std::string ToJson(const google::protobuf::Message& message, bool multiline);

// The same values as ToJson's, as one block-style YAML document (no "---"): fields in field
// order, strings that would read back as another type (numbers, booleans, null, dates) quoted.
std::string ToYaml(const google::protobuf::Message& message);

// Left-aligned columns separated by two spaces; the first row is the header.
std::string FormatTable(const std::vector<std::vector<std::string>>& rows);

// RFC 3339 in UTC ("2026-12-01T03:40:05Z"), or "-" when unset.
std::string FormatTimestamp(const jobexecutor::v1::JobInfo& info, bool finished);

// `status`: one "KEY  value" row per field; `wide` adds the output's source and the driver's
// exit code.
std::string FormatJobInfo(const jobexecutor::v1::JobInfo& info, bool wide = false);

// `list`: one row per job. `wide` adds the namespace, driver pod, queue, exit code and message
// (and always the WAITING column); `namespaces` (a listing of every namespace) the namespace
// first, as kubectl get -A does.
std::string FormatJobList(const std::vector<jobexecutor::v1::JobInfo>& jobs, bool wide = false,
                          bool namespaces = false);
std::vector<std::string> JobListHeader(bool waiting, bool wide, bool namespaces = false);
std::vector<std::string> JobListRow(const jobexecutor::v1::JobInfo& job, bool waiting, bool wide,
                                    bool namespaces = false);

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
// `wide` adds the first time and the count as columns of their own.
std::string FormatEvents(const jobexecutor::v1::EventsResponse& events, bool wide = false);
std::vector<std::string> EventsHeader(bool wide = false);
std::vector<std::string> EventRow(const jobexecutor::v1::JobEvent& event, bool wide = false);

// A concurrency policy as the operator spells it ("Allow", "Forbid", "Replace"); "-" for
// unspecified.
std::string PolicyName(jobexecutor::v1::ScheduleSpec::ConcurrencyPolicy policy);

// `schedule get`, `create`, `update`: the spec, the state and its reason, the last and next run
// as "KEY  value" rows, then the runs GetSchedule returned (newest first) as a table.
std::string FormatSchedule(const jobexecutor::v1::ScheduleInfo& info);

// `schedule list`: one row per schedule; `wide` adds the namespace, name, history limits and the
// state's reason.
std::string FormatScheduleList(const std::vector<jobexecutor::v1::ScheduleInfo>& schedules,
                               bool wide = false);

// `watch`: one transition, e.g. "  +12.3s  STARTED     RunningHealthy", with the execution id
// after the time when several jobs are watched, and the message at the end when there is one.
std::string FormatTransition(absl::Duration elapsed, const jobexecutor::v1::JobInfo& info,
                             bool with_id);

}  // namespace kje::cli
