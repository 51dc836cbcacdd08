#include "server/job_executor_service.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "base/log.h"
#include "base/tsan.h"
#include "server/job_info.h"
#include "server/proto_convert.h"
#include "tests/fakes/fake_job_executor.h"

namespace kje::server {
namespace {

namespace pb = jobexecutor::v1;

// A Submit template as a caller sends it: maps beside the oneof that says which kind of job.
pb::JobTemplate SparkTemplateMessage() {
  pb::JobTemplate t;
  t.set_name("pi");
  t.set_executable("local:///opt/spark/examples/jars/spark-examples.jar");
  t.add_arguments("100");
  (*t.mutable_environments())["MODE"] = "batch";
  (*t.mutable_custom_fields())["team"] = "data";
  pb::SparkJob* spark = t.mutable_spark();
  spark->set_class_name("org.apache.spark.examples.SparkPi");
  spark->add_jars("local:///opt/extra.jar");
  (*spark->mutable_configs())["spark.executor.instances"] = "2";
  return t;
}

// Under ThreadSanitizer, messages with map fields once had another layout in our code than in
// Debian's uninstrumented libprotobuf (proto/protobuf_tsan_abi.h): the oneof case was lost, and
// every Submit was refused as neither a Spark nor a shell job.
TEST_CASE("submit template: the oneof and the maps survive the wire and the conversion",
          "[server]") {
  pb::SubmitRequest sent;
  sent.set_job_id("7");
  *sent.mutable_template_() = SparkTemplateMessage();
  REQUIRE(sent.template_().has_spark());

  pb::SubmitRequest received;
  REQUIRE(received.ParseFromString(sent.SerializeAsString()));
  REQUIRE(received.has_template_());
  REQUIRE(received.template_().has_spark());
  CHECK_FALSE(received.template_().has_shell());

  spark::SparkTemplate t = ToSparkTemplate(received.template_());
  CHECK(t.name == "pi");
  CHECK_FALSE(t.is_shell);
  CHECK(t.arguments == std::vector<std::string>{"100"});
  CHECK(t.environments == std::map<std::string, std::string>{{"MODE", "batch"}});
  CHECK(t.custom_fields == std::map<std::string, std::string>{{"team", "data"}});
  CHECK(t.class_name == "org.apache.spark.examples.SparkPi");
  CHECK(t.jars == std::vector<std::string>{"local:///opt/extra.jar"});
  CHECK(t.configs == std::map<std::string, std::string>{{"spark.executor.instances", "2"}});
}

// The edge over a fake executor, on a real server and channel (port 0): what a caller sees is
// what the reactors did.
struct Edge {
  testing::FakeJobExecutor fake;
  Admission admission;
  JobExecutorService service{&fake, nullptr, nullptr, &admission};
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<pb::JobExecutor::Stub> stub;
  int port = 0;

  explicit Edge(int64_t max_unary = 1000, int64_t max_streams = 1000)
      : admission(max_unary, max_streams) {
    fake.canned_job.execution_id = "c/sparkapp/ns/app";
    fake.canned_job.name = "app";
    fake.dry_run_application = R"({"kind":"SparkApplication"})";
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service);
    server = builder.BuildAndStart();
    REQUIRE(server != nullptr);
    stub = pb::JobExecutor::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()));
  }
  ~Edge() {
    fake.FinishAll();
    server->Shutdown(std::chrono::system_clock::now());
  }
};

// A unary call in flight from the caller's side: its status once it ends, and what it answered.
struct Unary {
  grpc::ClientContext ctx;
  absl::Notification ended;
  grpc::Status status;
  std::string answer;  // one field of the response, per RPC, to see the conversion

  bool Wait() { return ended.WaitForNotificationWithTimeout(absl::Seconds(20)); }
};

struct UnaryRpc {
  const char* name;
  std::function<void(Edge&, Unary&)> start;
};

template <class Req, class Resp>
void Call(void (pb::JobExecutor::Stub::async_interface::*method)(grpc::ClientContext*, const Req*,
                                                                 Resp*,
                                                                 std::function<void(grpc::Status)>),
          Edge& edge, Unary& u, Req req, std::function<std::string(const Resp&)> answer) {
  auto request = std::make_shared<Req>(std::move(req));
  auto response = std::make_shared<Resp>();
  (edge.stub->async()->*method)(&u.ctx, request.get(), response.get(),
                                [&u, request, response, answer](grpc::Status s) {
                                  u.status = s;
                                  if (s.ok()) u.answer = answer(*response);
                                  u.ended.Notify();
                                });
}

