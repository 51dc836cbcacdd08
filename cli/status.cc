// `status`, `describe` and `cancel`: one job's state, with its events, or its end.

#include <ostream>

#include "absl/strings/str_cat.h"
#include "base/quote.h"
#include "cli/verbs.h"

namespace kje::cli {

namespace pb = jobexecutor::v1;
namespace {

int Status(Context& c) {
  pb::StatusRequest request;
  request.set_execution_id(c.flags.positional()[0]);
  pb::JobInfo info;
  auto ctx = c.conn.NewContext(false);
  grpc::Status status = c.conn.stub().Status(ctx.get(), request, &info);
  if (!status.ok()) return RpcError(c.io, "status", status);
  if (c.format == OutputFormat::kName) {
    c.io.out << info.execution_id() << "\n";
  } else if (!PrintStructured(c, info)) {
    c.io.out << FormatJobInfo(info, c.format == OutputFormat::kWide);
  }
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
  // Two documents: yaml separates them as a stream does.
  const bool yaml = c.format == OutputFormat::kYaml;
  if (PrintStructured(c, info, yaml)) {
    if (listed.ok()) PrintStructured(c, events, yaml);
  } else {
    const bool wide = c.format == OutputFormat::kWide;
    c.io.out << FormatJobInfo(info, wide) << "\nEVENTS\n";
    c.io.out << (listed.ok() && events.events_size() > 0 ? FormatEvents(events, wide) : "<none>\n");
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
      (IsTable(c) ? c.io.out : c.io.err)
          << "not found, nothing cancelled: " << id << " (" << status.error_message() << ")\n";
      continue;
    }
    if (!status.ok()) {
      int code = RpcError(c.io, absl::StrCat("cancel ", QuoteBounded(id)), status);
      if (worst == kExitOk) worst = code;
      continue;
    }
    if (c.format == OutputFormat::kName) {
      c.io.out << id << "\n";
    } else if (PrintStructured(c, response, true)) {
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

}  // namespace

Command StatusCommand() {
  return Command{
      "status",
      "EXECUTION_ID [flags]",
      "print a job's status",
      "Exit code 0 only when the job SUCCEEDED; 3 FAILED, 4 CANCELLED, 5 not finished yet.\n",
      {},
      "EXECUTION_ID",
      1,
      1,
      Status,
      AllFormats()};
}

Command DescribeCommand() {
  return Command{
      "describe",
      "EXECUTION_ID [flags]",
      "print a job's status, why it waits, and its events",
      "status and events in one: the JobInfo (with WAITING, DEADLINE, QUEUE when set), then the\n"
      "Kubernetes events of its application and driver pod, oldest first. Exit code as status.\n",
      {},
      "EXECUTION_ID",
      1,
      1,
      Describe,
      {OutputFormat::kTable, OutputFormat::kWide, OutputFormat::kJson, OutputFormat::kYaml}};
}

Command CancelCommand() {
  return Command{
      "cancel",
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
      Cancel,
      NamingFormats()};
}

}  // namespace kje::cli
