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

// `events`: one row per event, oldest first, as `kubectl describe` shows them: the object as
// kind/name, and the count after the last time when it happened more than once.
std::string FormatEvents(const jobexecutor::v1::EventsResponse& events);

// `watch`: one transition, e.g. "  +12.3s  STARTED     RunningHealthy", with the execution id
// after the time when several jobs are watched, and the message at the end when there is one.
std::string FormatTransition(absl::Duration elapsed, const jobexecutor::v1::JobInfo& info,
                             bool with_id);

}  // namespace kje::cli
