#include "cli/cli.h"

#include <grpc/support/log.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <ostream>
#include <set>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "cli/command.h"
#include "cli/completion.h"
#include "cli/contexts.h"
#include "cli/dry_run.h"
#include "cli/forward.h"
#include "cli/job_file.h"
#include "cli/job_ref.h"
#include "cli/upload.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace kje::cli {

namespace pb = jobexecutor::v1;

int RpcError(Io& io, const std::string& what, const grpc::Status& status) {
  io.err << kProgram << ": " << what << ": " << GrpcCodeName(status.error_code()) << ": "
         << status.error_message() << "\n";
  const TlsHint hint = TlsHintFor(status);
  if (hint.text.empty()) return ExitCodeForRpc(status.error_code());
  io.err << kProgram << ": " << hint.text << "\n";
  return hint.retry_helps ? ExitCodeForRpc(status.error_code()) : kExitError;
}

int UsageError(Io& io, const std::string& command, const std::string& message) {
  io.err << kProgram << " " << command << ": " << message << "\n"
         << "run `" << kProgram << " " << command << " --help` for usage\n";
  return kExitUsage;
}

absl::StatusOr<int> PageSizeFlag(const ParsedFlags& flags) {
  auto v = flags.Get("page-size");
  if (!v) return 0;
  int n = 0;
  if (!absl::SimpleAtoi(*v, &n) || n < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--page-size needs a number >= 1, got ", QuoteBounded(*v)));
  }
  return n;
}

namespace {

// `events -f` asks again this often unless --interval says otherwise; never more often than
// the floor, so a typo can't turn it into a busy loop against the server.
constexpr absl::Duration kDefaultEventsInterval = absl::Seconds(2);
constexpr absl::Duration kMinEventsInterval = absl::Milliseconds(500);

const std::vector<FlagSpec>& CommonFlags() {
  static const std::vector<FlagSpec> kFlags = {
      {"context", 0, "NAME", false,
       absl::StrCat("the context of the contexts file to use (default $", kContextEnv,
                    ", else the file's current-context)")},
      {"server", 0, "HOST:PORT", false,
       absl::StrCat("the server (default $", kServerEnv, ", else the context's, else ",
                    kDefaultServer, ")")},
      {"tls", 0, "", false, "use TLS, trusting the system's roots unless --tls-ca is given"},
      {"tls-ca", 0, "FILE", false,
       "CA certificates (PEM) for the server's certificate; implies --tls"},
      {"tls-cert", 0, "FILE", false, "client certificate (PEM) for mutual TLS; with --tls-key"},
      {"tls-key", 0, "FILE", false, "client private key (PEM) for mutual TLS"},
      {"tls-server-name", 0, "NAME", false, "the name to verify in the server's certificate"},
      {"token-file", 0, "FILE", false, "send \"authorization: Bearer <file content>\""},
      // Each connection flag also comes from K8S_JOB_EXECUTOR_<FLAG> (see `contexts --help`).
      {"timeout", 0, "DURATION", false,
       "deadline of each call, e.g. 10s, 2m (default 30s; none for watch and logs -f)"},
      {"output", 'o', "FORMAT", false, "table (default) or json"},
      {"help", 'h', "", false, "print this help"},
  };
  return kFlags;
}

// The first few are enough to spot the mistake; a shell glob may pass thousands.
std::string QuotedList(const std::vector<std::string>& items) {
  constexpr size_t kShown = 5;
  std::vector<std::string> quoted;
  for (size_t i = 0; i < items.size() && i < kShown; ++i) quoted.push_back(QuoteBounded(items[i]));
  if (items.size() > kShown) quoted.push_back(absl::StrCat("and ", items.size() - kShown, " more"));
  return absl::StrJoin(quoted, " ");
}

// "k=v" → (k, v); the key must not be empty.
absl::StatusOr<std::pair<std::string, std::string>> KeyValue(const std::string& flag,
                                                             const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " needs KEY=VALUE, got ", QuoteBounded(text)));
  }
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

}  // namespace

// --- submit --------------------------------------------------------------------------------

std::vector<FlagSpec> TemplateFlags() {
  return {
      {"job-file", 'f', "FILE", false, "the job file (YAML; - reads stdin)"},
      {"metalake", 0, "NAME", false, "recorded as the metalake annotation"},
      {"name", 0, "NAME", false, "the template name"},
      {"comment", 0, "TEXT", false, "the template comment"},
      {"executable", 0, "URI", false, "main jar or .py file, e.g. local:///opt/app.jar"},
      {"class", 0, "CLASS", false, "main class (none for Python)"},
      {"arg", 0, "ARG", true, "an application argument"},
      {"conf", 0, "KEY=VALUE", true, "a Spark configuration value"},
      {"jar", 0, "URI", true, "an extra jar"},
      {"file", 0, "URI", true, "an extra file"},
      {"archive", 0, "URI", true, "an extra archive"},
      {"namespace", 'n', "NS", false, "the job's namespace (spark.kubernetes.namespace)"},
  };
}