std::vector<UnaryRpc> UnaryRpcs() {
  using Async = pb::JobExecutor::Stub::async_interface;
  return {
      {"Submit",
       [](Edge& e, Unary& u) {
         pb::SubmitRequest r;
         r.set_job_id("7");
         r.mutable_template_()->mutable_spark();
         Call<pb::SubmitRequest, pb::SubmitResponse>(
             &Async::Submit, e, u, r, [](const pb::SubmitResponse& m) { return m.execution_id(); });
       }},
      {"Status",
       [](Edge& e, Unary& u) {
         pb::StatusRequest r;
         r.set_execution_id("c/sparkapp/ns/app");
         Call<pb::StatusRequest, pb::JobInfo>(
             &Async::Status, e, u, r, [](const pb::JobInfo& m) { return m.execution_id(); });
       }},
      {"Cancel",
       [](Edge& e, Unary& u) {
         pb::CancelRequest r;
         r.set_execution_id("c/sparkapp/ns/app");
         Call<pb::CancelRequest, pb::CancelResponse>(
             &Async::Cancel, e, u, r,
             [](const pb::CancelResponse&) { return "c/sparkapp/ns/app"; });
       }},
      {"Output",
       [](Edge& e, Unary& u) {
         pb::OutputRequest r;
         r.set_execution_id("c/sparkapp/ns/app");
         Call<pb::OutputRequest, pb::OutputResponse>(
             &Async::Output, e, u, r, [](const pb::OutputResponse& m) {
               return m.lines_size() == 2 ? "c/sparkapp/ns/app" : "lines lost";
             });
       }},
      {"ListJobs",
       [](Edge& e, Unary& u) {
         pb::ListJobsRequest r;
         r.set_namespace_("ns");
         Call<pb::ListJobsRequest, pb::ListJobsResponse>(
             &Async::ListJobs, e, u, r, [](const pb::ListJobsResponse& m) {
               return m.jobs_size() == 1 && m.next_page_token() == "m:next"
                          ? m.jobs(0).execution_id()
                          : "page lost";
             });
       }},
      {"CreateSchedule",
       [](Edge& e, Unary& u) {
         pb::CreateScheduleRequest r;
         r.set_schedule_id("s");
         r.mutable_template_()->mutable_spark();
         r.mutable_spec()->set_schedule("@hourly");
         r.mutable_spec()->set_concurrency_policy(pb::ScheduleSpec::FORBID);
         r.mutable_spec()->set_failed_run_history_limit(3);
         Call<pb::CreateScheduleRequest, pb::ScheduleInfo>(
             &Async::CreateSchedule, e, u, r, [](const pb::ScheduleInfo& m) {
               bool same = m.schedule_id() == "s" && m.name() == "gravitino-job-s" &&
                           m.spec().schedule() == "@hourly" &&
                           m.spec().concurrency_policy() == pb::ScheduleSpec::FORBID &&
                           m.spec().failed_run_history_limit() == 3 &&
                           m.spec().successful_run_history_limit() == 1 &&
                           m.schedule_state() == "Scheduled" &&
                           m.next_run().seconds() == 1796378400;
               return std::string(same ? "c/sparkapp/ns/app" : "schedule fields lost");
             });
       }},
      {"GetSchedule",
       [](Edge& e, Unary& u) {
         pb::GetScheduleRequest r;
         r.set_schedule_id("s");
         Call<pb::GetScheduleRequest, pb::ScheduleInfo>(
             &Async::GetSchedule, e, u, r, [](const pb::ScheduleInfo& m) {
               return m.runs_size() == 1 ? m.runs(0).execution_id() : "runs lost";
             });
       }},
      {"ListSchedules",
       [](Edge& e, Unary& u) {
         pb::ListSchedulesRequest r;
         r.set_namespace_("ns");
         Call<pb::ListSchedulesRequest, pb::ListSchedulesResponse>(
             &Async::ListSchedules, e, u, r, [](const pb::ListSchedulesResponse& m) {
               return m.schedules_size() == 1 && m.schedules(0).schedule_id() == "s" &&
                              m.next_page_token() == "k:next"
                          ? "c/sparkapp/ns/app"
                          : "page lost";
             });
       }},
      {"UpdateSchedule",
       [](Edge& e, Unary& u) {
         pb::UpdateScheduleRequest r;
         r.set_schedule_id("s");
         r.mutable_spec()->set_schedule("@daily");
         r.mutable_spec()->set_time_zone("ignored: not in the mask");
         r.mutable_update_mask()->add_paths("schedule");
         r.mutable_update_mask()->add_paths("suspend");
         r.mutable_spec()->set_suspend(true);
         Call<pb::UpdateScheduleRequest, pb::ScheduleInfo>(
             &Async::UpdateSchedule, e, u, r, [](const pb::ScheduleInfo& m) {
               return m.spec().schedule() == "@daily" && m.spec().suspend()
                          ? "c/sparkapp/ns/app"
                          : "the mask's fields lost";
             });
       }},
      {"DeleteSchedule",
       [](Edge& e, Unary& u) {
         pb::DeleteScheduleRequest r;
         r.set_schedule_id("s");
         Call<pb::DeleteScheduleRequest, pb::DeleteScheduleResponse>(
             &Async::DeleteSchedule, e, u, r, [](const pb::DeleteScheduleResponse& m) {
               return m.has_existed() && m.existed() ? "c/sparkapp/ns/app" : "existed lost";
             });
       }},
      {"RunScheduleNow",
       [](Edge& e, Unary& u) {
         pb::RunScheduleNowRequest r;
         r.set_schedule_id("s");
         r.set_run_id("1");
         Call<pb::RunScheduleNowRequest, pb::RunScheduleNowResponse>(
             &Async::RunScheduleNow, e, u, r, [](const pb::RunScheduleNowResponse& m) {
               return m.execution_id() == "c/sparkapp/ns/app-r1" ? "c/sparkapp/ns/app"
                                                                 : m.execution_id();
             });
       }},
      {"Events",
       [](Edge& e, Unary& u) {
         pb::EventsRequest r;
         r.set_execution_id("c/sparkapp/ns/app");
         Call<pb::EventsRequest, pb::EventsResponse>(
             &Async::Events, e, u, r, [](const pb::EventsResponse& m) {
               if (m.events_size() != 1 || m.truncated()) return std::string("events lost");
               const pb::JobEvent& ev = m.events(0);
               bool same = ev.object_kind() == "Pod" && ev.object_name() == "d" &&
                           ev.reason() == "Pulled" && ev.type() == "Normal" &&
                           ev.message() == "pulled" && ev.count() == 2 &&
                           ev.source() == "kubelet, node-1" && ev.first_seen().seconds() == 100 &&
                           ev.last_seen().seconds() == 160;
               return std::string(same ? "c/sparkapp/ns/app" : "event fields lost");
             });
       }},
      {"SubmitDryRun",
       [](Edge& e, Unary& u) {
         pb::SubmitRequest r;
         r.set_job_id("7");
         r.set_dry_run(true);
         r.mutable_template_()->mutable_spark();
         Call<pb::SubmitRequest, pb::SubmitResponse>(
             &Async::Submit, e, u, r, [](const pb::SubmitResponse& m) {
               // The dry run's own call, its application passed on whole.
               return m.application() == R"({"kind":"SparkApplication"})" && !m.adopted()
                          ? m.execution_id()
                          : std::string("application lost");
             });
       }},
  };
}

