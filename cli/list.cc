// `list`: every page of ListJobs, filtered.

#include <cstdint>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
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

int List(Context& c) {
  auto statuses =
      EnumFilter<pb::JobInfo::Status>(c.flags, "status", pb::JobInfo::Status_descriptor());
  if (!statuses.ok()) return UsageError(c.io, "list", std::string(statuses.status().message()));
  auto reasons = EnumFilter<pb::JobInfo::WaitingReason>(c.flags, "waiting",
                                                        pb::JobInfo::WaitingReason_descriptor());
  if (!reasons.ok()) return UsageError(c.io, "list", std::string(reasons.status().message()));
  pb::ListJobsRequest request;
  if (auto v = c.flags.Get("namespace")) request.set_namespace_(*v);
  if (auto v = c.flags.Get("selector")) request.set_label_selector(*v);
  // The server filters by status (and still the CLI, for a server from before it could).
  for (int status : *statuses) request.add_statuses(static_cast<pb::JobInfo::Status>(status));
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
  pb::ListJobsResponse all;
  int code = WalkPages<pb::ListJobsRequest, pb::ListJobsResponse>(
      c, "list", request,
      [&](grpc::ClientContext* ctx, const pb::ListJobsRequest& r, pb::ListJobsResponse* out) {
        return c.conn.stub().ListJobs(ctx, r, out);
      },
      [&](pb::ListJobsResponse& page) {
        for (auto& job : *page.mutable_jobs()) {
          if (!statuses->empty() && statuses->count(job.status()) == 0) continue;
          if (!reasons->empty() && reasons->count(job.waiting_reason()) == 0) continue;
          *all.add_jobs() = std::move(job);
        }
      });
  if (code != kExitOk) return code;
  if (c.format == OutputFormat::kName) {
    for (const pb::JobInfo& job : all.jobs()) c.io.out << job.execution_id() << "\n";
  } else if (!PrintStructured(c, all)) {
    c.io.out << FormatJobList({all.jobs().begin(), all.jobs().end()},
                              c.format == OutputFormat::kWide);
  }
  return kExitOk;
}

}  // namespace

Command ListCommand() {
  return Command{
      "list",
      "[--namespace NS] [-l SELECTOR] [flags]",
      "list jobs",
      "Every page of ListJobs, ordered by application name.\n",
      {
          {"namespace", 'n', "NS", false, "the namespace (default: the server's)"},
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
      },
      "",
      0,
      0,
      List,
      AllFormats()};
}

}  // namespace kje::cli
