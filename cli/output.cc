#include "cli/output.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "base/quote.h"

namespace kje::cli {
namespace {

using jobexecutor::v1::JobInfo;
using jobexecutor::v1::ScheduleInfo;
using jobexecutor::v1::ScheduleSpec;

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

std::string StatusName(JobInfo::Status status) { return JobInfo::Status_Name(status); }

// Operator messages may span lines; a table row or a transition must stay one line.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return text;
}

}  // namespace

std::string_view FormatName(OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable:
      return "table";
    case OutputFormat::kWide:
      return "wide";
    case OutputFormat::kJson:
      return "json";
    case OutputFormat::kYaml:
      return "yaml";
    case OutputFormat::kName:
      return "name";
  }
  return "table";
}

absl::StatusOr<OutputFormat> ParseOutputFormat(std::string_view value,
                                               const std::vector<OutputFormat>& accepted) {
  std::vector<std::string> names;
  for (OutputFormat format : accepted) {
    if (FormatName(format) == value) return format;
    names.push_back(std::string(FormatName(format)));
  }
  return absl::InvalidArgumentError(absl::StrCat("-o must be one of ", absl::StrJoin(names, ", "),
                                                 ", got ", QuoteBounded(value)));
}

std::string ToJson(const google::protobuf::Message& message, bool multiline) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = multiline;
  options.always_print_primitive_fields = true;
  std::string out;
  auto status = google::protobuf::util::MessageToJsonString(message, &out, options);
  if (!status.ok()) return absl::StrCat("{\"error\": \"can't print as JSON\"}");
  // Pretty output already ends with a line feed, a single line doesn't.
  if (!multiline || out.empty() || out.back() != '\n') out.push_back('\n');
  return out;
}

namespace {

// Widens `widths` to the cells of `rows` and prints them aligned to it.
std::string AlignRows(const std::vector<std::vector<std::string>>& rows,
                      std::vector<size_t>& widths) {
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      absl::StrAppend(&line, row[i]);
      if (i + 1 < row.size()) line.append(widths[i] - row[i].size() + 2, ' ');
    }
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

}  // namespace

std::string FormatTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  return AlignRows(rows, widths);
}

GrowingTable::GrowingTable(std::vector<std::string> header) : header_(std::move(header)) {}

std::string GrowingTable::Format(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::vector<std::string>> part;
  if (!header_printed_) {
    part.push_back(header_);
    header_printed_ = true;
  }
  part.insert(part.end(), rows.begin(), rows.end());
  return AlignRows(part, widths_);
}

std::string FormatTimestamp(const JobInfo& info, bool finished) {
  bool has = finished ? info.has_finished_at() : info.has_started_at();
  if (!has) return "-";
  const auto& ts = finished ? info.finished_at() : info.started_at();
  absl::Time t = absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E*SZ", t, absl::UTCTimeZone());
}

// "UNSCHEDULABLE: 0/3 nodes are available: ..." for a waiting job; "" for one that isn't.
std::string WaitingText(const JobInfo& info) {
  if (info.waiting_reason() == JobInfo::WAITING_REASON_UNSPECIFIED) return "";
  std::string text = JobInfo::WaitingReason_Name(info.waiting_reason());
  if (!info.waiting_message().empty())
    absl::StrAppend(&text, ": ", OneLine(info.waiting_message()));
  return text;
}