TEST_CASE("reactors: every unary RPC answered later gives the caller the converted answer",
          "[server]") {
  for (const UnaryRpc& rpc : UnaryRpcs()) {
    CAPTURE(rpc.name);
    Edge edge;
    Unary u;
    rpc.start(edge, u);
    auto call = edge.fake.Next();
    REQUIRE(call != nullptr);
    CHECK(call->rpc == rpc.name);
    call->finish(absl::OkStatus());
    REQUIRE(u.Wait());
    CHECK(u.status.ok());
    CHECK(u.answer == "c/sparkapp/ns/app");
    CHECK_FALSE(call->handle->cancelled());
  }
}

TEST_CASE("reactors: Cancel and DeleteSchedule say whether there was anything to do", "[server]") {
  for (bool did : {true, false}) {
    CAPTURE(did);
    Edge edge;
    edge.fake.cancel_requested = did;
    edge.fake.schedule_existed = did;
    Unary cancel;
    pb::CancelRequest cancel_request;
    cancel_request.set_execution_id("c/sparkapp/ns/app");
    Call<pb::CancelRequest, pb::CancelResponse>(
        &pb::JobExecutor::Stub::async_interface::Cancel, edge, cancel, cancel_request,
        [](const pb::CancelResponse& m) {
          return std::string(m.already_stopped() ? "already stopped" : "requested");
        });
    auto call = edge.fake.Next();
    REQUIRE(call != nullptr);
    call->finish(absl::OkStatus());
    REQUIRE(cancel.Wait());
    CHECK(cancel.status.ok());
    CHECK(cancel.answer == (did ? "requested" : "already stopped"));

    Unary del;
    pb::DeleteScheduleRequest delete_request;
    delete_request.set_schedule_id("s");
    Call<pb::DeleteScheduleRequest, pb::DeleteScheduleResponse>(
        &pb::JobExecutor::Stub::async_interface::DeleteSchedule, edge, del, delete_request,
        [](const pb::DeleteScheduleResponse& m) {
          if (!m.has_existed()) return std::string("unset");
          return std::string(m.existed() ? "existed" : "none");
        });
    call = edge.fake.Next();
    REQUIRE(call != nullptr);
    call->finish(absl::OkStatus());
    REQUIRE(del.Wait());
    // OK either way: a retry of a delete that went through finds nothing and must not fail.
    CHECK(del.status.ok());
    CHECK(del.answer == (did ? "existed" : "none"));
  }
}

