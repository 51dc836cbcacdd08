// The verbs of `k8s-job-executor schedule`: the schedule RPCs (CreateSchedule, GetSchedule,
// ListSchedules, UpdateSchedule, RunScheduleNow, DeleteSchedule) of a server whose backend is
// kubeflow/spark-operator.

#include <cstdint>
#include <ostream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "base/quote.h"
#include "base/strings.h"
#include "cli/command.h"
#include "cli/job_file.h"
#include "cli/schedule_adopt.h"

namespace kje::cli {
namespace {

namespace pb = jobexecutor::v1;

// The mask paths UpdateSchedule takes, each set by one flag.
constexpr char kPathSchedule[] = "schedule";
constexpr char kPathTimeZone[] = "time_zone";
constexpr char kPathPolicy[] = "concurrency_policy";
constexpr char kPathSuccessfulHistory[] = "successful_run_history_limit";
constexpr char kPathFailedHistory[] = "failed_run_history_limit";
constexpr char kPathSuspend[] = "suspend";

FlagSpec NamespaceFlag() {
  return {"namespace", 'n', "NS", false, "the schedule's namespace (default: the server's)"};
}

// The spec flags of create and update; `suspended_help` differs between the two.
std::vector<FlagSpec> SpecFlags(const std::string& suspended_help) {
  return {
      {"cron", 0, "CRON", false, "when it runs, e.g. \"0 3 * * *\", @hourly, \"@every 90m\""},
      {"time-zone", 0, "ZONE", false, "an IANA zone (Europe/Berlin), UTC or Local (the default)"},
      {"concurrency-policy", 0, "POLICY", false, "Allow (default), Forbid or Replace"},
      {"successful-history", 0, "N", false, "successful runs kept (default 1)"},
      {"failed-history", 0, "N", false, "failed runs kept (default 1)"},
      {"suspended", 0, "", false, suspended_help},
  };
}

absl::StatusOr<int32_t> HistoryFlag(const std::string& flag, const std::string& value) {
  int32_t n = 0;
  if (!absl::SimpleAtoi(value, &n) || n < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " needs a number >= 0, got ", QuoteBounded(value)));
  }
  return n;
}

absl::StatusOr<pb::ScheduleSpec::ConcurrencyPolicy> PolicyFlag(const std::string& value) {
  std::string lower = absl::AsciiStrToLower(value);
  if (lower == "allow") return pb::ScheduleSpec::ALLOW;
  if (lower == "forbid") return pb::ScheduleSpec::FORBID;
  if (lower == "replace") return pb::ScheduleSpec::REPLACE;
  return absl::InvalidArgumentError(absl::StrCat(
      "--concurrency-policy must be Allow, Forbid or Replace, got ", QuoteBounded(value)));
}

// Sets the spec fields the flags give, and names each in `paths` (UpdateSchedule's mask: exactly
// the fields given, so that an update changes nothing else).
absl::Status SpecFromFlags(const ParsedFlags& flags, pb::ScheduleSpec* spec,
                           std::vector<std::string>* paths) {
  if (auto v = flags.Get("cron")) {
    spec->set_schedule(*v);
    paths->push_back(kPathSchedule);
  }
  if (auto v = flags.Get("time-zone")) {
    spec->set_time_zone(*v);
    paths->push_back(kPathTimeZone);
  }
  if (auto v = flags.Get("concurrency-policy")) {
    auto policy = PolicyFlag(*v);
    if (!policy.ok()) return policy.status();
    spec->set_concurrency_policy(*policy);
    paths->push_back(kPathPolicy);
  }
  if (auto v = flags.Get("successful-history")) {
    auto n = HistoryFlag("successful-history", *v);
    if (!n.ok()) return n.status();
    spec->set_successful_run_history_limit(*n);
    paths->push_back(kPathSuccessfulHistory);
  }
  if (auto v = flags.Get("failed-history")) {
    auto n = HistoryFlag("failed-history", *v);
    if (!n.ok()) return n.status();
    spec->set_failed_run_history_limit(*n);
    paths->push_back(kPathFailedHistory);
  }
  if (flags.Has("suspended")) {
    spec->set_suspend(true);
    paths->push_back(kPathSuspend);
  }
  return absl::OkStatus();
}

