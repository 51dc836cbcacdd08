// `list`: every page of ListJobs, filtered.

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "base/quote.h"
#include "base/strings.h"
#include "cli/verbs.h"

namespace kje::cli {

namespace pb = jobexecutor::v1;
namespace {

// The service's label on every application it makes (and every run of a schedule): the job id.
constexpr char kJobIdLabel[] = "gravitino.apache.org/job-id";

// The values of a repeatable filter flag (each may be a comma-separated list), upper-cased and
// checked against the enum's names; a usage error names the first that isn't one.
template <typename Enum>
absl::StatusOr<std::set<int>> EnumFilter(const ParsedFlags& flags, const std::string& flag,
                                         const google::protobuf::EnumDescriptor* descriptor) {
  std::set<int> wanted;
  for (const std::string& value : flags.GetAll(flag)) {
    for (absl::string_view part : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
      const std::string name = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(part));
      const google::protobuf::EnumValueDescriptor* found = descriptor->FindValueByName(name);
      if (found == nullptr || found->number() == 0) {
        std::vector<std::string> names;
        for (int i = 1; i < descriptor->value_count(); ++i) {
          names.push_back(descriptor->value(i)->name());
        }
        return absl::InvalidArgumentError(absl::StrCat("--", flag, " ", QuoteBounded(ToStd(part)),
                                                       " is none of ", absl::StrJoin(names, ", ")));
      }
      wanted.insert(found->number());
    }
  }
  return wanted;
}

// `list -w` asks again this often unless --interval says otherwise; never more often than the
// floor, so a typo can't turn it into a busy loop against the server.
constexpr absl::Duration kDefaultWatchInterval = absl::Seconds(2);
constexpr absl::Duration kMinWatchInterval = absl::Milliseconds(500);

// What a listing asks and keeps: the request for its first page, and what the CLI filters
// again (statuses, for a server from before it could; waiting reasons; a schedule's runs).
struct Listing {
  pb::ListJobsRequest request;
  std::set<int> statuses;
  std::set<int> reasons;
  // --schedule: only the jobs named `<schedule's name>-...` (its runs).
  std::string run_prefix;
  // -A: the jobs of every namespace, each row naming its namespace.
  bool all_namespaces = false;
};

// The listing the flags ask for; kExitOk, or the exit code of what was wrong (printed).
int BuildListing(Context& c, Listing& out) {
  auto statuses =
      EnumFilter<pb::JobInfo::Status>(c.flags, "status", pb::JobInfo::Status_descriptor());
  if (!statuses.ok()) return UsageError(c.io, "list", std::string(statuses.status().message()));
  auto reasons = EnumFilter<pb::JobInfo::WaitingReason>(c.flags, "waiting",
                                                        pb::JobInfo::WaitingReason_descriptor());
  if (!reasons.ok()) return UsageError(c.io, "list", std::string(reasons.status().message()));
  out.statuses = *std::move(statuses);
  out.reasons = *std::move(reasons);
  pb::ListJobsRequest& request = out.request;
  if (auto v = c.flags.Get("namespace")) request.set_namespace_(*v);
  if (c.flags.Has("all-namespaces")) {
    if (c.flags.Has("namespace") || c.flags.Has("schedule")) {
      return UsageError(c.io, "list",
                        absl::StrCat("-A lists every namespace; leave out --",
                                     c.flags.Has("namespace") ? "namespace" : "schedule",
                                     " (a schedule's runs are in its own namespace)"));
    }
    request.set_all_namespaces(true);
    out.all_namespaces = true;
  }
  if (auto v = c.flags.Get("selector")) request.set_label_selector(*v);
  // The server filters by status (and still the CLI, for a server from before it could).
  for (int status : out.statuses) {
    request.add_statuses(static_cast<pb::JobInfo::Status>(status));
  }
  const std::pair<const char*, google::protobuf::Timestamp* (pb::ListJobsRequest::*)()> bounds[] = {
      {"created-after", &pb::ListJobsRequest::mutable_created_after},
      {"created-before", &pb::ListJobsRequest::mutable_created_before},
      {"finished-after", &pb::ListJobsRequest::mutable_finished_after},
      {"finished-before", &pb::ListJobsRequest::mutable_finished_before}};
  for (const auto& [flag, field] : bounds) {
    auto value = c.flags.Get(flag);
    if (!value) continue;
    absl::Time t;
    std::string error;
    if (!absl::ParseTime(absl::RFC3339_full, std::string(*value), &t, &error)) {
      return UsageError(c.io, "list",
                        absl::StrCat("--", flag, " ", QuoteBounded(*value),
                                     " is not an RFC 3339 time, e.g. 2026-12-01T00:00:00Z"));
    }
    google::protobuf::Timestamp* ts = (request.*field)();
    ts->set_seconds(absl::ToUnixSeconds(t));
    ts->set_nanos(
        static_cast<int32_t>((t - absl::FromUnixSeconds(ts->seconds())) / absl::Nanoseconds(1)));
  }
  auto page_size = PageSizeFlag(c.flags);
  if (!page_size.ok()) return UsageError(c.io, "list", std::string(page_size.status().message()));
  request.set_page_size(*page_size);
  if (auto schedule = c.flags.Get("schedule")) {
    // The schedule says where its runs are and what they are named; each run carries the
    // schedule id as its job id (the service's own label), and is named after the schedule.
    pb::GetScheduleRequest get;
    get.set_namespace_(request.namespace_());
    get.set_schedule_id(*schedule);
    pb::ScheduleInfo info;
    auto ctx = c.conn.NewContext(false);
    grpc::Status status = c.conn.stub().GetSchedule(ctx.get(), get, &info);
    if (!status.ok()) {
      return RpcError(c.io, absl::StrCat("list --schedule ", QuoteBounded(*schedule)), status);
    }
    request.set_namespace_(info.namespace_());
    std::string selector = absl::StrCat(kJobIdLabel, "=", info.schedule_id());
    if (!request.label_selector().empty()) {
      absl::StrAppend(&selector, ",", request.label_selector());
    }
    request.set_label_selector(selector);
    out.run_prefix = absl::StrCat(info.name(), "-");
  }
  return kExitOk;
}

// Every page of the listing, filtered; kExitOk, or the exit code of what went wrong (printed).
int Collect(Context& c, const Listing& listing, std::vector<pb::JobInfo>& jobs) {
  jobs.clear();
  return WalkPages<pb::ListJobsRequest, pb::ListJobsResponse>(
      c, "list", listing.request,
      [&](grpc::ClientContext* ctx, const pb::ListJobsRequest& r, pb::ListJobsResponse* out) {
        return c.conn.stub().ListJobs(ctx, r, out);
      },
      [&](pb::ListJobsResponse& page) {
        for (auto& job : *page.mutable_jobs()) {
          if (!listing.statuses.empty() && listing.statuses.count(job.status()) == 0) continue;
          if (!listing.reasons.empty() && listing.reasons.count(job.waiting_reason()) == 0) {
            continue;
          }
          if (!listing.run_prefix.empty() && !absl::StartsWith(job.name(), listing.run_prefix)) {
            continue;
          }
          jobs.push_back(std::move(job));
        }
      });
}

// A row of `list -w`'s table.
std::vector<std::string> WatchRow(const Context& c, const Listing& listing,
                                  const pb::JobInfo& job) {
  return JobListRow(job, true, c.format == OutputFormat::kWide, listing.all_namespaces);
}

// One job of `list -w`, as -o prints it: a row of the table, the execution id, or the JobInfo.
void PrintChange(Context& c, const Listing& listing, GrowingTable& table, const pb::JobInfo& job) {
  if (c.format == OutputFormat::kName) {
    c.io.out << job.execution_id() << "\n";
  } else if (!PrintStructured(c, job, true)) {
    c.io.out << table.Format({WatchRow(c, listing, job)});
  }
}

// `list -w`: the list, then a line per job that changed, appeared or went, as kubectl get -w.
// ListJobs is asked again every interval: WatchStatus follows jobs named up front (at most 100)
// and ends when they stop, while a watched list must show jobs that appear later, jobs that
// leave its filters, and keeps going after they stop. A job that went is printed once more with
// the status DELETED. Runs until interrupted, or until a call fails (its exit code).
int WatchList(Context& c, const Listing& listing) {
  absl::Duration interval = kDefaultWatchInterval;
  if (auto v = c.flags.Get("interval")) {
    if (!absl::ParseDuration(*v, &interval) || interval < kMinWatchInterval) {
      return UsageError(
          c.io, "list",
          absl::StrCat("--interval needs a duration of at least ",
                       absl::FormatDuration(kMinWatchInterval), ", got ", QuoteBounded(*v)));
    }
  }
  // The WAITING column from the start: a job may begin to wait later.
  const std::vector<std::string> header =
      JobListHeader(true, c.format == OutputFormat::kWide, listing.all_namespaces);
  const size_t status_column =
      static_cast<size_t>(std::find(header.begin(), header.end(), "STATUS") - header.begin());
  GrowingTable table(header);
  std::map<std::string, std::string> shown;  // execution id → the JobInfo last printed
  std::map<std::string, pb::JobInfo> last;
  bool first = true;
  for (;;) {
    std::vector<pb::JobInfo> jobs;
    if (int code = Collect(c, listing, jobs); code != kExitOk) return code;
    if (first && IsTable(c)) c.io.out << table.Format({});  // the header, even for no jobs
    first = false;
    std::set<std::string> present;
    for (const pb::JobInfo& job : jobs) {
      present.insert(job.execution_id());
      std::string now = job.SerializeAsString();
      auto [it, added] = shown.try_emplace(job.execution_id(), now);
      if (!added && it->second == now) continue;
      it->second = std::move(now);
      last[job.execution_id()] = job;
      PrintChange(c, listing, table, job);
    }
    for (auto it = last.begin(); it != last.end();) {
      if (present.count(it->first) != 0) {
        ++it;
        continue;
      }
      pb::JobInfo gone = it->second;
      gone.set_status(pb::JobInfo::STATUS_UNSPECIFIED);
      if (IsTable(c)) {
        std::vector<std::string> row = WatchRow(c, listing, gone);
        row[status_column] = "DELETED";
        c.io.out << table.Format({row});
      } else {
        PrintChange(c, listing, table, gone);
      }
      shown.erase(it->first);
      it = last.erase(it);
    }
    c.io.out.flush();
    c.io.sleep(interval);
  }
}

int List(Context& c) {
  if (c.flags.Has("interval") && !c.flags.Has("watch")) {
    return UsageError(c.io, "list", "--interval goes with -w");
  }
  Listing listing;
  if (int code = BuildListing(c, listing); code != kExitOk) return code;
  if (c.flags.Has("watch")) return WatchList(c, listing);
  std::vector<pb::JobInfo> jobs;
  if (int code = Collect(c, listing, jobs); code != kExitOk) return code;
  if (c.format == OutputFormat::kName) {
    for (const pb::JobInfo& job : jobs) c.io.out << job.execution_id() << "\n";
    return kExitOk;
  }
  pb::ListJobsResponse all;
  for (pb::JobInfo& job : jobs) *all.add_jobs() = std::move(job);
  if (!PrintStructured(c, all)) {
    c.io.out << FormatJobList({all.jobs().begin(), all.jobs().end()},
                              c.format == OutputFormat::kWide, listing.all_namespaces);
  }
  return kExitOk;
}

}  // namespace