// A scalar flag replaces the file's value, a list flag replaces the file's list, --conf adds or
// replaces one key. The file's own completeness is checked only after, so that a file may leave
// the job id (or anything else) to the flags.
absl::StatusOr<pb::SubmitRequest> BuildJobRequest(const ParsedFlags& flags) {
  pb::SubmitRequest request;
  if (auto file = flags.Get("job-file")) {
    auto loaded = LoadJobFile(*file, JobFileChecks::kShapeOnly);
    if (!loaded.ok()) return loaded.status();
    request = *std::move(loaded);
  }
  pb::JobTemplate& t = *request.mutable_template_();
  if (!t.has_shell()) t.mutable_spark();
  if (auto v = flags.Get("job-id")) request.set_job_id(*v);
  if (auto v = flags.Get("metalake")) request.set_metalake(*v);
  if (auto v = flags.Get("name")) t.set_name(*v);
  if (auto v = flags.Get("comment")) t.set_comment(*v);
  if (auto v = flags.Get("executable")) t.set_executable(*v);
  if (flags.Has("arg")) {
    t.clear_arguments();
    for (const auto& a : flags.GetAll("arg")) t.add_arguments(a);
  }
  bool spark_flags = flags.Has("class") || flags.Has("jar") || flags.Has("file") ||
                     flags.Has("archive") || flags.Has("conf") || flags.Has("namespace");
  if (spark_flags && t.has_shell()) {
    return absl::InvalidArgumentError("Spark flags given for a shell job");
  }
  pb::SparkJob& spark = *t.mutable_spark();
  if (auto v = flags.Get("class")) spark.set_class_name(*v);
  auto replace = [&](const char* flag, google::protobuf::RepeatedPtrField<std::string>* list) {
    if (!flags.Has(flag)) return;
    list->Clear();
    for (const auto& v : flags.GetAll(flag)) list->Add(std::string(v));
  };
  replace("jar", spark.mutable_jars());
  replace("file", spark.mutable_files());
  replace("archive", spark.mutable_archives());
  for (const auto& kv : flags.GetAll("conf")) {
    auto parsed = KeyValue("conf", kv);
    if (!parsed.ok()) return parsed.status();
    (*spark.mutable_configs())[parsed->first] = parsed->second;
  }
  if (auto ns = flags.Get("namespace")) {
    (*spark.mutable_configs())["spark.kubernetes.namespace"] = *ns;
  }
  return request;
}