// For a server without schedules, a line that says what would have them: its
// FAILED_PRECONDITION names the backend, but whoever runs the CLI may not know the setting. (A
// FAILED_PRECONDITION can also mean the API server refused the service's credentials; that
// message names no operator.)
void NoSchedulesHint(Io& io, const grpc::Status& status) {
  if (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION &&
      absl::StrContains(status.error_message(), "kubeflow")) {
    io.err << kProgram
           << ": schedules need a server whose `operator` setting is kubeflow; this one runs "
              "jobs (submit) only\n";
  }
}

int ScheduleRpcError(Context& c, const std::string& verb, const grpc::Status& status) {
  int code = RpcError(c.io, absl::StrCat("schedule ", verb), status);
  NoSchedulesHint(c.io, status);
  return code;
}

void PrintInfo(Context& c, const pb::ScheduleInfo& info) {
  if (c.format == OutputFormat::kName) {
    c.io.out << info.schedule_id() << "\n";
  } else if (!PrintStructured(c, info)) {
    c.io.out << FormatSchedule(info);
  }
}

// --- create ------------------------------------------------------------------------------

int CreateVerb(Context& c) {
  const std::string command = "schedule create";
  auto job = BuildJobRequest(c.flags);
  if (!job.ok()) return UsageError(c.io, command, std::string(job.status().message()));
  if (!c.flags.positional().empty()) job->set_job_id(c.flags.positional()[0]);
  if (IsBlank(job->job_id())) {
    return UsageError(c.io, command, "give a SCHEDULE_ID, or a jobId in the job file");
  }
  if (!c.flags.Has("cron")) {
    return UsageError(c.io, command, "--cron is required, e.g. --cron @hourly");
  }
  if (absl::Status s = ValidateSubmitRequest(*job); !s.ok()) {
    return UsageError(c.io, command,
                      absl::StrCat(s.message(), " (give it in the job file or as a flag)"));
  }
  pb::CreateScheduleRequest request;
  request.set_schedule_id(job->job_id());
  request.set_metalake(job->metalake());
  *request.mutable_template_() = job->template_();
  std::vector<std::string> paths;
  if (absl::Status s = SpecFromFlags(c.flags, request.mutable_spec(), &paths); !s.ok()) {
    return UsageError(c.io, command, std::string(s.message()));
  }
  pb::ScheduleInfo info;
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = c.conn.stub().CreateSchedule(ctx.get(), request, &info);
  if (status.error_code() == grpc::StatusCode::ALREADY_EXISTS) {
    return ScheduleExists(c, request, status);
  }
  if (!status.ok()) return ScheduleRpcError(c, "create", status);
  PrintInfo(c, info);
  if (info.adopted()) {
    c.io.err << "schedule " << request.schedule_id() << " already existed; adopted it";
    // A server from before specs were compared adopts any spec.
    if (!SameScheduleSpec(request.spec(), info.spec())) {
      c.io.err << ", with a spec other than the one given (shown; change it with `" << kProgram
               << " schedule update`)";
    }
    c.io.err << "\n";
  }
  return kExitOk;
}

// --- get, list -----------------------------------------------------------------------------

int GetVerb(Context& c) {
  pb::GetScheduleRequest request;
  request.set_namespace_(c.flags.Get("namespace").value_or(""));
  request.set_schedule_id(c.flags.positional()[0]);
  pb::ScheduleInfo info;
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = c.conn.stub().GetSchedule(ctx.get(), request, &info);
  if (!status.ok()) return ScheduleRpcError(c, "get", status);
  PrintInfo(c, info);
  return kExitOk;
}

