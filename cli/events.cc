// `events`: the Kubernetes events of a job, once or followed.

#include <cstdint>
#include <map>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/quote.h"
#include "cli/verbs.h"

namespace kje::cli {

namespace pb = jobexecutor::v1;
namespace {

// `events -f` asks again this often unless --interval says otherwise; never more often than
// the floor, so a typo can't turn it into a busy loop against the server.
constexpr absl::Duration kDefaultEventsInterval = absl::Seconds(2);
constexpr absl::Duration kMinEventsInterval = absl::Milliseconds(500);

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
  const bool wide = c.format == OutputFormat::kWide;
  GrowingTable table(EventsHeader(wide));
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
      if (!PrintStructured(c, e, true)) rows.push_back(EventRow(e, wide));
    }
    if (IsTable(c)) c.io.out << table.Format(rows);
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
  if (PrintStructured(c, response)) return kExitOk;
  c.io.out << FormatEvents(response, c.format == OutputFormat::kWide);
  if (response.truncated()) {
    c.io.err << kProgram << ": events: more than the server returns; these are the oldest\n";
  }
  return kExitOk;
}

}  // namespace

Command EventsCommand() {
  return Command{
      "events",
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
      Events,
      {OutputFormat::kTable, OutputFormat::kWide, OutputFormat::kJson, OutputFormat::kYaml}};
}

}  // namespace kje::cli
