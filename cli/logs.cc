// `logs`: the driver's (or an executor's) log tail (Output), or the log as it grows
// (FollowOutput), with kubectl logs' --since, --timestamps and --previous.

#include <cstdint>
#include <ostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/quote.h"
#include "cli/verbs.h"

namespace kje::cli {

namespace pb = jobexecutor::v1;
namespace {

// What the flags ask of either RPC.
struct LogsFlags {
  int tail = 0;
  int executor = 0;
  int64_t since_seconds = 0;
  bool timestamps = false;
  bool previous = false;
};

absl::StatusOr<LogsFlags> ParseLogsFlags(const ParsedFlags& flags) {
  LogsFlags out;
  if (auto v = flags.Get("tail")) {
    if (!absl::SimpleAtoi(*v, &out.tail) || out.tail < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--tail needs a number >= 0, got ", QuoteBounded(*v)));
    }
  }
  if (auto v = flags.Get("executor")) {
    if (!absl::SimpleAtoi(*v, &out.executor) || out.executor < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--executor needs a Spark executor id >= 1 (1, 2, ...), got ", QuoteBounded(*v)));
    }
  }
  if (auto v = flags.Get("since")) {
    absl::Duration since;
    if (!absl::ParseDuration(*v, &since) || since <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--since needs a positive duration such as 10s, 5m or 1h, got ", QuoteBounded(*v)));
    }
    // As kubectl: the API takes whole seconds, and a part of one still asks for that second.
    out.since_seconds = absl::ToInt64Seconds(absl::Ceil(since, absl::Seconds(1)));
  }
  out.timestamps = flags.Has("timestamps");
  out.previous = flags.Has("previous");
  if (out.previous && flags.Has("follow")) {
    return absl::InvalidArgumentError(
        "--previous doesn't go with -f: a previous run's log has ended, there is nothing to "
        "follow");
  }
  return out;
}

int Logs(Context& c) {
  const std::string& id = c.flags.positional()[0];
  auto f = ParseLogsFlags(c.flags);
  if (!f.ok()) return UsageError(c.io, "logs", std::string(f.status().message()));
  if (!c.flags.Has("follow")) {
    pb::OutputRequest request;
    request.set_execution_id(id);
    request.set_max_lines(f->tail);
    request.set_executor(f->executor);
    request.set_since_seconds(f->since_seconds);
    request.set_timestamps(f->timestamps);
    request.set_previous(f->previous);
    pb::OutputResponse response;
    auto ctx = c.conn.NewContext(false);
    grpc::Status status = c.conn.stub().Output(ctx.get(), request, &response);
    if (!status.ok()) return RpcError(c.io, "logs", status);
    if (!PrintStructured(c, response)) {
      for (const std::string& line : response.lines()) c.io.out << line << "\n";
    }
    return kExitOk;
  }
  pb::FollowOutputRequest request;
  request.set_execution_id(id);
  request.set_tail_lines(f->tail);
  request.set_executor(f->executor);
  request.set_since_seconds(f->since_seconds);
  request.set_timestamps(f->timestamps);
  auto ctx = c.conn.NewContext(true);
  auto reader = c.conn.stub().FollowOutput(ctx.get(), request);
  pb::OutputChunk chunk;
  while (reader->Read(&chunk)) {
    if (!PrintStructured(c, chunk, true)) {
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

}  // namespace

Command LogsCommand() {
  return Command{
      "logs",
      "EXECUTION_ID [--tail N] [-f] [--executor N] [--since DURATION] [--timestamps] "
      "[--previous] [flags]",
      "print the driver log, or an executor's",
      "Without -f: the log's tail (Output). With -f: the last lines, then new ones as the\n"
      "driver writes them, until the driver stops (FollowOutput). --executor N reads Spark\n"
      "executor N's pod instead, while it lives (a stopped job keeps only its driver's tail).\n"
      "--since and --timestamps as kubectl logs'; --previous reads the run before a restart of\n"
      "the container (an error when there was none).\n",
      {
          {"tail", 0, "N", false,
           "at most N lines (-f: N lines of history); 0: the server's default"},
          {"follow", 'f', "", false, "keep printing as the log grows"},
          {"executor", 0, "N", false, "Spark executor N's log (1, 2, ...) instead of the driver's"},
          {"since", 0, "DURATION", false,
           "only lines written in the last DURATION, e.g. 10s, 5m, 1h"},
          {"timestamps", 0, "", false, "start each line with the kubelet's RFC 3339 time"},
          {"previous", 0, "", false, "the container's previous run (not with -f)"},
      },
      "EXECUTION_ID",
      1,
      1,
      Logs};
}

}  // namespace kje::cli