int ListVerb(Context& c) {
  pb::ListSchedulesRequest request;
  request.set_namespace_(c.flags.Get("namespace").value_or(""));
  request.set_label_selector(c.flags.Get("selector").value_or(""));
  auto page_size = PageSizeFlag(c.flags);
  if (!page_size.ok()) {
    return UsageError(c.io, "schedule list", std::string(page_size.status().message()));
  }
  request.set_page_size(*page_size);
  pb::ListSchedulesResponse all;
  grpc::Status failed;
  int code = WalkPages<pb::ListSchedulesRequest, pb::ListSchedulesResponse>(
      c, "schedule list", request,
      [&](grpc::ClientContext* ctx, const pb::ListSchedulesRequest& r,
          pb::ListSchedulesResponse* out) {
        grpc::Status status = c.conn.stub().ListSchedules(ctx, r, out);
        if (!status.ok()) failed = status;
        return status;
      },
      [&](pb::ListSchedulesResponse& page) {
        for (auto& s : *page.mutable_schedules()) *all.add_schedules() = std::move(s);
      });
  if (code != kExitOk) {
    NoSchedulesHint(c.io, failed);  // after the error WalkPages printed
    return code;
  }
  if (c.format == OutputFormat::kName) {
    for (const pb::ScheduleInfo& s : all.schedules()) c.io.out << s.schedule_id() << "\n";
  } else if (!PrintStructured(c, all)) {
    c.io.out << FormatScheduleList({all.schedules().begin(), all.schedules().end()},
                                   c.format == OutputFormat::kWide);
  }
  return kExitOk;
}

// --- update, suspend, resume ---------------------------------------------------------------

// UpdateSchedule of the fields in `paths`, taking their values from `spec`.
grpc::Status Update(Context& c, const pb::ScheduleSpec& spec, const std::vector<std::string>& paths,
                    pb::ScheduleInfo* info) {
  pb::UpdateScheduleRequest request;
  request.set_namespace_(c.flags.Get("namespace").value_or(""));
  request.set_schedule_id(c.flags.positional()[0]);
  *request.mutable_spec() = spec;
  for (const std::string& p : paths) request.mutable_update_mask()->add_paths(p);
  auto ctx = c.conn.NewContext(false);
  return c.conn.stub().UpdateSchedule(ctx.get(), request, info);
}

int UpdateVerb(Context& c) {
  pb::ScheduleSpec spec;
  std::vector<std::string> paths;
  if (absl::Status s = SpecFromFlags(c.flags, &spec, &paths); !s.ok()) {
    return UsageError(c.io, "schedule update", std::string(s.message()));
  }
  if (paths.empty()) {
    return UsageError(c.io, "schedule update",
                      "nothing to change: give --cron, --time-zone, --concurrency-policy, "
                      "--successful-history, --failed-history or --suspended");
  }
  pb::ScheduleInfo info;
  grpc::Status status = Update(c, spec, paths, &info);
  if (!status.ok()) return ScheduleRpcError(c, "update", status);
  PrintInfo(c, info);
  return kExitOk;
}

int SetSuspended(Context& c, bool suspend) {
  pb::ScheduleSpec spec;
  spec.set_suspend(suspend);
  pb::ScheduleInfo info;
  grpc::Status status = Update(c, spec, {kPathSuspend}, &info);
  if (!status.ok()) return ScheduleRpcError(c, suspend ? "suspend" : "resume", status);
  if (c.format == OutputFormat::kName) {
    c.io.out << info.schedule_id() << "\n";
  } else if (!PrintStructured(c, info)) {
    c.io.out << (suspend ? "suspended: " : "resumed: ") << info.schedule_id() << "\n";
  }
  return kExitOk;
}

// --- run -----------------------------------------------------------------------------------

// A run id for a `run` without --run-id: the UTC time to the millisecond, digits only. At most
// 17 characters, within the room the longest schedule name leaves (18), and apart for two runs
// started a millisecond apart, so that running again starts another run.
std::string DefaultRunId(absl::Time now) {
  int64_t millis = absl::ToUnixMillis(now) % 1000;
  if (millis < 0) millis += 1000;
  return absl::StrCat(absl::FormatTime("%Y%m%d%H%M%S", now, absl::UTCTimeZone()),
                      absl::StrFormat("%03d", millis));
}

int RunVerb(Context& c) {
  const std::string& schedule_id = c.flags.positional()[0];
  std::string run_id = c.flags.Get("run-id").value_or("");
  if (!c.flags.Has("run-id")) {
    run_id = DefaultRunId(c.io.clock.Now());
    // Only the same run id makes a retry safe; say which one this was.
    c.io.err << "run id " << run_id << " (to retry without starting a second run: --run-id "
             << run_id << ")\n";
  }
  pb::RunScheduleNowRequest request;
  request.set_namespace_(c.flags.Get("namespace").value_or(""));
  request.set_schedule_id(schedule_id);
  request.set_run_id(run_id);
  pb::RunScheduleNowResponse response;
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = c.conn.stub().RunScheduleNow(ctx.get(), request, &response);
  if (!status.ok()) return ScheduleRpcError(c, "run", status);
  if (!PrintStructured(c, response)) {
    // The bare execution id, as submit prints it: `id=$(... schedule run ...)` then `watch`.
    c.io.out << response.execution_id() << "\n";
  }
  if (response.adopted()) {
    c.io.err << "run " << run_id << " of schedule " << schedule_id
             << " already existed; adopted it\n";
  }
  return kExitOk;
}