std::string FormatJobInfo(const JobInfo& info, bool wide) {
  std::vector<std::vector<std::string>> rows = {
      {"EXECUTION ID", OrDash(info.execution_id())},
      {"JOB ID", OrDash(info.job_id())},
      {"STATUS", StatusName(info.status())},
  };
  if (std::string waiting = WaitingText(info); !waiting.empty()) {
    rows.push_back({"WAITING", std::move(waiting)});
  }
  if (!info.cancel_reason().empty()) {
    rows.push_back({"CANCEL REASON", OneLine(info.cancel_reason())});
  }
  if (info.deadline_exceeded() != JobInfo::DEADLINE_UNSPECIFIED) {
    rows.push_back({"STOPPED BY", JobInfo::Deadline_Name(info.deadline_exceeded())});
  } else if (info.has_deadline_at()) {
    rows.push_back({"DEADLINE", FormatSeconds(info.deadline_at(), true)});
  }
  const std::vector<std::vector<std::string>> rest = {
      {"OPERATOR STATE", OrDash(info.operator_state())},
      {"STARTED", FormatTimestamp(info, false)},
      {"FINISHED", FormatTimestamp(info, true)},
      {"NAMESPACE", OrDash(info.namespace_())},
      {"NAME", OrDash(info.name())},
      {"DRIVER POD", OrDash(info.driver_pod())},
      {"SPARK APP ID", OrDash(info.spark_application_id())},
      {"ATTEMPTS", absl::StrCat(info.attempts())},
      {"DRIVER UI", OrDash(info.driver_ui_address())},
  };
  rows.insert(rows.end(), rest.begin(), rest.end());
  // Only deployments with batch-scheduler queues have one; the others' output stays as it was.
  if (!info.queue().empty()) rows.push_back({"QUEUE", OneLine(info.queue())});
  rows.push_back({"MESSAGE", OrDash(OneLine(info.message()))});
  if (wide) {
    std::string output = JobInfo::OutputSource_Name(info.output_source());
    if (!info.output_note().empty()) absl::StrAppend(&output, ": ", OneLine(info.output_note()));
    rows.push_back({"OUTPUT", std::move(output)});
    rows.push_back({"EXIT CODE", info.has_exit_code() ? absl::StrCat(info.exit_code()) : "-"});
  }
  // Only deployments with link templates have links: one row each, named by the template.
  for (const jobexecutor::v1::JobLink& link : info.links()) {
    rows.push_back({absl::StrCat("LINK ", OneLine(link.name())), OneLine(link.url())});
  }
  return FormatTable(rows);
}

std::vector<std::string> JobListHeader(bool waiting, bool wide, bool namespaces) {
  std::vector<std::string> header = {"EXECUTION ID",   "JOB ID",       "STATUS",
                                     "OPERATOR STATE", "SPARK APP ID", "ATTEMPTS",
                                     "DRIVER UI",      "STARTED",      "FINISHED"};
  if (waiting || wide) header.insert(header.begin() + 3, "WAITING");
  if (wide || namespaces) header.insert(header.begin(), "NAMESPACE");
  if (wide) header.insert(header.end(), {"DRIVER POD", "QUEUE", "EXIT CODE", "MESSAGE"});
  return header;
}

std::vector<std::string> JobListRow(const JobInfo& j, bool waiting, bool wide, bool namespaces) {
  std::vector<std::string> row = {OrDash(j.execution_id()),         OrDash(j.job_id()),
                                  StatusName(j.status()),           OrDash(j.operator_state()),
                                  OrDash(j.spark_application_id()), absl::StrCat(j.attempts()),
                                  OrDash(j.driver_ui_address()),    FormatTimestamp(j, false),
                                  FormatTimestamp(j, true)};
  if (waiting || wide) {
    row.insert(row.begin() + 3, j.waiting_reason() == JobInfo::WAITING_REASON_UNSPECIFIED
                                    ? "-"
                                    : JobInfo::WaitingReason_Name(j.waiting_reason()));
  }
  if (wide || namespaces) row.insert(row.begin(), OrDash(j.namespace_()));
  if (wide) {
    row.insert(row.end(), {OrDash(j.driver_pod()), OrDash(OneLine(j.queue())),
                           j.has_exit_code() ? absl::StrCat(j.exit_code()) : "-",
                           OrDash(OneLine(j.message()))});
  }
  return row;
}

std::string FormatJobList(const std::vector<JobInfo>& jobs, bool wide, bool namespaces) {
  // A WAITING column only when some job waits: the usual list keeps its shape.
  const bool waiting = std::any_of(jobs.begin(), jobs.end(), [](const JobInfo& j) {
    return j.waiting_reason() != JobInfo::WAITING_REASON_UNSPECIFIED;
  });
  std::vector<std::vector<std::string>> rows = {JobListHeader(waiting, wide, namespaces)};
  for (const JobInfo& j : jobs) rows.push_back(JobListRow(j, waiting, wide, namespaces));
  return FormatTable(rows);
}