TEST_CASE("reactors: Output and FollowOutput pass kubectl logs' fields to the executor",
          "[server]") {
  Edge edge;
  Unary output;
  pb::OutputRequest request;
  request.set_execution_id("c/sparkapp/ns/app");
  request.set_executor(2);
  request.set_since_seconds(300);
  request.set_timestamps(true);
  request.set_previous(true);
  Call<pb::OutputRequest, pb::OutputResponse>(&pb::JobExecutor::Stub::async_interface::Output, edge,
                                              output, request,
                                              [](const pb::OutputResponse&) { return "ok"; });
  auto call = edge.fake.Next();
  REQUIRE(call != nullptr);
  CHECK(edge.fake.last_log.executor == 2);
  CHECK(edge.fake.last_log.since_seconds == 300);
  CHECK(edge.fake.last_log.timestamps);
  CHECK(edge.fake.last_log.previous);
  call->finish(absl::OkStatus());
  REQUIRE(output.Wait());
  CHECK(output.status.ok());

  grpc::ClientContext ctx;
  pb::FollowOutputRequest follow;
  follow.set_execution_id("c/sparkapp/ns/app");
  follow.set_executor(1);
  follow.set_since_seconds(60);
  auto reader = edge.stub->FollowOutput(&ctx, follow);
  call = edge.fake.Next();
  REQUIRE(call != nullptr);
  CHECK(edge.fake.last_log.executor == 1);
  CHECK(edge.fake.last_log.since_seconds == 60);
  CHECK_FALSE(edge.fake.last_log.timestamps);
  CHECK_FALSE(edge.fake.last_log.previous);
  call->finish(absl::OkStatus());
  pb::OutputChunk chunk;
  while (reader->Read(&chunk)) {
  }
  CHECK(reader->Finish().ok());
}

TEST_CASE("reactors: a Submit's one line names its job and what it became", "[server]") {
  struct Lines {
    absl::Mutex mu;
    std::vector<std::string> all ABSL_GUARDED_BY(mu);
  } lines;
  log::Configure(log::Level::kInfo, log::Format::kText);
  log::SetSinkForTesting([&lines](std::string_view l) {
    absl::MutexLock lock(&lines.mu);
    lines.all.emplace_back(l);
  });
  {
    Edge edge;
    Unary u;
    UnaryRpcs().front().start(edge, u);
    auto call = edge.fake.Next();
    REQUIRE(call != nullptr);
    REQUIRE(call->rpc == "Submit");
    call->finish(absl::OkStatus());
    REQUIRE(u.Wait());
    REQUIRE(u.status.ok());
    // The line is written once the answer is sent: wait for it.
    absl::MutexLock lock(&lines.mu);
    auto written = [&lines]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(lines.mu) { return !lines.all.empty(); };
    REQUIRE(lines.mu.AwaitWithTimeout(absl::Condition(&written), absl::Seconds(20)));
    REQUIRE(lines.all.size() == 1);
    CHECK_THAT(lines.all[0], Catch::Contains("msg=\"rpc finished\" rpc=Submit"));
    CHECK_THAT(lines.all[0],
               Catch::Contains("job_id=7 execution_id=c/sparkapp/ns/app adopted=true code=0"));
  }
  log::SetSinkForTesting(nullptr);
}

TEST_CASE("reactors: a unary answer given inline, before the work is attached, still ends the call",
          "[server]") {
  for (const UnaryRpc& rpc : UnaryRpcs()) {
    CAPTURE(rpc.name);
    for (absl::Status inline_answer : {absl::OkStatus(), absl::NotFoundError("no such job")}) {
      Edge edge;
      edge.fake.answer_inline = inline_answer;
      Unary u;
      rpc.start(edge, u);
      REQUIRE(u.Wait());
      CHECK(static_cast<int>(u.status.error_code()) == static_cast<int>(inline_answer.code()));
      CHECK(edge.fake.calls_made() == 1);
    }
  }
}

TEST_CASE("reactors: a caller's cancel reaches every unary RPC's work", "[server]") {
  for (const UnaryRpc& rpc : UnaryRpcs()) {
    CAPTURE(rpc.name);
    Edge edge;
    Unary u;
    rpc.start(edge, u);
    auto call = edge.fake.Next();
    REQUIRE(call != nullptr);
    u.ctx.TryCancel();
    CHECK(call->handle->WaitCancelled());  // CHECK: the call is ended below either way
    call->finish(absl::CancelledError("the call was cancelled"));
    REQUIRE(u.Wait());
    CHECK(u.status.error_code() == grpc::StatusCode::CANCELLED);
  }
}