namespace {

// The job's local files uploaded and named by their references (cli/upload.h); kExitOk when
// there were none or all went.
int StageLocalFiles(Context& c, pb::JobTemplate* t) {
  std::string base_dir;
  if (auto file = c.flags.Get("job-file"); file && *file != "-") {
    base_dir = std::filesystem::path(*file).parent_path().string();
  }
  auto plan = PlanUpload(*t, base_dir);
  if (!plan.ok()) return UsageError(c.io, "submit", std::string(plan.status().message()));
  if (plan->files.empty()) return kExitOk;
  // A progress line only where someone watches it redrawn.
  std::ostream* progress =
      (&c.io.err == &std::cerr && ::isatty(STDERR_FILENO)) ? &c.io.err : nullptr;
  auto ctx = c.conn.NewContext(true);
  grpc::Status status =
      UploadAndRewrite(c.conn.stub(), ctx.get(), *plan, base_dir, t, progress, c.io.err);
  if (!status.ok()) return RpcError(c.io, "submit (uploading local files)", status);
  return kExitOk;
}

int Submit(Context& c) {
  auto request = BuildJobRequest(c.flags);
  if (!request.ok()) return UsageError(c.io, "submit", std::string(request.status().message()));
  if (absl::Status s = ValidateSubmitRequest(*request); !s.ok()) {
    return UsageError(c.io, "submit",
                      absl::StrCat(s.message(), " (give it in the job file or as a flag)"));
  }
  if (c.flags.Has("dry-run")) return SubmitDryRun(c, *std::move(request));
  if (int staged = StageLocalFiles(c, request->mutable_template_()); staged != kExitOk) {
    return staged;
  }
  pb::SubmitResponse response;
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = c.conn.stub().Submit(ctx.get(), *request, &response);
  if (!status.ok()) return RpcError(c.io, "submit", status);
  if (c.format == OutputFormat::kJson) {
    c.io.out << ToJson(response, true);
  } else {
    // The bare id on stdout, so `id=$(k8s-job-executor submit ...)` works.
    c.io.out << response.execution_id() << "\n";
    if (response.adopted()) {
      c.io.err << "job " << request->job_id() << " already had an application; adopted it\n";
    }
  }
  return kExitOk;
}

// --- status, cancel ------------------------------------------------------------------------

int Status(Context& c) {
  pb::StatusRequest request;
  request.set_execution_id(c.flags.positional()[0]);
  pb::JobInfo info;
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = c.conn.stub().Status(ctx.get(), request, &info);
  if (!status.ok()) return RpcError(c.io, "status", status);
  c.io.out << (c.format == OutputFormat::kJson ? ToJson(info, true) : FormatJobInfo(info));
  return ExitCodeForJob(info.status());
}

// Status and Events together, as `kubectl describe` shows an object: what the job is, why it
// waits, then what happened to it. The exit code is status's; events that can't be read are
// said on stderr and don't change it (the status was answered).
int Describe(Context& c) {
  const std::string& id = c.flags.positional()[0];
  pb::StatusRequest status_request;
  status_request.set_execution_id(id);
  pb::JobInfo info;
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = c.conn.stub().Status(ctx.get(), status_request, &info);
  if (!status.ok()) return RpcError(c.io, "describe", status);
  pb::EventsRequest events_request;
  events_request.set_execution_id(id);
  pb::EventsResponse events;
  auto events_ctx = c.conn.NewContext(false);
  grpc::Status listed = c.conn.stub().Events(events_ctx.get(), events_request, &events);
  if (c.format == OutputFormat::kJson) {
    c.io.out << ToJson(info, true);
    if (listed.ok()) c.io.out << ToJson(events, true);
  } else {
    c.io.out << FormatJobInfo(info) << "\nEVENTS\n";
    c.io.out << (listed.ok() && events.events_size() > 0 ? FormatEvents(events) : "<none>\n");
  }
  if (!listed.ok()) RpcError(c.io, "describe: events", listed);
  return ExitCodeForJob(info.status());
}

// "(SUCCEEDED)" for a job whose cancel found it stopped, so the line says which outcome it kept;
// empty (after saying why on stderr) when Status can't tell: the cancel itself was answered.
std::string StoppedAs(Context& c, const std::string& id) {
  pb::StatusRequest request;
  request.set_execution_id(id);
  pb::JobInfo info;
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = c.conn.stub().Status(ctx.get(), request, &info);
  if (!status.ok()) {
    RpcError(c.io, absl::StrCat("cancel ", QuoteBounded(id), ": its status"), status);
    return "";
  }
  return absl::StrCat(" (", pb::JobInfo::Status_Name(info.status()), ")");
}

int Cancel(Context& c) {
  const bool ignore_not_found = c.flags.Has("ignore-not-found");
  if (c.flags.Has("keep") && c.flags.Has("delete")) {
    c.io.err << "cancel: --keep and --delete exclude each other\n";
    return kExitUsage;
  }
  int worst = kExitOk;
  for (const std::string& id : c.flags.positional()) {
    pb::CancelRequest request;
    request.set_execution_id(id);
    request.set_reason(c.flags.Get("reason").value_or(""));
    if (c.flags.Has("keep")) request.set_mode(pb::CancelRequest::KEEP);
    if (c.flags.Has("delete")) request.set_mode(pb::CancelRequest::DELETE);
    pb::CancelResponse response;
    auto ctx = c.conn.NewContext(false);
    grpc::Status status = c.conn.stub().Cancel(ctx.get(), request, &response);
    if (status.error_code() == grpc::StatusCode::NOT_FOUND && ignore_not_found) {
      // The server's reason stays visible: NOT_FOUND also answers a malformed id.
      (c.format == OutputFormat::kJson ? c.io.err : c.io.out)
          << "not found, nothing cancelled: " << id << " (" << status.error_message() << ")\n";
      continue;
    }
    if (!status.ok()) {
      int code = RpcError(c.io, absl::StrCat("cancel ", QuoteBounded(id)), status);
      if (worst == kExitOk) worst = code;
      continue;
    }
    if (c.format == OutputFormat::kJson) {
      c.io.out << ToJson(response, false);
    } else if (response.already_stopped()) {
      // "cancellation requested" would read as if the job's outcome were about to change.
      std::string as = StoppedAs(c, id);
      c.io.out << "already stopped" << as << ", nothing cancelled: " << id << "\n";
    } else {
      c.io.out << "cancellation requested: " << id << "\n";
    }
  }
  return worst;
}

// --- logs ----------------------------------------------------------------------------------

int Logs(Context& c) {
  const std::string& id = c.flags.positional()[0];
  int tail = 0;
  if (auto v = c.flags.Get("tail")) {
    if (!absl::SimpleAtoi(*v, &tail) || tail < 0) {
      return UsageError(c.io, "logs",
                        absl::StrCat("--tail needs a number >= 0, got ", QuoteBounded(*v)));
    }
  }
  if (!c.flags.Has("follow")) {
    pb::OutputRequest request;
    request.set_execution_id(id);
    request.set_max_lines(tail);
    pb::OutputResponse response;
    auto ctx = c.conn.NewContext(false);
    grpc::Status status = c.conn.stub().Output(ctx.get(), request, &response);
    if (!status.ok()) return RpcError(c.io, "logs", status);
    if (c.format == OutputFormat::kJson) {
      c.io.out << ToJson(response, true);
    } else {
      for (const std::string& line : response.lines()) c.io.out << line << "\n";
    }
    return kExitOk;
  }
  pb::FollowOutputRequest request;
  request.set_execution_id(id);
  request.set_tail_lines(tail);
  auto ctx = c.conn.NewContext(true);
  auto reader = c.conn.stub().FollowOutput(ctx.get(), request);
  pb::OutputChunk chunk;
  while (reader->Read(&chunk)) {
    if (c.format == OutputFormat::kJson) {
      c.io.out << ToJson(chunk, false);
    } else {
      if (chunk.dropped_lines() > 0) {
        c.io.err << kProgram << ": " << chunk.dropped_lines()
                 << " lines dropped (read too slowly)\n";
      }
      for (const std::string& line : chunk.lines()) c.io.out << line << "\n";
    }
    // A follower piped into another program wants each chunk when it comes.
    c.io.out.flush();
  }
  grpc::Status status = reader->Finish();
  if (!status.ok()) return RpcError(c.io, "logs", status);
  return kExitOk;
}

// --- events ------------------------------------------------------------------------------

// What stays the same when the recorder folds a repeat into an event (it raises the count and
// moves the last time): an event across the calls of `events -f`. The answer carries no uid of
// the Event object, and two events that agree on all of this say the same thing.
std::string EventKey(const pb::JobEvent& event) {
  pb::JobEvent key = event;
  key.clear_count();
  key.clear_last_seen();
  return key.SerializeAsString();
}

// `events -f`: Events again every interval, printing each event once and again when its count
// rose, until a call made after Status saw the job stopped (or gone).
int FollowEvents(Context& c, const std::string& id) {
  absl::Duration interval = kDefaultEventsInterval;
  if (auto v = c.flags.Get("interval")) {
    if (!absl::ParseDuration(*v, &interval) || interval < kMinEventsInterval) {
      return UsageError(
          c.io, "events",
          absl::StrCat("--interval needs a duration of at least ",
                       absl::FormatDuration(kMinEventsInterval), ", got ", QuoteBounded(*v)));
    }
  }
  // Whether the job has stopped: then the next Events call is the last.
  auto check_stopped = [&](bool* stopped) {
    pb::StatusRequest request;
    request.set_execution_id(id);
    pb::JobInfo info;
    auto ctx = c.conn.NewContext(false);
    grpc::Status status = c.conn.stub().Status(ctx.get(), request, &info);
    // A job whose application is gone changes no more; its events still answer.
    *stopped = status.error_code() == grpc::StatusCode::NOT_FOUND ||
               (status.ok() && IsTerminal(info.status()));
    return status.ok() || *stopped ? kExitOk : RpcError(c.io, "events: status", status);
  };
  // A job stopped long ago takes one call, as without -f.
  bool last = false;
  if (int code = check_stopped(&last); code != kExitOk) return code;
  std::map<std::string, int64_t> printed;  // by EventKey: the count printed
  GrowingTable table(EventsHeader());
  bool noted_truncation = false;
  pb::EventsRequest request;
  request.set_execution_id(id);
  for (;;) {
    pb::EventsResponse response;
    auto ctx = c.conn.NewContext(false);
    grpc::Status status = c.conn.stub().Events(ctx.get(), request, &response);
    if (!status.ok()) return RpcError(c.io, "events", status);
    std::vector<std::vector<std::string>> rows;
    for (const pb::JobEvent& e : response.events()) {
      auto [it, added] = printed.try_emplace(EventKey(e), e.count());
      if (!added && e.count() <= it->second) continue;
      it->second = e.count();
      if (c.format == OutputFormat::kJson) {
        c.io.out << ToJson(e, false);
      } else {
        rows.push_back(EventRow(e));
      }
    }
    if (c.format == OutputFormat::kTable) c.io.out << table.Format(rows);
    if (response.truncated() && !noted_truncation) {
      c.io.err << kProgram << ": events: more than the server returns; these are the oldest\n";
      noted_truncation = true;
    }
    c.io.out.flush();
    if (last) return kExitOk;
    // Checked before the wait: what the stop itself recorded has an interval to land before the
    // last call.
    if (int code = check_stopped(&last); code != kExitOk) return code;
    c.io.sleep(interval);
  }
}

int Events(Context& c) {
  const std::string& id = c.flags.positional()[0];
  if (c.flags.Has("follow")) return FollowEvents(c, id);
  if (c.flags.Has("interval")) return UsageError(c.io, "events", "--interval goes with -f");
  pb::EventsRequest request;
  request.set_execution_id(id);
  pb::EventsResponse response;
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = c.conn.stub().Events(ctx.get(), request, &response);
  if (!status.ok()) return RpcError(c.io, "events", status);
  if (c.format == OutputFormat::kJson) {
    c.io.out << ToJson(response, true);
    return kExitOk;
  }
  c.io.out << FormatEvents(response);
  if (response.truncated()) {
    c.io.err << kProgram << ": events: more than the server returns; these are the oldest\n";
  }
  return kExitOk;
}

// --- list ----------------------------------------------------------------------------------

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
  if (c.format == OutputFormat::kJson) {
    c.io.out << ToJson(all, true);
  } else {
    c.io.out << FormatJobList({all.jobs().begin(), all.jobs().end()});
  }
  return kExitOk;
}

