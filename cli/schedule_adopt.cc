#include "cli/schedule_adopt.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/quote.h"

namespace kje::cli {
namespace {

namespace pb = jobexecutor::v1;

constexpr char kCommand[] = "schedule create";

pb::ScheduleSpec::ConcurrencyPolicy Policy(const pb::ScheduleSpec& s) {
  return s.concurrency_policy() == pb::ScheduleSpec::CONCURRENCY_POLICY_UNSPECIFIED
             ? pb::ScheduleSpec::ALLOW
             : s.concurrency_policy();
}
int32_t Successful(const pb::ScheduleSpec& s) {
  return s.has_successful_run_history_limit() ? s.successful_run_history_limit() : 1;
}
int32_t Failed(const pb::ScheduleSpec& s) {
  return s.has_failed_run_history_limit() ? s.failed_run_history_limit() : 1;
}

// One field's value as the change line shows it.
std::string Shown(const pb::ScheduleSpec& s, const std::string& path) {
  if (path == "schedule") return QuoteBounded(s.schedule());
  if (path == "time_zone") return s.time_zone().empty() ? "Local" : QuoteBounded(s.time_zone());
  if (path == "concurrency_policy") return PolicyName(Policy(s));
  if (path == "successful_run_history_limit") return absl::StrCat(Successful(s));
  if (path == "failed_run_history_limit") return absl::StrCat(Failed(s));
  return s.suspend() ? "true" : "false";
}

std::string NamespaceOf(const pb::CreateScheduleRequest& request) {
  const auto& conf = request.template_().spark().configs();
  auto it = conf.find("spark.kubernetes.namespace");
  return it == conf.end() ? "" : it->second;
}

// What to do instead, after the server's refusal was printed.
int Refused(Context& c, const pb::CreateScheduleRequest& request, const grpc::Status& refused) {
  const int code = RpcError(c.io, kCommand, refused);
  if (refused.error_code() == grpc::StatusCode::ALREADY_EXISTS) {
    c.io.err << kProgram << ": schedule " << request.schedule_id()
             << " exists, made from another request; nothing was changed. To give it this spec, "
             << "run again with --adopt, or change fields with `" << kProgram << " schedule update "
             << request.schedule_id()
             << "`; a different template needs `schedule delete` first, or another id\n";
  }
  return code;
}

}  // namespace

bool SameScheduleSpec(const pb::ScheduleSpec& asked, const pb::ScheduleSpec& got) {
  return DifferingSpecPaths(got, asked).empty();
}

std::vector<std::string> DifferingSpecPaths(const pb::ScheduleSpec& existing,
                                            const pb::ScheduleSpec& wanted) {
  std::vector<std::string> paths;
  if (existing.schedule() != wanted.schedule()) paths.push_back("schedule");
  if (existing.time_zone() != wanted.time_zone()) paths.push_back("time_zone");
  if (Policy(existing) != Policy(wanted)) paths.push_back("concurrency_policy");
  if (Successful(existing) != Successful(wanted)) paths.push_back("successful_run_history_limit");
  if (Failed(existing) != Failed(wanted)) paths.push_back("failed_run_history_limit");
  if (existing.suspend() != wanted.suspend()) paths.push_back("suspend");
  return paths;
}

int ScheduleExists(Context& c, const pb::CreateScheduleRequest& request,
                   const grpc::Status& refused) {
  if (refused.error_code() != grpc::StatusCode::ALREADY_EXISTS || !c.flags.Has("adopt")) {
    return Refused(c, request, refused);
  }
  const std::string ns = NamespaceOf(request);
  pb::GetScheduleRequest get;
  get.set_namespace_(ns);
  get.set_schedule_id(request.schedule_id());
  pb::ScheduleInfo existing;
  {
    auto ctx = c.conn.NewContext(false);
    grpc::Status status = c.conn.stub().GetSchedule(ctx.get(), get, &existing);
    if (!status.ok())
      return RpcError(c.io, absl::StrCat(kCommand, " --adopt (reading it)"), status);
  }
  // The same request with the schedule's own spec is adopted only when the rest (the template,
  // whose schedule it is) is this request's: checked before anything changes.
  pb::CreateScheduleRequest same_spec = request;
  *same_spec.mutable_spec() = existing.spec();
  {
    pb::ScheduleInfo adopted;
    auto ctx = c.conn.NewContext(false);
    grpc::Status status = c.conn.stub().CreateSchedule(ctx.get(), same_spec, &adopted);
    if (!status.ok()) {
      const int code = RpcError(c.io, kCommand, status);
      if (status.error_code() == grpc::StatusCode::ALREADY_EXISTS) {
        c.io.err << kProgram << ": --adopt changes a schedule's spec only, and schedule "
                 << request.schedule_id()
                 << " differs in more (its template, or it is not this schedule id's): delete it "
                 << "and create it again, or use another id; nothing was changed\n";
      }
      return code;
    }
  }
  const std::vector<std::string> paths = DifferingSpecPaths(existing.spec(), request.spec());
  pb::ScheduleInfo info = existing;
  if (!paths.empty()) {
    pb::UpdateScheduleRequest update;
    update.set_namespace_(ns);
    update.set_schedule_id(request.schedule_id());
    // Unset values as the server reads them at create (an update's unset field would be 0).
    pb::ScheduleSpec& spec = *update.mutable_spec();
    spec = request.spec();
    spec.set_concurrency_policy(Policy(request.spec()));
    spec.set_successful_run_history_limit(Successful(request.spec()));
    spec.set_failed_run_history_limit(Failed(request.spec()));
    for (const std::string& p : paths) update.mutable_update_mask()->add_paths(p);
    auto ctx = c.conn.NewContext(false);
    grpc::Status status = c.conn.stub().UpdateSchedule(ctx.get(), update, &info);
    if (!status.ok()) {
      return RpcError(c.io, absl::StrCat(kCommand, " --adopt (updating its spec)"), status);
    }
  }
  info.set_adopted(true);
  c.io.out << (c.format == OutputFormat::kJson ? ToJson(info, true) : FormatSchedule(info));
  std::vector<std::string> changes;
  for (const std::string& p : paths) {
    changes.push_back(
        absl::StrCat(p, " ", Shown(existing.spec(), p), " -> ", Shown(request.spec(), p)));
  }
  c.io.err << "schedule " << request.schedule_id() << " already existed; adopted it"
           << (changes.empty() ? " (its spec was this one already)"
                               : absl::StrCat(", changing ", absl::StrJoin(changes, ", ")))
           << "\n";
  return kExitOk;
}

}  // namespace kje::cli