TEST_CASE("reactors: a caller's deadline reaches every unary RPC's work, and cancels it",
          "[server]") {
  for (const UnaryRpc& rpc : UnaryRpcs()) {
    CAPTURE(rpc.name);
    Edge edge;
    Unary u;
    const absl::Time deadline = absl::Now() + absl::Milliseconds(300);
    u.ctx.set_deadline(absl::ToChronoTime(deadline));
    rpc.start(edge, u);
    auto call = edge.fake.Next();
    REQUIRE(call != nullptr);
    // The work is given the caller's deadline (as gRPC carries it: to the millisecond or so).
    CHECK(absl::AbsDuration(call->deadline - deadline) < absl::Seconds(1));
    CHECK(call->handle->WaitCancelled());  // CHECK: the call is ended below either way
    call->finish(absl::DeadlineExceededError("deadline"));
    REQUIRE(u.Wait());
    CHECK(u.status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED);
  }
}

TEST_CASE("reactors: a shutdown cancels every unary RPC in flight, and waits for it to end",
          "[server]") {
  for (const UnaryRpc& rpc : UnaryRpcs()) {
    CAPTURE(rpc.name);
    Edge edge;
    Unary u;
    rpc.start(edge, u);
    auto call = edge.fake.Next();
    REQUIRE(call != nullptr);
    std::thread shutdown([&] {
      edge.server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(100));
    });
    CHECK(call->handle->WaitCancelled());  // CHECK: the call is ended below either way
    call->finish(absl::CancelledError("the call was cancelled"));
    shutdown.join();
    REQUIRE(u.Wait());
    CHECK_FALSE(u.status.ok());
  }
}

TEST_CASE("reactors: a Status the snapshot answers makes no call of the executor", "[server]") {
  Edge edge;
  edge.fake.status_now = edge.fake.canned_job;
  Unary u;
  UnaryRpcs()[1].start(edge, u);
  REQUIRE(u.Wait());
  CHECK(u.status.ok());
  CHECK(u.answer == "c/sparkapp/ns/app");
  CHECK(edge.fake.calls_made() == 0);
}

// Status is a raw method (status_wire.h): what a caller reads is still the JobInfo protobuf
// writes, whether the snapshot answered or the executor did; bytes that are no StatusRequest are
// refused before the executor sees them.
TEST_CASE("reactors: Status in wire form answers the JobInfo and refuses what isn't a request",
          "[server]") {
  Edge edge;
  JobResult& job = edge.fake.canned_job;
  job.namespace_ = "ns";
  job.job_id = "7";
  job.info.status = spark::JobStatus::kSucceeded;
  job.info.started_at = absl::FromUnixSeconds(1767225600);
  job.info.finished_at = absl::FromUnixMillis(1767225700250);
  job.info.operator_state = "Succeeded";
  job.info.message = "done";
  job.details.attempts = 1;
  pb::JobInfo expected;
  ToJobInfo(job, &expected);
  pb::StatusRequest request;
  request.set_execution_id("c/sparkapp/ns/app");

  auto status = [&](pb::JobInfo* got) {
    grpc::ClientContext ctx;
    return edge.stub->Status(&ctx, request, got);
  };

  SECTION("from the snapshot") {
    edge.fake.status_now = job;
    pb::JobInfo got;
    REQUIRE(status(&got).ok());
    CHECK(got.SerializeAsString() == expected.SerializeAsString());
  }

  SECTION("from the executor") {
    std::thread finisher([&] {
      if (auto call = edge.fake.Next()) call->finish(absl::OkStatus());
    });
    pb::JobInfo got;
    grpc::Status answered = status(&got);
    finisher.join();
    REQUIRE(answered.ok());
    CHECK(got.SerializeAsString() == expected.SerializeAsString());
  }

  SECTION("an id the executor refuses at once") {
    edge.fake.status_now = absl::NotFoundError("no such job");
    pb::JobInfo got;
    grpc::Status refused = status(&got);
    CHECK(refused.error_code() == grpc::StatusCode::NOT_FOUND);
    CHECK(refused.error_message() == "no such job");
  }

  SECTION("bytes that are no StatusRequest") {
    auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", edge.port),
                                       grpc::InsecureChannelCredentials());
    grpc::GenericStub generic(channel);
    const std::string bytes(
        "\x0a\x05"
        "ab",
        4);  // a length longer than what follows
    grpc::Slice slice(bytes);
    grpc::ByteBuffer raw(&slice, 1);
    grpc::ByteBuffer answer;
    grpc::ClientContext ctx;
    absl::Notification ended;
    grpc::Status refused;
    generic.UnaryCall(&ctx, "/jobexecutor.v1.JobExecutor/Status", grpc::StubOptions(), &raw,
                      &answer, [&](grpc::Status s) {
                        refused = std::move(s);
                        ended.Notify();
                      });
    REQUIRE(ended.WaitForNotificationWithTimeout(absl::Seconds(20)));
    CHECK(refused.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    CHECK(refused.error_message().find("isn't a jobexecutor.v1.StatusRequest") !=
          std::string::npos);
    CHECK(edge.fake.calls_made() == 0);
  }
}