// --- watch ---------------------------------------------------------------------------------

int Watch(Context& c) {
  const auto& ids = c.flags.positional();
  std::set<std::string> distinct(ids.begin(), ids.end());
  if (distinct.size() != ids.size()) {
    return UsageError(c.io, "watch", "an execution id is given twice");
  }
  pb::WatchStatusRequest request;
  for (const std::string& id : ids) request.add_execution_ids(id);
  const absl::Time start = c.io.clock.Now();
  auto ctx = c.conn.NewContext(true);
  auto reader = c.conn.stub().WatchStatus(ctx.get(), request);
  // The last status and operator state printed per job: the stream also reports changes of
  // times and messages, which are no transitions.
  std::map<std::string, std::tuple<pb::JobInfo::Status, std::string, pb::JobInfo::WaitingReason>>
      last;
  std::map<std::string, pb::JobInfo::Status> final_status;
  pb::JobInfo info;
  const bool with_id = ids.size() > 1;
  while (reader->Read(&info)) {
    if (c.format == OutputFormat::kJson) {
      c.io.out << ToJson(info, false);
    } else {
      auto key = std::make_tuple(info.status(), info.operator_state(), info.waiting_reason());
      auto it = last.find(info.execution_id());
      if (it == last.end() || it->second != key) {
        c.io.out << FormatTransition(c.io.clock.Now() - start, info, with_id);
        last[info.execution_id()] = key;
      }
    }
    c.io.out.flush();
    final_status[info.execution_id()] = info.status();
  }
  grpc::Status status = reader->Finish();
  if (!status.ok()) return RpcError(c.io, "watch", status);
  // The stream ends OK only once every job stopped; anything else is the server's fault, and
  // no exit code may claim an outcome for a job still running.
  size_t stopped = 0;
  int failed = 0, cancelled = 0;
  for (const auto& [id, s] : final_status) {
    if (!IsTerminal(s)) continue;
    ++stopped;
    failed += s == pb::JobInfo::FAILED;
    cancelled += s == pb::JobInfo::CANCELLED;
  }
  if (stopped < ids.size()) {
    c.io.err << kProgram << ": watch: the stream ended before every job stopped\n";
    return kExitError;
  }
  if (failed > 0) return kExitJobFailed;
  if (cancelled > 0) return kExitJobCancelled;
  return kExitOk;
}