std::string FormatSeconds(const google::protobuf::Timestamp& t, bool set) {
  if (!set) return "-";
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixSeconds(t.seconds()),
                          absl::UTCTimeZone());
}

std::vector<std::string> EventsHeader(bool wide) {
  if (wide) {
    return {"LAST SEEN", "FIRST SEEN", "COUNT", "TYPE", "REASON", "OBJECT", "SOURCE", "MESSAGE"};
  }
  return {"LAST SEEN", "TYPE", "REASON", "OBJECT", "SOURCE", "MESSAGE"};
}

std::vector<std::string> EventRow(const jobexecutor::v1::JobEvent& e, bool wide) {
  std::string last = FormatSeconds(e.last_seen(), e.has_last_seen());
  if (e.count() > 1 && !wide) absl::StrAppend(&last, " (x", e.count(), ")");
  std::vector<std::string> row = {last,
                                  OrDash(e.type()),
                                  OrDash(e.reason()),
                                  absl::StrCat(e.object_kind(), "/", e.object_name()),
                                  OrDash(e.source()),
                                  OrDash(OneLine(e.message()))};
  if (wide) {
    row.insert(row.begin() + 1,
               {FormatSeconds(e.first_seen(), e.has_first_seen()), absl::StrCat(e.count())});
  }
  return row;
}

std::string FormatEvents(const jobexecutor::v1::EventsResponse& events, bool wide) {
  std::vector<std::vector<std::string>> rows = {EventsHeader(wide)};
  for (const jobexecutor::v1::JobEvent& e : events.events()) rows.push_back(EventRow(e, wide));
  return FormatTable(rows);
}

std::string PolicyName(ScheduleSpec::ConcurrencyPolicy policy) {
  switch (policy) {
    case ScheduleSpec::ALLOW:
      return "Allow";
    case ScheduleSpec::FORBID:
      return "Forbid";
    case ScheduleSpec::REPLACE:
      return "Replace";
    default:
      return "-";
  }
}

namespace {

// Unset means the operator's default, one.
std::string HistoryLimit(bool has, int32_t limit) {
  return has ? absl::StrCat(limit) : "1 (default)";
}

// A schedule's time as its controller computes it: in the schedule's zone, with the offset; in
// UTC when the zone is the controller's own ("Local", unknown here) or unknown to this machine.
std::string ZonedTime(const google::protobuf::Timestamp& t, bool set, std::string_view zone) {
  absl::TimeZone tz;
  if (!set || zone.empty() || zone == "Local" || !absl::LoadTimeZone(std::string(zone), &tz)) {
    return FormatSeconds(t, set);
  }
  return absl::FormatTime("%Y-%m-%dT%H:%M:%S%Ez", absl::FromUnixSeconds(t.seconds()), tz);
}

// The newest run of either kind (GetSchedule's runs are newest first): its time, its name, and
// whether the cron or a `schedule run` started it (the manual ones are `<name>-r<run id>`).
std::string NewestRun(const ScheduleInfo& info) {
  if (info.runs().empty()) return "-";
  const JobInfo& run = info.runs(0);
  const std::string& id = run.execution_id();
  const std::string name = id.substr(id.rfind('/') + 1);
  const bool manual = absl::StartsWith(name, absl::StrCat(info.name(), "-r"));
  return absl::StrCat(ZonedTime(run.started_at(), run.has_started_at(), info.spec().time_zone()),
                      "  ", name, manual ? "  (schedule run)" : "  (cron)");
}

}  // namespace