// --- delete --------------------------------------------------------------------------------

// DeleteSchedule answers OK for a schedule that doesn't exist, so that a retry is safe; a person
// who mistyped the name must still learn that nothing was deleted while the schedule they meant
// keeps starting runs.
int ScheduleNotFound(Context& c, const pb::DeleteScheduleRequest& request) {
  std::string where = request.namespace_().empty()
                          ? std::string("the server's namespace")
                          : absl::StrCat("namespace ", QuoteBounded(request.namespace_()));
  c.io.err << kProgram << ": schedule delete: NOT_FOUND: no schedule "
           << QuoteBounded(request.schedule_id()) << " in " << where << "; nothing was deleted\n"
           << kProgram << ": `schedule list` shows the schedules there; with --ignore-not-found "
           << "a missing one is no error\n";
  return kExitNotFound;
}

int DeleteVerb(Context& c) {
  pb::DeleteScheduleRequest request;
  request.set_namespace_(c.flags.Get("namespace").value_or(""));
  request.set_schedule_id(c.flags.positional()[0]);
  request.set_keep_runs(c.flags.Has("keep-runs"));
  pb::DeleteScheduleResponse response;
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = c.conn.stub().DeleteSchedule(ctx.get(), request, &response);
  if (!status.ok()) return ScheduleRpcError(c, "delete", status);
  // A server older than the field doesn't say, and is taken at its word as before.
  const bool missing = response.has_existed() && !response.existed();
  if (missing && !c.flags.Has("ignore-not-found")) return ScheduleNotFound(c, request);
  if (c.format == OutputFormat::kName) {
    if (!missing) c.io.out << request.schedule_id() << "\n";
  } else if (PrintStructured(c, response)) {
  } else if (missing) {
    c.io.out << "not found, nothing deleted: " << request.schedule_id() << "\n";
  } else {
    c.io.out << "deleted: " << request.schedule_id()
             << (request.keep_runs() ? " (its runs kept)" : "") << "\n";
  }
  return kExitOk;
}

std::vector<FlagSpec> CreateFlags() {
  std::vector<FlagSpec> flags = TemplateFlags();
  for (FlagSpec& f : flags) {
    if (f.name == "namespace") {
      f.help = "the schedule's and its runs' namespace (default: the server's)";
    }
  }
  std::vector<FlagSpec> spec = SpecFlags("create it suspended: no runs until `schedule resume`");
  flags.insert(flags.begin() + 1, spec.begin(), spec.end());
  flags.push_back({"adopt", 0, "", false,
                   "if the schedule id has a schedule of the same template with another spec, "
                   "give it this spec (and say what changed) instead of failing"});
  return flags;
}

std::vector<FlagSpec> UpdateFlags() {
  std::vector<FlagSpec> flags = {NamespaceFlag()};
  std::vector<FlagSpec> spec = SpecFlags("suspend it (as `schedule suspend` does)");
  flags.insert(flags.end(), spec.begin(), spec.end());
  return flags;
}

}  // namespace

