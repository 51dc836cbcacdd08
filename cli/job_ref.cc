#include "cli/job_ref.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_join.h"
#include "base/quote.h"
#include "base/suggest.h"

namespace kje::cli {
namespace {

namespace pb = jobexecutor::v1;

// A namespace's names kept for "did you mean": enough for any namespace a person reads.
constexpr size_t kMaxCandidates = 10000;
// The jobs of a job id named in an ambiguity error.
constexpr size_t kMaxNamed = 5;

// A label value the API server accepts in a selector (else ListJobs would refuse the selector).
bool IsLabelValue(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  auto alnum = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0; };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [&](char ch) { return alnum(ch) || ch == '-' || ch == '_' || ch == '.'; });
}

// Every job of the namespace (the selector narrowing it, when given) through `take`; false when
// a call failed (the command's own call then reports the server).
template <typename Take>
bool ForEachJob(Context& c, const std::string& namespace_, const std::string& selector, Take take) {
  pb::ListJobsRequest request;
  request.set_namespace_(namespace_);
  request.set_label_selector(selector);
  request.set_page_size(1000);
  std::set<std::string> tokens_seen;
  for (int page = 0; page < kMaxListPages; ++page) {
    pb::ListJobsResponse response;
    auto ctx = c.conn.NewContext(false);
    if (!c.conn.stub().ListJobs(ctx.get(), request, &response).ok()) return false;
    for (const pb::JobInfo& job : response.jobs()) take(job);
    if (response.next_page_token().empty()) return true;
    if (!tokens_seen.insert(response.next_page_token()).second) return false;
    request.set_page_token(response.next_page_token());
  }
  return false;
}

}  // namespace

bool IsExecutionId(const std::string& arg) { return arg.find('/') != std::string::npos; }

absl::StatusOr<JobRef> ResolveJobRef(Context& c, const std::string& arg,
                                     const std::string& namespace_) {
  JobRef ref{arg, ""};
  if (IsExecutionId(arg)) return ref;
  const std::string where =
      namespace_.empty() ? "the server's namespace" : absl::StrCat("namespace ", namespace_);
  // By job id: the server filters by the job-id label; the match is checked here again.
  std::vector<std::string> by_id;
  if (IsLabelValue(arg)) {
    const std::string selector = absl::StrCat("gravitino.apache.org/job-id=", arg);
    if (!ForEachJob(c, namespace_, selector, [&](const pb::JobInfo& job) {
          if (job.job_id() == arg) by_id.push_back(job.execution_id());
        })) {
      return ref;
    }
  }
  if (by_id.size() == 1) return JobRef{by_id.front(), ""};
  if (by_id.size() > 1) {
    std::sort(by_id.begin(), by_id.end());
    std::vector<std::string> named(by_id.end() - std::min(by_id.size(), kMaxNamed), by_id.end());
    return absl::FailedPreconditionError(absl::StrCat(
        "job id ", QuoteBounded(arg), " names ", by_id.size(), " jobs in ", where,
        " (the runs of a schedule share their schedule's); name one by its execution id, e.g. ",
        absl::StrJoin(named, ", ")));
  }
  // By application name, keeping the names and job ids seen for "did you mean".
  std::vector<std::string> candidates;
  std::string by_name;
  if (!ForEachJob(c, namespace_, "", [&](const pb::JobInfo& job) {
        if (job.name() == arg) by_name = job.execution_id();
        if (candidates.size() < kMaxCandidates) {
          candidates.push_back(job.name());
          if (!job.job_id().empty()) candidates.push_back(job.job_id());
        }
      })) {
    return ref;
  }
  if (!by_name.empty()) return JobRef{by_name, ""};
  ref.hint = absl::StrCat("no job with the id or name ", QuoteBounded(arg), " in ", where,
                          " (-n picks another)", DidYouMean(arg, candidates));
  return ref;
}

}  // namespace kje::cli
