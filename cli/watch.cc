// `watch`: each job's transitions until every job stops (WatchStatus).

#include <map>
#include <ostream>
#include <set>
#include <tuple>

#include "cli/verbs.h"

namespace kje::cli {

namespace pb = jobexecutor::v1;
namespace {

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
    if (PrintStructured(c, info, true)) {
    } else {
      auto key = std::make_tuple(info.status(), info.operator_state(), info.waiting_reason());
      auto it = last.find(info.execution_id());
      if (it == last.end() || it->second != key) {
        c.io.out << (c.format == OutputFormat::kName
                         ? info.execution_id() + "\n"
                         : FormatTransition(c.io.clock.Now() - start, info, with_id));
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

}  // namespace

Command WatchCommand() {
  return Command{
      "watch",
      "EXECUTION_ID... [flags]",
      "print each job's transitions until every job stops",
      "Prints one line per change of status or operator state, with the time since the watch\n"
      "began. Exits 0 when every job SUCCEEDED, 3 when one FAILED, else 4 when one was\n"
      "CANCELLED. With -o json: every JobInfo the server sends, one per line.\n",
      {},
      "EXECUTION_ID",
      1,
      100,
      Watch,
      NamingFormats()};
}

}  // namespace kje::cli