// --- health ----------------------------------------------------------------------------------

// grpc.health.v1.Health/Check, for exec probes: the kubelet's own gRPC probe can't speak TLS nor
// reach a sidecar listening on loopback, a command inside the container can.
int Health(Context& c) {
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(c.flags.Get("service").value_or(""));
  grpc::health::v1::HealthCheckResponse response;
  auto stub = grpc::health::v1::Health::NewStub(c.conn.channel());
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = stub->Check(ctx.get(), request, &response);
  if (!status.ok()) return RpcError(c.io, "health", status);
  std::string name = grpc::health::v1::HealthCheckResponse::ServingStatus_Name(response.status());
  if (c.format == OutputFormat::kJson) {
    c.io.out << ToJson(response, true);
  } else {
    c.io.out << name << "\n";
  }
  return response.status() == grpc::health::v1::HealthCheckResponse::SERVING ? kExitOk
                                                                             : kExitUnavailable;
}

// --- the command table ---------------------------------------------------------------------

std::vector<FlagSpec> SubmitFlags() {
  std::vector<FlagSpec> flags = TemplateFlags();
  flags.insert(flags.begin() + 1,
               FlagSpec{"job-id", 0, "ID", false, "the job id (names the application)"});
  flags.push_back({"dry-run", 0, "", false,
                   "print the application the server would create (YAML; -o json: JSON), "
                   "checked by the server and the API server; nothing is created"});
  return flags;
}