const std::vector<Command>& ScheduleCommands() {
  static const std::vector<Command> kCommands = {
      {"schedule create",
       "[SCHEDULE_ID] (-f JOB_FILE | --metalake NAME --name NAME ...) --cron CRON [flags]",
       "create a schedule that runs a job template by a cron line",
       "The template comes from a job file and flags, as for submit; the schedule id is\n"
       "SCHEDULE_ID, else the file's jobId. It lives in the template's namespace (-n). The\n"
       "cron takes 5 fields, descriptors (@daily, \"@every 90m\") and a CRON_TZ=<zone> prefix.\n"
       "Forbid skips a tick while the newest run is unfinished; Replace deletes that run and\n"
       "starts the next. Creating the same schedule id again with the same template and spec\n"
       "adopts the existing schedule (a note on stderr says so); with another spec it is an\n"
       "error (exit code 1) unless --adopt, which gives the schedule this spec and says what\n"
       "changed. Prints the schedule as `get`.\n",
       CreateFlags(), "SCHEDULE_ID", 0, 1, CreateVerb, NamingFormats()},
      {"schedule get",
       "SCHEDULE_ID [-n NS] [flags]",
       "print a schedule, its state and its recent runs",
       "The spec, the controller's state and its reason, the last and the next run, and the\n"
       "runs that still exist, newest first, with their status.\n",
       {NamespaceFlag()},
       "SCHEDULE_ID",
       1,
       1,
       GetVerb,
       NamingFormats()},
      {"schedule list",
       "[-n NS] [-l SELECTOR] [flags]",
       "list schedules",
       "Every page of ListSchedules, ordered by name: the schedules this service made.\n",
       {
           NamespaceFlag(),
           {"selector", 'l', "SELECTOR", false, "a label selector, e.g. team=data,!tmp"},
           {"page-size", 0, "N", false, "schedules per request (default: the server's, 100)"},
       },
       "",
       0,
       0,
       ListVerb,
       AllFormats()},
      {"schedule update", "SCHEDULE_ID [--cron CRON] [--time-zone ZONE] ... [-n NS] [flags]",
       "change a schedule's spec",
       "Changes exactly the fields whose flags are given (the update mask names each), e.g.\n"
       "`--time-zone ''` sets Local. A new cron or zone takes effect at once (the next run\n"
       "is computed again from it; on a suspended schedule, when resumed). The\n"
       "template can't be changed: delete the schedule and create it again. Prints the\n"
       "schedule as `get` does.\n",
       UpdateFlags(), "SCHEDULE_ID", 1, 1, UpdateVerb, NamingFormats()},
      {"schedule suspend",
       "SCHEDULE_ID [-n NS] [flags]",
       "stop a schedule from starting runs",
       "Runs already started go on. Undone by `schedule resume`.\n",
       {NamespaceFlag()},
       "SCHEDULE_ID",
       1,
       1,
       [](Context& c) { return SetSuspended(c, true); },
       NamingFormats()},
      {"schedule resume",
       "SCHEDULE_ID [-n NS] [flags]",
       "let a suspended schedule start runs again",
       "If a run fell due while it was suspended, one starts at once (the missed ones\n"
       "are not made up for); then the cron's ticks.\n",
       {NamespaceFlag()},
       "SCHEDULE_ID",
       1,
       1,
       [](Context& c) { return SetSuspended(c, false); },
       NamingFormats()},
      {"schedule run",
       "SCHEDULE_ID [--run-id ID] [-n NS] [flags]",
       "start a run of a schedule now; prints its execution id",
       "Besides the cron's runs, and also while suspended. The run id makes it safe to retry:\n"
       "the same --run-id returns the same run (\"adopted\" on stderr) instead of a second\n"
       "one. Without --run-id the CLI makes one from the time, to the millisecond, and prints\n"
       "it on stderr: pass it to retry. Follow the run with `watch`, `logs` or `events`.\n",
       {
           NamespaceFlag(),
           {"run-id", 0, "ID", false,
            "lower-case letters and digits naming this run (default: the time, printed)"},
       },
       "SCHEDULE_ID",
       1,
       1,
       RunVerb,
       NamingFormats()},
      {"schedule delete",
       "SCHEDULE_ID [--keep-runs] [--ignore-not-found] [-n NS] [flags]",
       "delete a schedule and its runs",
       "The runs go with it (Kubernetes' garbage collector follows their owner) unless\n"
       "--keep-runs. A schedule that doesn't exist is NOT_FOUND (exit code 6): a mistyped\n"
       "name deletes nothing and says so. With --ignore-not-found it exits 0, saying that\n"
       "there was nothing to delete, for scripts that delete what may be gone already.\n",
       {
           NamespaceFlag(),
           {"keep-runs", 0, "", false, "leave the runs, as jobs without a schedule"},
           {"ignore-not-found", 0, "", false, "a schedule that doesn't exist is no error"},
       },
       "SCHEDULE_ID",
       1,
       1,
       DeleteVerb,
       NamingFormats()},
  };
  return kCommands;
}

}  // namespace kje::cli