std::string FormatSchedule(const ScheduleInfo& info) {
  const ScheduleSpec& spec = info.spec();
  const std::string& zone = spec.time_zone();
  std::string last_run = ZonedTime(info.last_run(), info.has_last_run(), zone);
  if (!info.last_run_name().empty()) absl::StrAppend(&last_run, "  ", info.last_run_name());
  std::string out = FormatTable({
      {"SCHEDULE ID", OrDash(info.schedule_id())},
      {"NAMESPACE", OrDash(info.namespace_())},
      {"NAME", OrDash(info.name())},
      {"SCHEDULE", OrDash(OneLine(spec.schedule()))},
      // The operator's own meaning of an empty zone.
      {"TIME ZONE", spec.time_zone().empty() ? "Local" : OneLine(spec.time_zone())},
      {"CONCURRENCY", PolicyName(spec.concurrency_policy())},
      {"SUCCESSFUL HISTORY",
       HistoryLimit(spec.has_successful_run_history_limit(), spec.successful_run_history_limit())},
      {"FAILED HISTORY",
       HistoryLimit(spec.has_failed_run_history_limit(), spec.failed_run_history_limit())},
      {"SUSPENDED", spec.suspend() ? "yes" : "no"},
      {"STATE", OrDash(OneLine(info.schedule_state()))},
      {"REASON", OrDash(OneLine(info.reason()))},
      // The controller's lastRun counts its own runs only.
      {"LAST CRON RUN", last_run},
      {"NEWEST RUN", NewestRun(info)},
      {"NEXT RUN", ZonedTime(info.next_run(), info.has_next_run(), zone)},
  });
  if (info.runs().empty()) return out;
  std::vector<std::vector<std::string>> runs = {
      {"RUN", "STATUS", "OPERATOR STATE", "STARTED", "FINISHED"}};
  for (const JobInfo& r : info.runs()) {
    runs.push_back({OrDash(r.execution_id()), StatusName(r.status()), OrDash(r.operator_state()),
                    FormatTimestamp(r, false), FormatTimestamp(r, true)});
  }
  absl::StrAppend(&out, "\nRUNS (newest first)\n", FormatTable(runs));
  return out;
}

std::string FormatScheduleList(const std::vector<ScheduleInfo>& schedules, bool wide) {
  std::vector<std::vector<std::string>> rows = {{"SCHEDULE ID", "STATE", "SUSPENDED",
                                                 "LAST CRON RUN", "NEXT RUN", "CONCURRENCY",
                                                 "TIME ZONE", "SCHEDULE"}};
  if (wide) {
    rows.front().insert(rows.front().begin() + 1, {"NAMESPACE", "NAME"});
    rows.front().insert(rows.front().end(), {"SUCCESSFUL HISTORY", "FAILED HISTORY", "REASON"});
  }
  for (const ScheduleInfo& s : schedules) {
    const ScheduleSpec& spec = s.spec();
    rows.push_back({OrDash(s.schedule_id()), OrDash(OneLine(s.schedule_state())),
                    spec.suspend() ? "yes" : "no",
                    ZonedTime(s.last_run(), s.has_last_run(), spec.time_zone()),
                    ZonedTime(s.next_run(), s.has_next_run(), spec.time_zone()),
                    PolicyName(spec.concurrency_policy()),
                    spec.time_zone().empty() ? "Local" : OneLine(spec.time_zone()),
                    OrDash(OneLine(spec.schedule()))});
    if (wide) {
      std::vector<std::string>& row = rows.back();
      row.insert(row.begin() + 1, {OrDash(s.namespace_()), OrDash(s.name())});
      row.insert(row.end(), {HistoryLimit(spec.has_successful_run_history_limit(),
                                          spec.successful_run_history_limit()),
                             HistoryLimit(spec.has_failed_run_history_limit(),
                                          spec.failed_run_history_limit()),
                             OrDash(OneLine(s.reason()))});
    }
  }
  return FormatTable(rows);
}

std::string FormatTransition(absl::Duration elapsed, const JobInfo& info, bool with_id) {
  std::string line = absl::StrFormat("  +%.1fs  ", absl::ToDoubleSeconds(elapsed));
  if (with_id) absl::StrAppend(&line, info.execution_id(), "  ");
  // CANCELLING is the longest status name.
  absl::StrAppend(&line, absl::StrFormat("%-10s", StatusName(info.status())));
  if (!info.operator_state().empty()) absl::StrAppend(&line, "  ", info.operator_state());
  if (!info.message().empty()) absl::StrAppend(&line, "  (", OneLine(info.message()), ")");
  if (std::string waiting = WaitingText(info); !waiting.empty()) {
    absl::StrAppend(&line, "  waiting: ", waiting);
  }
  // Trailing padding of a short line serves nobody.
  line.erase(line.find_last_not_of(' ') + 1);
  return absl::StrCat(line, "\n");
}

}  // namespace kje::cli