int Completion(Context& c);

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"submit",
       "(-f JOB_FILE | --job-id ID --metalake NAME --name NAME --executable URI ...) [flags]",
       "submit a job; prints its execution id",
       "The job comes from a YAML job file (see cli/README.md), from flags, or from both: flags\n"
       "override the file. Submitting the same job id again adopts the existing application.\n",
       SubmitFlags(), "", 0, 0, Submit},
      {"status",
       "EXECUTION_ID [flags]",
       "print a job's status",
       "Exit code 0 only when the job SUCCEEDED; 3 FAILED, 4 CANCELLED, 5 not finished yet.\n",
       {},
       "EXECUTION_ID",
       1,
       1,
       Status},
      {"describe",
       "EXECUTION_ID [flags]",
       "print a job's status, why it waits, and its events",
       "status and events in one: the JobInfo (with WAITING, DEADLINE, QUEUE when set), then the\n"
       "Kubernetes events of its application and driver pod, oldest first. Exit code as status.\n",
       {},
       "EXECUTION_ID",
       1,
       1,
       Describe},
      {"cancel",
       "EXECUTION_ID... [--ignore-not-found] [--keep|--delete] [--reason TEXT] [flags]",
       "request cancellation of jobs (returns at once)",
       "A job that had already stopped keeps its outcome: its line says so, with its status,\n"
       "and the exit code is 0. A job that doesn't exist (any more) is NOT_FOUND (exit code\n"
       "6) unless --ignore-not-found. Follow with `watch`. --keep stops the job and keeps its\n"
       "application, so `status` says CANCELLED with the reason until its TTL; --delete\n"
       "deletes it; neither: the server's cancelMode.\n",
       {
           {"ignore-not-found", 0, "", false, "a job that doesn't exist is no error"},
           {"keep", 0, "", false, "stop the job, keep its record"},
           {"delete", 0, "", false, "delete the job's application"},
           {"reason", 0, "TEXT", false, "why (at most 1024 bytes), shown by status"},
       },
       "EXECUTION_ID",
       1,
       SIZE_MAX,
       Cancel},
      {"logs",
       "EXECUTION_ID [--tail N] [-f] [flags]",
       "print the driver log",
       "Without -f: the log's tail (Output). With -f: the last lines, then new ones as the\n"
       "driver writes them, until the driver stops (FollowOutput).\n",
       {
           {"tail", 0, "N", false,
            "at most N lines (-f: N lines of history); 0: the server's default"},
           {"follow", 'f', "", false, "keep printing as the log grows"},
       },
       "EXECUTION_ID",
       1,
       1,
       Logs},
      {"events",
       "EXECUTION_ID [-f [--interval DURATION]] [flags]",
       "print the Kubernetes events of a job's application and driver pod",
       "Oldest first, as `kubectl describe` shows them: scheduling, image pulls, the operator's\n"
       "state changes with their reasons. Still there a while after the application is gone.\n"
       "With -f: asks again every interval and prints only what is new (an event again when\n"
       "its count went up), until the job has stopped and one last answer is printed; each\n"
       "call has the --timeout deadline. With -o json and -f: one JobEvent per line.\n",
       {
           {"follow", 'f', "", false, "keep printing new events until the job stops"},
           {"interval", 0, "DURATION", false, "with -f: time between calls (default 2s, >= 500ms)"},
       },
       "EXECUTION_ID",
       1,
       1,
       Events},
      {"list",
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
       List},
      {"watch",
       "EXECUTION_ID... [flags]",
       "print each job's transitions until every job stops",
       "Prints one line per change of status or operator state, with the time since the watch\n"
       "began. Exits 0 when every job SUCCEEDED, 3 when one FAILED, else 4 when one was\n"
       "CANCELLED. With -o json: every JobInfo the server sends, one per line.\n",
       {},
       "EXECUTION_ID",
       1,
       100,
       Watch},
      {"health",
       "[--service NAME] [flags]",
       "check the server's health (grpc.health.v1.Health/Check)",
       "Exit code 0 when SERVING, 7 otherwise or when the server can't be reached. For exec\n"
       "probes, e.g. `k8s-job-executor health --service readiness --timeout 1s`.\n",
       {
           {"service", 0, "NAME", false, "\"\" (default), liveness or readiness"},
       },
       "",
       0,
       0,
       Health},
      {"contexts",
       "[flags]",
       "list the contexts of the contexts file",
       "Connection settings come from the flags, then K8S_JOB_EXECUTOR_SERVER, _TLS, _TLS_CA,\n"
       "_TLS_CERT, _TLS_KEY, _TLS_SERVER_NAME and _TOKEN_FILE, then a named context of the file\n"
       "$K8S_JOB_EXECUTOR_CONFIG (default ~/.config/k8s-job-executor/config), picked by\n"
       "--context, $K8S_JOB_EXECUTOR_CONTEXT or the file's current-context:\n\n"
       "  current-context: prod\n"
       "  contexts:\n"
       "    prod: {server: kje.example.com:443, tls-ca: prod-ca.crt, token-file: prod.token}\n"
       "    local: {server: 127.0.0.1:50051}\n\n"
       "Relative paths are relative to the file; the file names files, never a token.\n",
       {},
       "",
       0,
       0,
       ListContexts},
      ForwardCommand(),
      {"completion",
       "bash|zsh",
       "print the shell completion script",
       "Completes commands, schedule verbs, flags, -o values, --context names and file flags.\n"
       "bash: `source <(k8s-job-executor completion bash)`; zsh: `source <(k8s-job-executor\n"
       "completion zsh)` in ~/.zshrc, after compinit.\n",
       {},
       "shell",
       1,
       1,
       Completion},
  };
  return kCommands;
}

