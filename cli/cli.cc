#include "cli/cli.h"

#include <cstdint>
#include <functional>
#include <ostream>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/quote.h"
#include "base/strings.h"
#include "cli/client.h"
#include "cli/exit_codes.h"
#include "cli/flags.h"
#include "cli/job_file.h"
#include "cli/output.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace kje::cli {
namespace {

namespace pb = jobexecutor::v1;

constexpr char kProgram[] = "k8s-job-executor";
// A server that hands out page tokens forever must not keep `list` running forever.
constexpr int kMaxListPages = 10000;

// What every command gets besides its own flags.
struct Context {
  const ParsedFlags& flags;
  Connection& conn;
  OutputFormat format;
  Io& io;
};

struct Command {
  std::string name;
  std::string synopsis;  // after the command name
  std::string summary;
  std::string details;
  std::vector<FlagSpec> flags;
  size_t min_args;
  size_t max_args;  // SIZE_MAX: any number
  std::function<int(Context&)> run;
};

const std::vector<FlagSpec>& CommonFlags() {
  static const std::vector<FlagSpec> kFlags = {
      {"server", 0, "HOST:PORT", false,
       absl::StrCat("the server (default $", kServerEnv, ", else ", kDefaultServer, ")")},
      {"tls", 0, "", false, "use TLS, trusting the system's roots unless --tls-ca is given"},
      {"tls-ca", 0, "FILE", false,
       "CA certificates (PEM) for the server's certificate; implies --tls"},
      {"tls-cert", 0, "FILE", false, "client certificate (PEM) for mutual TLS; with --tls-key"},
      {"tls-key", 0, "FILE", false, "client private key (PEM) for mutual TLS"},
      {"tls-server-name", 0, "NAME", false, "the name to verify in the server's certificate"},
      {"token-file", 0, "FILE", false, "send \"authorization: Bearer <file content>\""},
      {"timeout", 0, "DURATION", false,
       "deadline of each call, e.g. 10s, 2m (default 30s; none for watch and logs -f)"},
      {"output", 'o', "FORMAT", false, "table (default) or json"},
      {"help", 'h', "", false, "print this help"},
  };
  return kFlags;
}

// Prints the RPC's error and returns its exit code.
int RpcError(Io& io, const std::string& what, const grpc::Status& status) {
  io.err << kProgram << ": " << what << ": " << GrpcCodeName(status.error_code()) << ": "
         << status.error_message() << "\n";
  return ExitCodeForRpc(status.error_code());
}

int UsageError(Io& io, const std::string& command, const std::string& message) {
  io.err << kProgram << " " << command << ": " << message << "\n"
         << "run `" << kProgram << " " << command << " --help` for usage\n";
  return kExitUsage;
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

// --- submit --------------------------------------------------------------------------------

// The request from the job file, if any, with the flags applied over it: a scalar flag replaces
// the file's value, a list flag replaces the file's list, --conf adds or replaces one key.
absl::StatusOr<pb::SubmitRequest> BuildSubmitRequest(const ParsedFlags& flags) {
  pb::SubmitRequest request;
  if (auto file = flags.Get("job-file")) {
    auto loaded = LoadJobFile(*file);
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
  if (absl::Status s = ValidateSubmitRequest(request); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(s.message(), " (give it in the job file or as a flag)"));
  }
  return request;
}

int Submit(Context& c) {
  auto request = BuildSubmitRequest(c.flags);
  if (!request.ok()) return UsageError(c.io, "submit", std::string(request.status().message()));
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

int Cancel(Context& c) {
  int worst = kExitOk;
  for (const std::string& id : c.flags.positional()) {
    pb::CancelRequest request;
    request.set_execution_id(id);
    pb::CancelResponse response;
    auto ctx = c.conn.NewContext(false);
    grpc::Status status = c.conn.stub().Cancel(ctx.get(), request, &response);
    if (!status.ok()) {
      int code = RpcError(c.io, absl::StrCat("cancel ", QuoteBounded(id)), status);
      if (worst == kExitOk) worst = code;
      continue;
    }
    if (c.format == OutputFormat::kJson) {
      c.io.out << ToJson(response, false);
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

// --- events --------------------------------------------------------------------------------

int Events(Context& c) {
  pb::EventsRequest request;
  request.set_execution_id(c.flags.positional()[0]);
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

int List(Context& c) {
  pb::ListJobsRequest request;
  if (auto v = c.flags.Get("namespace")) request.set_namespace_(*v);
  if (auto v = c.flags.Get("selector")) request.set_label_selector(*v);
  if (auto v = c.flags.Get("page-size")) {
    int n = 0;
    if (!absl::SimpleAtoi(*v, &n) || n < 1) {
      return UsageError(c.io, "list",
                        absl::StrCat("--page-size needs a number >= 1, got ", QuoteBounded(*v)));
    }
    request.set_page_size(n);
  }
  pb::ListJobsResponse all;
  std::set<std::string> tokens_seen;
  for (int page = 0;; ++page) {
    if (page == kMaxListPages) {
      c.io.err << kProgram << ": list: more than " << kMaxListPages << " pages; stopped\n";
      return kExitError;
    }
    pb::ListJobsResponse response;
    auto ctx = c.conn.NewContext(false);
    grpc::Status status = c.conn.stub().ListJobs(ctx.get(), request, &response);
    if (!status.ok()) return RpcError(c.io, "list", status);
    for (auto& job : *response.mutable_jobs()) *all.add_jobs() = std::move(job);
    if (response.next_page_token().empty()) break;
    // A token seen before would page in a circle.
    if (!tokens_seen.insert(response.next_page_token()).second) {
      c.io.err << kProgram << ": list: the server repeated a page token; stopped\n";
      return kExitError;
    }
    request.set_page_token(response.next_page_token());
  }
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
  std::map<std::string, std::pair<pb::JobInfo::Status, std::string>> last;
  std::map<std::string, pb::JobInfo::Status> final_status;
  pb::JobInfo info;
  const bool with_id = ids.size() > 1;
  while (reader->Read(&info)) {
    if (c.format == OutputFormat::kJson) {
      c.io.out << ToJson(info, false);
    } else {
      auto key = std::make_pair(info.status(), info.operator_state());
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

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"submit",
       "(-f JOB_FILE | --job-id ID --metalake NAME --name NAME --executable URI ...) [flags]",
       "submit a job; prints its execution id",
       "The job comes from a YAML job file (see cli/README.md), from flags, or from both: flags\n"
       "override the file. Submitting the same job id again adopts the existing application.\n",
       {
           {"job-file", 'f', "FILE", false, "the job file (YAML; - reads stdin)"},
           {"job-id", 0, "ID", false, "the job id (names the application)"},
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
       },
       0,
       0,
       Submit},
      {"status",
       "EXECUTION_ID [flags]",
       "print a job's status",
       "Exit code 0 only when the job SUCCEEDED; 3 FAILED, 4 CANCELLED, 5 not finished yet.\n",
       {},
       1,
       1,
       Status},
      {"cancel",
       "EXECUTION_ID... [flags]",
       "request cancellation of jobs (returns at once)",
       "Cancelling a stopped job leaves its outcome and succeeds. Follow with `watch`.\n",
       {},
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
       1,
       1,
       Logs},
      {"events",
       "EXECUTION_ID [flags]",
       "print the Kubernetes events of a job's application and driver pod",
       "Oldest first, as `kubectl describe` shows them: scheduling, image pulls, the operator's\n"
       "state changes with their reasons. Still there a while after the application is gone.\n",
       {},
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
       },
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
       0,
       0,
       Health},
  };
  return kCommands;
}

const Command* FindCommand(std::string_view name) {
  for (const Command& c : Commands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string CommandUsage(const Command& command) {
  return absl::StrCat(
      "usage: ", kProgram, " ", command.name, " ", command.synopsis, "\n\n", command.summary, ".\n",
      command.details, "\n",
      command.flags.empty() ? "" : absl::StrCat("flags:\n", FlagsHelp(command.flags), "\n"),
      "common flags:\n", FlagsHelp(CommonFlags()), "\n", ExitCodeHelp());
}

absl::StatusOr<ConnectionOptions> ConnectionFromFlags(const ParsedFlags& flags, const Io& io) {
  ConnectionOptions options;
  if (auto v = flags.Get("server")) {
    options.server = *v;
  } else if (auto it = io.env.find(kServerEnv); it != io.env.end() && !it->second.empty()) {
    options.server = it->second;
  }
  options.tls = flags.Has("tls");
  options.tls_ca_file = flags.Get("tls-ca").value_or("");
  options.tls_cert_file = flags.Get("tls-cert").value_or("");
  options.tls_key_file = flags.Get("tls-key").value_or("");
  options.tls_server_name = flags.Get("tls-server-name").value_or("");
  options.token_file = flags.Get("token-file").value_or("");
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

}  // namespace

bool IsCommand(std::string_view name) { return FindCommand(name) != nullptr; }

std::string CommandsHelp() {
  std::string out;
  for (const Command& c : Commands()) {
    absl::StrAppend(&out, "  ", c.name, std::string(10 - c.name.size(), ' '), c.summary, "\n");
  }
  return out;
}

int Run(const std::vector<std::string>& args, Io& io) {
  const Command* command = args.empty() ? nullptr : FindCommand(args[0]);
  if (command == nullptr) {
    io.err << kProgram << ": not a client command: " << (args.empty() ? "" : QuoteBounded(args[0]))
           << "\n";
    return kExitUsage;
  }
  std::vector<FlagSpec> specs = command->flags;
  specs.insert(specs.end(), CommonFlags().begin(), CommonFlags().end());
  auto flags = ParseFlags({args.begin() + 1, args.end()}, specs);
  if (!flags.ok()) return UsageError(io, command->name, std::string(flags.status().message()));
  if (flags->Has("help")) {
    io.out << CommandUsage(*command);
    return kExitOk;
  }
  size_t n = flags->positional().size();
  if (n < command->min_args || n > command->max_args) {
    std::string want = command->max_args == 0 ? "no arguments"
                       : command->min_args == command->max_args
                           ? "exactly one EXECUTION_ID"
                           : absl::StrCat("1 to ", command->max_args, " EXECUTION_IDs");
    if (command->max_args == SIZE_MAX) want = "at least one EXECUTION_ID";
    return UsageError(
        io, command->name,
        absl::StrCat("takes ", want, ", got ", n,
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
  return command->run(context);
}

}  // namespace kje::cli