// A stream read by the caller on a thread of its own: the messages, then the status.
template <class Msg>
struct Reader {
  grpc::ClientContext ctx;
  std::unique_ptr<grpc::ClientReader<Msg>> reader;
  absl::Mutex mu;
  std::vector<Msg> messages ABSL_GUARDED_BY(mu);
  grpc::Status status;
  absl::Notification ended;
  std::thread thread;

  void Start() {
    thread = std::thread([this] {
      Msg m;
      while (reader->Read(&m)) {
        absl::MutexLock lock(&mu);
        messages.push_back(m);
      }
      status = reader->Finish();
      ended.Notify();
    });
  }
  bool WaitFor(size_t n) {
    absl::MutexLock lock(&mu);
    auto got = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return messages.size() >= n; };
    return mu.AwaitWithTimeout(absl::Condition(&got), absl::Seconds(20));
  }
  ~Reader() {
    if (thread.joinable()) {
      ctx.TryCancel();
      thread.join();
    }
  }
};

// Writes one message through the stream's writer and waits for its `written`.
template <class In>
bool WriteAndWait(executor::StreamWriter<In>* writer, In message) {
  auto written = std::make_shared<absl::Notification>();
  auto ok = std::make_shared<bool>(false);
  writer->Write(std::move(message), [written, ok](bool w) {
    *ok = w;
    written->Notify();
  });
  if (!written->WaitForNotificationWithTimeout(absl::Seconds(20))) return false;
  return *ok;
}

executor::JobResult Job(const std::string& id) {
  executor::JobResult job;
  job.execution_id = id;
  return job;
}

executor::OutputBatch Batch(const std::string& line) { return {{line}, 0, ""}; }

TEST_CASE("reactors: a stream delivers each write in order, then its end", "[server]") {
  Edge edge;
  SECTION("WatchStatus") {
    Reader<pb::JobInfo> r;
    pb::WatchStatusRequest req;
    req.add_execution_ids("c/sparkapp/ns/app");
    r.reader = edge.stub->WatchStatus(&r.ctx, req);
    r.Start();
    auto call = edge.fake.Next();
    REQUIRE(call != nullptr);
    for (const char* id : {"one", "two", "three"}) {
      REQUIRE(WriteAndWait(call->status_writer, Job(id)));
    }
    call->finish(absl::OkStatus());
    REQUIRE(r.ended.WaitForNotificationWithTimeout(absl::Seconds(20)));
    r.thread.join();
    CHECK(r.status.ok());
    absl::MutexLock lock(&r.mu);
    REQUIRE(r.messages.size() == 3);
    CHECK(r.messages[0].execution_id() == "one");
    CHECK(r.messages[2].execution_id() == "three");
  }
  SECTION("FollowOutput") {
    Reader<pb::OutputChunk> r;
    pb::FollowOutputRequest req;
    req.set_execution_id("c/sparkapp/ns/app");
    r.reader = edge.stub->FollowOutput(&r.ctx, req);
    r.Start();
    auto call = edge.fake.Next();
    REQUIRE(call != nullptr);
    for (const char* line : {"a", "b", "c"}) {
      REQUIRE(WriteAndWait(call->output_writer, Batch(line)));
    }
    call->finish(absl::ResourceExhaustedError("the caller fell behind"));
    REQUIRE(r.ended.WaitForNotificationWithTimeout(absl::Seconds(20)));
    r.thread.join();
    CHECK(r.status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
    absl::MutexLock lock(&r.mu);
    REQUIRE(r.messages.size() == 3);
    CHECK(r.messages[1].lines(0) == "b");
  }
}

// A stream's caller goes away: the work is cancelled, and a write after that fails instead of
// waiting for a reader that isn't there.
template <class Msg, class In>
void CheckCallerGone(
    Edge& edge, Reader<Msg>& r,
    std::function<executor::StreamWriter<In>*(const testing::FakeJobExecutor::Call&)> writer_of,
    In message, const std::string& how) {
  r.Start();
  auto call = edge.fake.Next();
  REQUIRE(call != nullptr);
  executor::StreamWriter<In>* writer = writer_of(*call);
  REQUIRE(WriteAndWait(writer, message));
  REQUIRE(r.WaitFor(1));
  if (how == "cancel") {
    r.ctx.TryCancel();
  }
  CHECK(call->handle->WaitCancelled());        // CHECK: the call is ended below either way
  CHECK_FALSE(WriteAndWait(writer, message));  // the failed write
  call->finish(absl::CancelledError("the call was cancelled"));
  REQUIRE(r.ended.WaitForNotificationWithTimeout(absl::Seconds(20)));
  r.thread.join();
  CHECK_FALSE(r.status.ok());
}

TEST_CASE(
    "reactors: a stream's caller that cancels, or whose deadline passes, fails the next write",
    "[server]") {
  for (const std::string how : {"cancel", "deadline"}) {
    CAPTURE(how);
    {
      Edge edge;
      Reader<pb::JobInfo> r;
      if (how == "deadline") {
        r.ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
      }
      pb::WatchStatusRequest req;
      req.add_execution_ids("c/sparkapp/ns/app");
      r.reader = edge.stub->WatchStatus(&r.ctx, req);
      CheckCallerGone<pb::JobInfo, executor::JobResult>(
          edge, r, [](const testing::FakeJobExecutor::Call& c) { return c.status_writer; },
          Job("one"), how);
    }
    {
      Edge edge;
      Reader<pb::OutputChunk> r;
      if (how == "deadline") {
        r.ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
      }
      pb::FollowOutputRequest req;
      req.set_execution_id("c/sparkapp/ns/app");
      r.reader = edge.stub->FollowOutput(&r.ctx, req);
      CheckCallerGone<pb::OutputChunk, executor::OutputBatch>(
          edge, r, [](const testing::FakeJobExecutor::Call& c) { return c.output_writer; },
          Batch("x"), how);
    }
  }
}

TEST_CASE("reactors: a shutdown cancels every stream in flight, and waits for it to end",
          "[server]") {
  for (const std::string rpc : {"WatchStatus", "FollowOutput"}) {
    CAPTURE(rpc);
    Edge edge;
    Reader<pb::JobInfo> watch;
    Reader<pb::OutputChunk> follow;
    if (rpc == "WatchStatus") {
      pb::WatchStatusRequest req;
      req.add_execution_ids("c/sparkapp/ns/app");
      watch.reader = edge.stub->WatchStatus(&watch.ctx, req);
      watch.Start();
    } else {
      pb::FollowOutputRequest req;
      req.set_execution_id("c/sparkapp/ns/app");
      follow.reader = edge.stub->FollowOutput(&follow.ctx, req);
      follow.Start();
    }
    auto call = edge.fake.Next();
    REQUIRE(call != nullptr);
    std::thread shutdown([&] {
      edge.server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(100));
    });
    CHECK(call->handle->WaitCancelled());  // CHECK: the call is ended below either way
    call->finish(absl::CancelledError("the call was cancelled"));
    shutdown.join();
    absl::Notification& ended = rpc == "WatchStatus" ? watch.ended : follow.ended;
    REQUIRE(ended.WaitForNotificationWithTimeout(absl::Seconds(20)));
  }
}

