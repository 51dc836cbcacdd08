// `logs`: the driver log's tail (Output), or the log as it grows (FollowOutput).

#include <ostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "cli/verbs.h"

namespace kje::cli {

namespace pb = jobexecutor::v1;
namespace {

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

}  // namespace

Command LogsCommand() {
  return Command{
      "logs",
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
      Logs};
}

}  // namespace kje::cli
