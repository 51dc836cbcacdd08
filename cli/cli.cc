#include "cli/cli.h"

#include <grpc/support/log.h>

#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "cli/command.h"
#include "cli/completion.h"
#include "cli/contexts.h"
#include "cli/dry_run.h"
#include "cli/forward.h"
#include "cli/job_ref.h"
#include "cli/verbs.h"

namespace kje::cli {
namespace {

// The first few are enough to spot the mistake; a shell glob may pass thousands.
std::string QuotedList(const std::vector<std::string>& items) {
  constexpr size_t kShown = 5;
  std::vector<std::string> quoted;
  for (size_t i = 0; i < items.size() && i < kShown; ++i) quoted.push_back(QuoteBounded(items[i]));
  if (items.size() > kShown) quoted.push_back(absl::StrCat("and ", items.size() - kShown, " more"));
  return absl::StrJoin(quoted, " ");
}

int Completion(Context& c);

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      SubmitCommand(),
      StatusCommand(),
      DescribeCommand(),
      CancelCommand(),
      LogsCommand(),
      EventsCommand(),
      ListCommand(),
      WatchCommand(),
      HealthCommand(),
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
       ListContexts,
       {OutputFormat::kTable}},
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
       Completion,
       {OutputFormat::kTable}},
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

std::string FormatNames(const Command& command) {
  std::vector<std::string> names;
  for (OutputFormat format : command.formats) names.push_back(std::string(FormatName(format)));
  return absl::StrJoin(names, ", ");
}

std::string CommandUsage(const Command& command) {
  return absl::StrCat(
      "usage: ", kProgram, " ", command.name, " ", command.synopsis, "\n\n", command.summary, ".\n",
      command.details, "\n",
      command.flags.empty() ? "" : absl::StrCat("flags:\n", FlagsHelp(command.flags), "\n"),
      "common flags:\n", FlagsHelp(CommonFlags()), "\n", "-o takes: ", FormatNames(command), "\n\n",
      ExitCodeHelp());
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
    auto parsed = ParseOutputFormat(*v, command->formats);
    if (!parsed.ok()) return UsageError(io, command->name, std::string(parsed.status().message()));
    format = *parsed;
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