TEST_CASE("reactors: past a global bound a call is refused at once, and the admitted are unharmed",
          "[server]") {
  Edge edge(/*max_unary=*/2, /*max_streams=*/1);
  // Two unary calls hold the two places; a third of any unary RPC is refused without a call.
  Unary first, second;
  UnaryRpcs()[1].start(edge, first);
  UnaryRpcs()[4].start(edge, second);
  auto first_call = edge.fake.Next();
  auto second_call = edge.fake.Next();
  REQUIRE(first_call != nullptr);
  REQUIRE(second_call != nullptr);
  if (first_call->rpc != "Status") std::swap(first_call, second_call);  // they race to the fake
  REQUIRE(first_call->rpc == "Status");
  for (const UnaryRpc& rpc : UnaryRpcs()) {
    CAPTURE(rpc.name);
    Unary refused;
    rpc.start(edge, refused);
    REQUIRE(refused.Wait());
    CHECK(refused.status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
    CHECK(refused.status.error_message().find("server.maxConcurrentRpcs: 2") != std::string::npos);
  }
  CHECK(edge.fake.calls_made() == 2);
  // The admitted calls were not touched, and answer as usual.
  CHECK_FALSE(first_call->handle->cancelled());
  first_call->finish(absl::OkStatus());
  REQUIRE(first.Wait());
  CHECK(first.status.ok());
  // A place given back is free again.
  Unary third;
  UnaryRpcs()[2].start(edge, third);
  auto third_call = edge.fake.Next();
  REQUIRE(third_call != nullptr);
  third_call->finish(absl::OkStatus());
  second_call->finish(absl::OkStatus());
  REQUIRE(third.Wait());
  REQUIRE(second.Wait());
  CHECK(third.status.ok());
  CHECK(second.status.ok());

  // One stream holds the only place: a second, of either kind, is refused.
  Reader<pb::JobInfo> watch;
  pb::WatchStatusRequest req;
  req.add_execution_ids("c/sparkapp/ns/app");
  watch.reader = edge.stub->WatchStatus(&watch.ctx, req);
  watch.Start();
  auto stream_call = edge.fake.Next();
  REQUIRE(stream_call != nullptr);
  Reader<pb::OutputChunk> follow;
  pb::FollowOutputRequest follow_req;
  follow_req.set_execution_id("c/sparkapp/ns/app");
  follow.reader = edge.stub->FollowOutput(&follow.ctx, follow_req);
  follow.Start();
  REQUIRE(follow.ended.WaitForNotificationWithTimeout(absl::Seconds(20)));
  follow.thread.join();
  CHECK(follow.status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
  CHECK(follow.status.error_message().find("server.maxStreams: 1") != std::string::npos);
  // The admitted stream still writes and ends as usual.
  REQUIRE(WriteAndWait(stream_call->status_writer, Job("still here")));
  stream_call->finish(absl::OkStatus());
  REQUIRE(watch.ended.WaitForNotificationWithTimeout(absl::Seconds(20)));
  watch.thread.join();
  CHECK(watch.status.ok());
  CHECK(edge.fake.calls_made() == 4);
}

// A stream's caller seen from a callback reactor: it reads until the end and says so. Made on the
// test's thread and run on gRPC's, which hands it over inside its library: the release and
// acquires tell ThreadSanitizer, as the server's reactors do.
class StreamEnd final : public grpc::ClientReadReactor<pb::JobInfo> {
 public:
  void Start(pb::JobExecutor::Stub* stub, const pb::WatchStatusRequest& request) {
    stub->async()->WatchStatus(&ctx, &request, this);
    StartRead(&message_);
    KJE_TSAN_RELEASE(this);
    StartCall();
  }
  void OnReadDone(bool ok) override {
    KJE_TSAN_ACQUIRE(this);
    KJE_TSAN_RELEASE(this);
    if (ok) StartRead(&message_);
  }
  void OnDone(const grpc::Status& s) override {
    KJE_TSAN_ACQUIRE(this);
    status = s;
    ended.Notify();
  }

  grpc::ClientContext ctx;
  grpc::Status status;
  absl::Notification ended;

 private:
  pb::JobInfo message_;
};

// Thousands of calls whose answers race their callers' cancels and deadlines, and streams that
// end with a write still out: under ThreadSanitizer (make test-tsan) any access to a reactor that
// gRPC's OnDone isn't ordered after is reported, and here every reactor made must have been freed
// once the server has shut down.
TEST_CASE("reactors: thousands of calls end while their callers cancel, and every reactor is freed",
          "[server]") {
  const int64_t live_before = JobExecutorService::LiveReactors();
  constexpr int kCalls = 2000;
  constexpr int kWindow = 32;
  Edge edge;
  std::atomic<bool> stop{false};
  // Answers each call from its own thread as soon as it comes; a stream gets a write it doesn't
  // wait for, then its end.
  std::thread answerer([&] {
    int n = 0;
    while (!stop.load()) {
      auto call = edge.fake.Next(absl::Milliseconds(20));
      if (call == nullptr) continue;
      ++n;
      if (call->status_writer != nullptr) {
        call->status_writer->Write(Job("w"), [](bool) {});
      }
      call->finish(n % 2 == 0 ? absl::OkStatus() : absl::NotFoundError("no such job"));
    }
  });
  std::deque<std::unique_ptr<Unary>> unary;
  std::deque<std::unique_ptr<StreamEnd>> streams;
  int ended_ok = 0;
  int ended_cancelled = 0;
  auto reap = [&](size_t keep) {
    while (unary.size() > keep) {
      REQUIRE(unary.front()->Wait());
      ended_ok += unary.front()->status.ok();
      ended_cancelled += unary.front()->status.error_code() == grpc::StatusCode::CANCELLED;
      unary.pop_front();
    }
    while (streams.size() > keep) {
      REQUIRE(streams.front()->ended.WaitForNotificationWithTimeout(absl::Seconds(20)));
      ended_cancelled += streams.front()->status.error_code() == grpc::StatusCode::CANCELLED;
      streams.pop_front();
    }
  };
  const std::vector<UnaryRpc> rpcs = UnaryRpcs();
  pb::WatchStatusRequest watch;
  watch.add_execution_ids("c/sparkapp/ns/app");
  for (int i = 0; i < kCalls; ++i) {
    if (i % 4 == 3) {
      auto& s = streams.emplace_back(std::make_unique<StreamEnd>());
      if (i % 8 == 7) s->ctx.set_deadline(std::chrono::system_clock::now());
      s->Start(edge.stub.get(), watch);
      if (i % 3 == 0) s->ctx.TryCancel();
    } else {
      auto& u = unary.emplace_back(std::make_unique<Unary>());
      if (i % 7 == 0) u->ctx.set_deadline(std::chrono::system_clock::now());
      rpcs[i % rpcs.size()].start(edge, *u);
      if (i % 3 == 0) u->ctx.TryCancel();
    }
    reap(kWindow);
  }
  reap(0);
  stop = true;
  answerer.join();
  // Both outcomes happened: answers and cancels raced.
  CHECK(ended_ok > 0);
  CHECK(ended_cancelled > 0);
  CHECK(edge.fake.calls_made() > 0);
  // A shutdown waits for every call's OnDone: no reactor is left, and none was freed twice (the
  // count would go below where it started).
  edge.fake.FinishAll();
  edge.server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(20));
  CHECK(JobExecutorService::LiveReactors() == live_before);
}

}  // namespace
}  // namespace kje::server
