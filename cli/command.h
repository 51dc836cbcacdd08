#pragma once

// What the CLI's commands share (cli.cc's table of top-level commands, one file per command, and
// schedule.cc's verbs of `schedule`): the command descriptor, the context a command runs in, and
// the error printers. Internal to cli/.

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "cli/cli.h"
#include "cli/client.h"
#include "cli/exit_codes.h"
#include "cli/flags.h"
#include "cli/output.h"
#include "jobexecutor/v1/job_executor.pb.h"

namespace kje::cli {

inline constexpr char kProgram[] = "k8s-job-executor";

// What every command gets besides its own flags.
struct Context {
  const ParsedFlags& flags;
  Connection& conn;
  OutputFormat format;
  Io& io;
};

// table, json and yaml: what a command that prints an answer takes at least.
inline std::vector<OutputFormat> StructuredFormats() {
  return {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kYaml};
}
// ... and name: commands whose answer names jobs or schedules.
inline std::vector<OutputFormat> NamingFormats() {
  return {OutputFormat::kTable, OutputFormat::kJson, OutputFormat::kYaml, OutputFormat::kName};
}
// ... and wide: commands that print a table with columns to add.
inline std::vector<OutputFormat> AllFormats() {
  return {OutputFormat::kTable, OutputFormat::kWide, OutputFormat::kJson, OutputFormat::kYaml,
          OutputFormat::kName};
}

struct Command {
  std::string name;      // "submit", or "schedule create" for a verb of `schedule`
  std::string synopsis;  // after the command name
  std::string summary;
  std::string details;
  std::vector<FlagSpec> flags;
  std::string arg_name;  // what the positional arguments are, for usage errors
  size_t min_args;
  size_t max_args;  // SIZE_MAX: any number
  std::function<int(Context&)> run;
  // The -o values the command takes (a usage error names them for any other).
  std::vector<OutputFormat> formats = StructuredFormats();
};

// The verbs of `schedule`, named "schedule <verb>".
const std::vector<Command>& ScheduleCommands();

// The flags every command takes: the connection, --timeout, -o and --help.
const std::vector<FlagSpec>& CommonFlags();

// -o json or yaml: prints `message` and returns true; false for the formats each command prints
// itself (table, wide, name). `stream`: one of a sequence (json: one line each; yaml: each a
// document after "---").
bool PrintStructured(Context& c, const google::protobuf::Message& message, bool stream = false);

// Whether -o is table or wide.
inline bool IsTable(const Context& c) {
  return c.format == OutputFormat::kTable || c.format == OutputFormat::kWide;
}

// Prints the RPC's error and returns its exit code.
int RpcError(Io& io, const std::string& what, const grpc::Status& status);

// Prints a usage error of `command` and returns kExitUsage.
int UsageError(Io& io, const std::string& command, const std::string& message);

// The flags that describe a job's template (the job file, then flags over it), shared by
// `submit` and `schedule create`: all but --job-id.
std::vector<FlagSpec> TemplateFlags();

// The request from the job file, if any, with the template flags (and --job-id, when the
// command has it) applied over it, not yet checked for completeness: the caller fills what else
// it knows, then calls ValidateSubmitRequest.
absl::StatusOr<jobexecutor::v1::SubmitRequest> BuildJobRequest(const ParsedFlags& flags);

// A server that hands out page tokens forever must not keep a listing running forever.
inline constexpr int kMaxListPages = 10000;

// Calls `call(request, &response)` for every page, passing each response to `take`, until a page
// has no next token. Stops with an error on a repeated token (a circle) or after kMaxListPages.
// Returns kExitOk, or the exit code of what went wrong (already printed).
template <typename Request, typename Response, typename Call, typename Take>
int WalkPages(Context& c, const std::string& what, Request request, Call call, Take take) {
  std::set<std::string> tokens_seen;
  for (int page = 0;; ++page) {
    if (page == kMaxListPages) {
      c.io.err << kProgram << ": " << what << ": more than " << kMaxListPages
               << " pages; stopped\n";
      return kExitError;
    }
    Response response;
    auto ctx = c.conn.NewContext(false);
    grpc::Status status = call(ctx.get(), request, &response);
    if (!status.ok()) return RpcError(c.io, what, status);
    std::string token = response.next_page_token();
    take(response);
    if (token.empty()) return kExitOk;
    if (!tokens_seen.insert(token).second) {
      c.io.err << kProgram << ": " << what << ": the server repeated a page token; stopped\n";
      return kExitError;
    }
    request.set_page_token(token);
  }
}

// --page-size N (N >= 1), or 0 when not given.
absl::StatusOr<int> PageSizeFlag(const ParsedFlags& flags);

}  // namespace kje::cli