constexpr char kScheduleGroup[] = "schedule";
constexpr size_t kScheduleGroupLength = sizeof(kScheduleGroup) - 1;

const Command* FindIn(const std::vector<Command>& commands, std::string_view name) {
  for (const Command& c : commands) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// `schedule --help`: what the verbs are for, and each in a line.
std::string ScheduleGroupUsage() {
  std::string out = absl::StrCat(
      "usage: ", kProgram, " schedule <verb> [arguments] [flags]\n\n",
      "Recurring jobs: kubeflow/spark-operator ScheduledSparkApplications, on a server whose\n"
      "`operator` setting is kubeflow (one on the Apache operator answers FAILED_PRECONDITION,\n"
      "exit code 1). Each run is a job: status, watch, logs, events and cancel take its\n"
      "execution id, and list shows it (its job id is the schedule id).\n\n"
      "verbs (see `",
      kProgram, " schedule <verb> --help`):\n");
  for (const Command& c : ScheduleCommands()) {
    std::string verb = c.name.substr(kScheduleGroupLength + 1);  // after "schedule "
    absl::StrAppend(&out, "  ", verb, std::string(10 - verb.size(), ' '), c.summary, "\n");
  }
  return out;
}

// "exactly one EXECUTION_ID", "at most one SCHEDULE_ID", "no arguments", ...
std::string ArgumentsWanted(const Command& command) {
  const std::string& arg = command.arg_name;
  if (command.max_args == 0) return "no arguments";
  if (command.max_args == SIZE_MAX) return absl::StrCat("at least one ", arg);
  if (command.min_args == 0 && command.max_args == 1) return absl::StrCat("at most one ", arg);
  if (command.min_args == 1 && command.max_args == 1) return absl::StrCat("exactly one ", arg);
  return absl::StrCat(command.min_args, " to ", command.max_args, " ", arg, "s");
}

std::string CommandUsage(const Command& command) {
  return absl::StrCat(
      "usage: ", kProgram, " ", command.name, " ", command.synopsis, "\n\n", command.summary, ".\n",
      command.details, "\n",
      command.flags.empty() ? "" : absl::StrCat("flags:\n", FlagsHelp(command.flags), "\n"),
      "common flags:\n", FlagsHelp(CommonFlags()), "\n", ExitCodeHelp());
}

absl::StatusOr<ConnectionOptions> ConnectionFromFlags(const ParsedFlags& flags, const Io& io) {
  ASSIGN_OR_RETURN(ConnectionOptions options, ResolveConnection(flags, io.env));
  if (auto v = flags.Get("timeout")) {
    absl::Duration d;
    if (!absl::ParseDuration(*v, &d) || d <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--timeout needs a positive duration such as 10s or 2m, got ", QuoteBounded(*v)));
    }
    options.timeout = d;
  }
  return options;
}

// The commands whose arguments are jobs: each may be named by its job id or application name.
bool NamesJobs(std::string_view command) {
  return command == "status" || command == "describe" || command == "cancel" || command == "logs" ||
         command == "events" || command == "watch" || command == "forward";
}

int Completion(Context& c) {
  std::vector<CompletionCommand> commands;
  auto add = [&](const Command& command) {
    CompletionCommand entry{command.name, command.flags};
    if (NamesJobs(command.name)) entry.flags.push_back({"namespace", 'n', "NS", false, ""});
    entry.flags.insert(entry.flags.end(), CommonFlags().begin(), CommonFlags().end());
    commands.push_back(std::move(entry));
  };
  for (const Command& command : Commands()) add(command);
  for (const Command& command : ScheduleCommands()) add(command);
  auto script = CompletionScript(c.flags.positional()[0], commands);
  if (!script.ok()) return UsageError(c.io, "completion", std::string(script.status().message()));
  c.io.out << *script;
  return kExitOk;
}

}  // namespace