Command ListCommand() {
  return Command{
      "list",
      "[--namespace NS | -A] [-l SELECTOR] [--status S] [--schedule ID] [-w] [flags]",
      "list jobs",
      "Every page of ListJobs, ordered by application name. --schedule lists the runs of a\n"
      "schedule (in its namespace). -w prints the list, then a line per job that changed,\n"
      "appeared or went (DELETED), asking again every --interval, until interrupted. -A lists\n"
      "every namespace the server serves: its server.allowedNamespaces, or without them the\n"
      "whole cluster (its service account then needs a ClusterRole to list applications).\n",
      {
          {"namespace", 'n', "NS", false, "the namespace (default: the server's)"},
          {"all-namespaces", 'A', "", false, "every namespace the server serves, as kubectl -A"},
          {"selector", 'l', "SELECTOR", false, "a label selector, e.g. team=data,!tmp"},
          {"page-size", 0, "N", false, "jobs per request (default: the server's, 100)"},
          {"status", 0, "STATUS", true,
           "only jobs with this status, e.g. QUEUED (repeatable, or comma-separated)"},
          {"waiting", 0, "REASON", true,
           "only jobs waiting for this reason, e.g. UNSCHEDULABLE (repeatable, or "
           "comma-separated)"},
          {"created-after", 0, "TIME", false,
           "only jobs created at or after this RFC 3339 time, e.g. 2026-12-01T00:00:00Z"},
          {"created-before", 0, "TIME", false, "only jobs created before this time"},
          {"finished-after", 0, "TIME", false,
           "only jobs finished at or after this time (leaves out running ones)"},
          {"finished-before", 0, "TIME", false, "only jobs finished before this time"},
          {"schedule", 0, "ID", false, "only the runs of this schedule (`schedule get` names it)"},
          {"watch", 'w', "", false, "after the list, print each change, as kubectl get -w"},
          {"interval", 0, "DURATION", false, "with -w: time between calls (default 2s, >= 500ms)"},
      },
      "",
      0,
      0,
      List,
      AllFormats()};
}

}  // namespace kje::cli