bool IsCommand(std::string_view name) {
  return name == kScheduleGroup || FindIn(Commands(), name) != nullptr;
}

std::string CommandsHelp() {
  std::string out;
  for (const Command& c : Commands()) {
    absl::StrAppend(&out, "  ", c.name, std::string(10 - c.name.size(), ' '), c.summary, "\n");
  }
  absl::StrAppend(&out, "  ", kScheduleGroup, std::string(10 - kScheduleGroupLength, ' '),
                  "create, get, list, update, suspend, resume, run or delete schedules\n");
  return out;
}

int Run(const std::vector<std::string>& args, Io& io) {
  // gRPC core's own lines (a failed TLS handshake) repeat what the RPC's status says, in another
  // format: the status is what the CLI reports.
  gpr_set_log_function([](gpr_log_func_args* /*args*/) {});
  if (args.empty() || !IsCommand(args[0])) {
    io.err << kProgram << ": not a client command: " << (args.empty() ? "" : QuoteBounded(args[0]))
           << "\n";
    return kExitUsage;
  }
  // `schedule <verb> ...` is the command "schedule <verb>" with the arguments after the verb.
  const Command* command = FindIn(Commands(), args[0]);
  size_t consumed = 1;
  if (command == nullptr) {
    if (args.size() < 2 || args[1] == "-h" || args[1] == "--help") {
      (args.size() < 2 ? io.err : io.out) << ScheduleGroupUsage();
      return args.size() < 2 ? kExitUsage : kExitOk;
    }
    command = FindIn(ScheduleCommands(), absl::StrCat(kScheduleGroup, " ", args[1]));
    if (command == nullptr) {
      return UsageError(io, kScheduleGroup, absl::StrCat("no verb ", QuoteBounded(args[1])));
    }
    consumed = 2;
  }
  std::vector<FlagSpec> specs = command->flags;
  const bool names_jobs = NamesJobs(command->name);
  if (names_jobs) {
    specs.push_back({"namespace", 'n', "NS", false,
                     "where a job id or an application name is looked up (default: the "
                     "server's namespace)"});
  }
  specs.insert(specs.end(), CommonFlags().begin(), CommonFlags().end());
  auto flags = ParseFlags({args.begin() + consumed, args.end()}, specs);
  if (!flags.ok()) return UsageError(io, command->name, std::string(flags.status().message()));
  if (flags->Has("help")) {
    io.out << CommandUsage(*command);
    return kExitOk;
  }
  size_t n = flags->positional().size();
  if (n < command->min_args || n > command->max_args) {
    return UsageError(
        io, command->name,
        absl::StrCat("takes ", ArgumentsWanted(*command), ", got ", n,
                     n > 0 ? absl::StrCat(": ", QuotedList(flags->positional())) : ""));
  }
  OutputFormat format = OutputFormat::kTable;
  if (auto v = flags->Get("output")) {
    if (*v == "json") {
      format = OutputFormat::kJson;
    } else if (*v != "table") {
      return UsageError(io, command->name,
                        absl::StrCat("-o must be table or json, got ", QuoteBounded(*v)));
    }
  }
  auto options = ConnectionFromFlags(*flags, io);
  if (!options.ok()) return UsageError(io, command->name, std::string(options.status().message()));
  auto conn = Connection::Open(*options);
  if (!conn.ok()) return UsageError(io, command->name, std::string(conn.status().message()));
  if ((*conn)->TokenWithoutTls()) {
    io.err << kProgram << ": warning: sending the bearer token without TLS\n";
  }
  Context context{*flags, **conn, format, io};
  std::vector<std::string> hints;
  if (names_jobs) {
    std::vector<std::string> ids;
    for (const std::string& arg : flags->positional()) {
      auto ref = ResolveJobRef(context, arg, flags->Get("namespace").value_or(""));
      if (!ref.ok()) return UsageError(io, command->name, std::string(ref.status().message()));
      ids.push_back(ref->execution_id);
      if (!ref->hint.empty()) hints.push_back(ref->hint);
    }
    flags->set_positional(std::move(ids));
  }
  const int code = command->run(context);
  // After the server's own NOT_FOUND: where the CLI looked for the name, and what is close.
  if (code == kExitNotFound) {
    for (const std::string& hint : hints) io.err << kProgram << ": hint: " << hint << "\n";
  }
  return code;
}

}  // namespace kje::cli
