#include "executor/executor.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "k8s/errors.h"
#include "spark/execution_id.h"
#include "spark/names.h"
#include "tests/executor/executor_fixture.h"
#include "tests/executor/operator_apps.h"
#include "tests/fakes/fake_kube_client.h"

namespace kje::executor {
namespace {

using testing::FakeKubeClient;

// The answer StatusNow gave at once (a copy of its view), or nullopt when it handed back the id
// to look up.
std::optional<absl::StatusOr<JobResult>> Answered(const Executor& executor, std::string_view id) {
  std::optional<JobResult> answer;
  StatusLookup lookup = executor.StatusNow(id, [&](const JobView& job) { answer = ToResult(job); });
  if (std::holds_alternative<StatusAnswered>(lookup)) {
    REQUIRE(answer.has_value());
    return *std::move(answer);
  }
  CHECK_FALSE(answer.has_value());
  if (auto* refused = std::get_if<absl::Status>(&lookup)) return *refused;
  return std::nullopt;
}

std::string AppJson(const std::string& name, const std::string& rv, const std::string& state,
                    const std::string& job_id = "7",
                    const std::string& created = "2026-01-01T00:00:00Z") {
  std::string status;
  if (!state.empty()) {
    status =
        absl::StrCat(R"(,"status":{"currentState":{"currentStateSummary":")", state,
                     R"(","lastTransitionTime":"2026-01-01T00:00:05Z"},)",
                     R"("stateTransitionHistory":{"0":{"currentStateSummary":"Submitted",)",
                     R"("lastTransitionTime":"2026-01-01T00:00:01Z"},"1":{"currentStateSummary":")",
                     state, R"(","lastTransitionTime":"2026-01-01T00:00:05Z"}}})");
  }
  return absl::StrCat(
      R"({"apiVersion":"spark.apache.org/v1","kind":"SparkApplication","metadata":{"name":")", name,
      R"(","namespace":"jobs","uid":"uid-)", name, R"(","resourceVersion":")", rv,
      R"(","creationTimestamp":")", created,
      R"(","labels":{"app.kubernetes.io/managed-by":"gravitino","gravitino.apache.org/job-id":")",
      job_id, R"("}},"spec":{})", status, "}");
}

std::string IdOf(const std::string& name) {
  return spark::ExecutionId{"default", std::string(spark::kKindSparkApp), kNs, name}.ToString();
}

absl::Status Api(int code, const std::string& reason, const std::string& message) {
  return k8s::MakeApiStatus({code, reason, message});
}

TEST_CASE("executor: submit creates, and a 409 adopts only the job's own application",
          "[executor]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  {
    Result<SubmitResult> r;
    f.executor->Submit("7", "ml", Template(), absl::Now() + absl::Seconds(5), r.Callback());
    auto create = f.Next("create");
    CHECK(create->ref.namespace_ == kNs);
    // The operator's own resource.
    CHECK(create->ref.group == op.backend->Applications().group);
    CHECK(create->ref.plural == op.backend->Applications().plural);
    CHECK(create->body.find("\"gravitino.apache.org/job-id\":\"7\"") != std::string::npos);
    // The call's deadline is the RPC's (5 s), not the longer request timeout.
    CHECK(create->deadline <= absl::Now() + absl::Seconds(5));
    f.client->Complete(create, op.AppJson("gravitino-job-7", "1", Situation::kNoStatus));
    REQUIRE(r.Get().ok());
    CHECK(r.Get()->execution_id == IdOf("gravitino-job-7"));
    CHECK_FALSE(r.Get()->adopted);
  }
  {
    Result<SubmitResult> r;
    f.executor->Submit("7", "ml", Template(), absl::Now() + absl::Seconds(5), r.Callback());
    f.client->Complete(f.Next("create"), Api(409, "AlreadyExists", "exists"));
    auto get = f.Next("get");
    CHECK(get->ref.name == "gravitino-job-7");
    f.client->Complete(get, op.AppJson("gravitino-job-7", "2", Situation::kRunning));
    REQUIRE(r.Get().ok());
    CHECK(r.Get()->adopted);
  }
  {
    Result<SubmitResult> r;
    f.executor->Submit("7", "ml", Template(), absl::Now() + absl::Seconds(5), r.Callback());
    f.client->Complete(f.Next("create"), Api(409, "AlreadyExists", "exists"));
    f.client->Complete(f.Next("get"),
                       op.AppJson("gravitino-job-7", "2", Situation::kRunning, "other"));
    CHECK(absl::IsAlreadyExists(r.Get().status()));
  }
}

TEST_CASE("executor: one table of Kubernetes outcomes for every RPC", "[executor]") {
  struct Case {
    absl::Status upstream;
    absl::StatusCode submit;
    absl::StatusCode status;
  };
  const Case cases[] = {
      {Api(400, "BadRequest", "bad"), absl::StatusCode::kInvalidArgument,
       absl::StatusCode::kInvalidArgument},
      {Api(422, "Invalid", "invalid"), absl::StatusCode::kInvalidArgument,
       absl::StatusCode::kInvalidArgument},
      {Api(401, "Unauthorized", "who"), absl::StatusCode::kFailedPrecondition,
       absl::StatusCode::kFailedPrecondition},
      {Api(403, "Forbidden", "no"), absl::StatusCode::kPermissionDenied,
       absl::StatusCode::kPermissionDenied},
      {Api(429, "TooManyRequests", "slow down"), absl::StatusCode::kUnavailable,
       absl::StatusCode::kUnavailable},
      {Api(500, "InternalError", "etcd"), absl::StatusCode::kUnavailable,
       absl::StatusCode::kUnavailable},
      {Api(504, "Timeout", "gateway"), absl::StatusCode::kUnavailable,
       absl::StatusCode::kUnavailable},
      {absl::UnavailableError("connection reset"), absl::StatusCode::kUnavailable,
       absl::StatusCode::kUnavailable},
      // Our own per-request timeout ran out, not the caller's deadline: retry.
      {absl::DeadlineExceededError("request timeout"), absl::StatusCode::kUnavailable,
       absl::StatusCode::kUnavailable},
  };
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  for (const Case& c : cases) {
    INFO(c.upstream.ToString());
    Result<SubmitResult> submitted;
    f.executor->Submit("7", "ml", Template(), absl::Now() + absl::Seconds(5), submitted.Callback());
    f.client->Complete(f.Next("create"), c.upstream);
    CHECK(submitted.Get().status().code() == c.submit);
    Result<JobResult> status;
    f.executor->Status(IdOf("gravitino-job-7"), absl::Now() + absl::Seconds(5), status.Callback());
    f.client->Complete(f.Next("get"), c.upstream);
    CHECK(status.Get().status().code() == c.status);
  }
  // A 404 reads as "no such job".
  Result<JobResult> gone;
  f.executor->Status(IdOf("gravitino-job-7"), absl::Now() + absl::Seconds(5), gone.Callback());
  f.client->Complete(f.Next("get"), Api(404, "NotFound", "not found"));
  CHECK(absl::IsNotFound(gone.Get().status()));
}

TEST_CASE("executor: the caller's own deadline passing is DEADLINE_EXCEEDED", "[executor]") {
  Fixture f;
  Result<JobResult> r;
  // Already past: the call is still made (with that deadline) and its timeout is the caller's.
  f.executor->Status(IdOf("a"), absl::Now() - absl::Seconds(1), r.Callback());
  f.client->Complete(f.Next("get"), absl::DeadlineExceededError("deadline"));
  CHECK(absl::IsDeadlineExceeded(r.Get().status()));
}

TEST_CASE("executor: cancelling a call cancels the request it awaits", "[executor]") {
  Fixture f;
  Result<bool> r;
  auto handle = f.executor->Cancel(IdOf("a"), {}, absl::Now() + absl::Seconds(5), r.Callback());
  auto get = f.Next("get");
  handle->Cancel();
  CHECK(absl::IsCancelled(r.Get().status()));
  CHECK(get->WaitCancelled());
  handle->Cancel();  // idempotent, harmless after the end
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());  // nothing was started after the cancel
}

TEST_CASE("executor: cancel marks, then deletes in the foreground with the uid", "[executor]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  Result<bool> r;
  f.executor->Cancel(IdOf("a"), {}, absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("a", "3", Situation::kRunning));
  auto patch = f.Next("patch");
  CHECK(patch->body == op.backend->CancelPatch());
  f.client->Complete(patch, op.AppJson("a", "4", Situation::kRunning));
  auto del = f.Next("delete");
  CHECK(del->delete_options.propagation_policy == "Foreground");
  CHECK(del->delete_options.precondition_uid == "uid-a");
  f.client->Complete(del, op.AppJson("a", "5", Situation::kRunning));
  REQUIRE(r.Get().ok());
  CHECK(*r.Get());

  // A stopped job is left as it is.
  Result<bool> stopped;
  f.executor->Cancel(IdOf("b"), {}, absl::Now() + absl::Seconds(5), stopped.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("b", "3", Situation::kSucceeded));
  REQUIRE(stopped.Get().ok());
  CHECK_FALSE(*stopped.Get());
}

TEST_CASE("executor: the no-status fail-safe re-reads, then deletes with a precondition",
          "[executor]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  f.clock.Set(absl::FromUnixSeconds(1767225600) + absl::Minutes(11));  // 11 min after creation
  Result<JobResult> r;
  f.executor->Status(IdOf("a"), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("a", "3", Situation::kNoStatus));
  auto fresh = f.Next("get");  // decided on a fresh copy, never on a cached one
  f.client->Complete(fresh, op.AppJson("a", "3", Situation::kNoStatus));
  auto del = f.Next("delete");
  CHECK(del->ref.name == "a");
  CHECK(del->delete_options.precondition_uid == "uid-a");
  // Another replica deleted it first: still the same answer.
  f.client->Complete(del, Api(409, "Conflict", "uid precondition failed"));
  REQUIRE(r.Get().ok());
  CHECK(r.Get()->info.status == spark::JobStatus::kFailed);

  // Within the timeout: QUEUED, and nothing deleted.
  f.clock.Set(absl::FromUnixSeconds(1767225600) + absl::Minutes(1));
  Result<JobResult> queued;
  f.executor->Status(IdOf("a"), absl::Now() + absl::Seconds(5), queued.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("a", "3", Situation::kNoStatus));
  REQUIRE(queued.Get().ok());
  CHECK(queued.Get()->info.status == spark::JobStatus::kQueued);
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("executor: a namespace outside the allow-list is refused before any request",
          "[executor]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {kNs}, 1024, op.backend);
  std::string other =
      spark::ExecutionId{"default", std::string(spark::kKindSparkApp), "elsewhere", "a"}.ToString();
  Result<JobResult> status;
  f.executor->Status(other, absl::Now() + absl::Seconds(5), status.Callback());
  CHECK(absl::IsPermissionDenied(status.Get().status()));
  CHECK(status.Get().status().message().find("elsewhere") != std::string::npos);
  Result<bool> cancel;
  f.executor->Cancel(other, {}, absl::Now() + absl::Seconds(5), cancel.Callback());
  CHECK(absl::IsPermissionDenied(cancel.Get().status()));
  Result<spark::LogTailResult> output;
  f.executor->Output(other, 0, 0, LogRequest{}, absl::Now() + absl::Seconds(5), output.Callback());
  CHECK(absl::IsPermissionDenied(output.Get().status()));
  Result<JobPage> list;
  f.executor->ListJobs("elsewhere", "", 0, "", ListFilter{}, absl::Now() + absl::Seconds(5),
                       list.Callback());
  CHECK(absl::IsPermissionDenied(list.Get().status()));
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("executor: a hostile ListJobs is refused before any request, with a bounded message",
          "[executor]") {
  Fixture f;
  std::string huge(9000, 'a');
  struct Case {
    std::string ns, selector, token;
    std::string says;
  };
  std::vector<Case> cases = {
      {huge, "", "", "(9000 bytes)"},
      {"Bad_NS\n", "", "", "Bad_NS\\x0A"},
      {"", std::string(5000, 'k') + "=v", "", "5002 bytes, at most 4096"},
      {"", "a in b", "", "label selector"},
      {"", "", "k:" + huge, "9002 bytes, at most 2048"},
      {"", "", "k:not base64!", "page_token is not one this service handed out"},
      {"", "", "k:", "page_token is not one"},
      {"", "", "m:Not_A_Name", "page_token is not one"},
      {"", "", "m:", "page_token is not one"},
      {"", "", "forged", "\"forged\""},
  };
  for (const Case& c : cases) {
    INFO(c.says);
    Result<JobPage> list;
    f.executor->ListJobs(c.ns, c.selector, 0, c.token, ListFilter{}, absl::Now() + absl::Seconds(5),
                         list.Callback());
    const absl::Status& status = list.Get().status();
    CHECK(absl::IsInvalidArgument(status));
    CHECK(status.message().size() < 1024);
    CHECK(status.message().find(c.says) != std::string::npos);
  }
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("executor: a cached status answers inline, without a request", "[executor]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/true, {}, 1024, op.backend);
  f.cache->Pin(kNs);
  auto list = f.Next("list");
  k8s::ListPage page;
  page.items = testing::Items({op.AppJson("a", "3", Situation::kRunning)});
  page.resource_version = "5";
  f.client->CompleteList(list, page);
  auto watch = f.Next("watch");
  if (op.name == "kubeflow") {
    // Its status says when the submission was made, not when the driver started: the first
    // Status looks the driver up once for this version of the app.
    CHECK_FALSE(Answered(*f.executor, IdOf("a")).has_value());
    Result<JobResult> first;
    f.executor->Status(IdOf("a"), absl::Now() + absl::Seconds(5), first.Callback());
    k8s::ListPage pods;
    pods.items = testing::Items({op.DriverPodJson("a")});
    f.client->CompleteList(f.Next("list"), pods);
    REQUIRE(first.Get().ok());
    CHECK(first.Get()->info.started_at == absl::FromUnixSeconds(1767225603));
    CHECK(first.Get()->driver_pod == "a-driver");
    // Another version of the app in the same submission (its status updated): the start holds.
    f.client->SendEvent(watch,
                        k8s::WatchEvent{k8s::WatchEvent::Type::kModified, "6",
                                        testing::Json(op.AppJson("a", "6", Situation::kRunning))});
    for (int i = 0; i < 3; ++i) f.client->Barrier();
    REQUIRE(f.cache->Find(kNs, "a") != nullptr);
    REQUIRE(f.cache->Find(kNs, "a")->resource_version() == "6");
    auto again = Answered(*f.executor, IdOf("a"));
    REQUIRE(again.has_value());
    REQUIRE(again->ok());
    CHECK((*again)->info.started_at == absl::FromUnixSeconds(1767225603));
  }
  bool answered = false;
  absl::StatusOr<JobResult> result;
  f.executor->Status(IdOf("a"), absl::Now() + absl::Seconds(5), [&](absl::StatusOr<JobResult> r) {
    answered = true;
    result = std::move(r);
  });
  CHECK(answered);  // before Status returned
  REQUIRE(result.ok());
  CHECK(result->info.status == spark::JobStatus::kStarted);
  CHECK_FALSE(f.client->HasPendingCall());

  // StatusNow, the gRPC edge's way in: the same answer, a malformed id refused, and the parsed
  // id for an app the snapshot doesn't hold (that takes a request, which StatusNow never makes).
  auto now = Answered(*f.executor, IdOf("a"));
  REQUIRE(now.has_value());
  REQUIRE(now->ok());
  CHECK((*now)->execution_id == result->execution_id);
  CHECK((*now)->info.operator_state == op.RunningState());
  // The coroutine's answer for the same app, built as a JobResult rather than read in place,
  // says the same in every field a caller sees.
  Result<JobResult> resolved;
  f.executor->Status(*spark::ExecutionId::Parse(IdOf("a")), absl::Now() + absl::Seconds(5),
                     resolved.Callback());
  REQUIRE(resolved.Get().ok());
  const JobResult& r = *resolved.Get();
  const JobResult& v = **now;
  CHECK(v.execution_id == r.execution_id);
  CHECK(v.info.status == r.info.status);
  CHECK(v.info.started_at == r.info.started_at);
  CHECK(v.info.finished_at == r.info.finished_at);
  CHECK(v.info.operator_state == r.info.operator_state);
  CHECK(v.info.message == r.info.message);
  CHECK(v.namespace_ == r.namespace_);
  CHECK(v.name == r.name);
  CHECK(v.driver_pod == r.driver_pod);
  CHECK(v.job_id == r.job_id);
  CHECK(v.details == r.details);
  CHECK(v.details.spark_app_id == (op.name == "apache" ? "a-0" : "spark-1"));
  auto malformed = Answered(*f.executor, "not-an-id");
  REQUIRE(malformed.has_value());
  CHECK(absl::IsNotFound(malformed->status()));
  StatusLookup unknown = f.executor->StatusNow(IdOf("unknown"), [](const JobView&) { FAIL(); });
  REQUIRE(std::holds_alternative<spark::ExecutionId>(unknown));
  CHECK(std::get<spark::ExecutionId>(unknown).name == "unknown");
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("executor: a stopped app's remembered driver goes once the cache no longer holds it",
          "[executor]") {
  Fixture f(/*cache_on=*/true, {}, /*known_drivers_first_sweep=*/2);
  f.cache->Pin(kNs);
  k8s::ListPage page;
  page.items = testing::Items({AppJson("a", "3", "Succeeded"), AppJson("b", "4", "Succeeded")});
  page.resource_version = "5";
  f.client->CompleteList(f.Next("list"), page);
  auto watch = f.Next("watch");
  auto status = [&](const std::string& name) {
    auto done = std::make_shared<absl::Notification>();
    f.executor->Status(IdOf(name), absl::Now() + absl::Seconds(5),
                       [done](const absl::StatusOr<JobResult>&) { done->Notify(); });
    return [done] { REQUIRE(done->WaitForNotificationWithTimeout(absl::Seconds(10))); };
  };
  auto no_driver = [] { return testing::Items({}); };

  // a's driver is looked up once, then remembered: the next Status needs no request.
  auto wait_a = status("a");
  k8s::ListPage pods;
  pods.items = no_driver();
  f.client->CompleteList(f.Next("list"), pods);
  wait_a();
  CHECK(Answered(*f.executor, IdOf("a")).has_value());

  // a is deleted; b's lookup makes two remembered drivers, the sweep's size: a's goes.
  f.client->SendEvent(watch, k8s::WatchEvent{k8s::WatchEvent::Type::kDeleted, "6",
                                             testing::Json(AppJson("a", "6", "Succeeded"))});
  for (int i = 0; i < 3; ++i) f.client->Barrier();
  auto wait_b = status("b");
  f.client->CompleteList(f.Next("list"), pods);
  wait_b();
  CHECK(Answered(*f.executor, IdOf("b")).has_value());

  // a comes back as the same object: its driver has to be looked up again.
  f.client->SendEvent(watch, k8s::WatchEvent{k8s::WatchEvent::Type::kAdded, "3",
                                             testing::Json(AppJson("a", "3", "Succeeded"))});
  for (int i = 0; i < 3; ++i) f.client->Barrier();
  CHECK_FALSE(Answered(*f.executor, IdOf("a")).has_value());
  CHECK(Answered(*f.executor, IdOf("b")).has_value());
}

// A caller that never finishes reading: writes stay out.
template <class T>
class StalledWriter final : public StreamWriter<T> {
 public:
  void Write(T message, std::function<void(bool)> written) override {
    absl::MutexLock lock(&mu_);
    messages_.push_back(std::move(message));
    pending_ = std::move(written);
  }
  size_t Count() {
    absl::MutexLock lock(&mu_);
    return messages_.size();
  }
  std::vector<T> Messages() {
    absl::MutexLock lock(&mu_);
    return messages_;
  }
  // Lets the write that is out complete.
  void Release(bool ok = true) {
    std::function<void(bool)> w;
    {
      absl::MutexLock lock(&mu_);
      w.swap(pending_);
    }
    if (w) w(ok);
  }

 private:
  absl::Mutex mu_;
  std::vector<T> messages_ ABSL_GUARDED_BY(mu_);
  std::function<void(bool)> pending_ ABSL_GUARDED_BY(mu_);
};

TEST_CASE("executor: a watch of more jobs than server.maxWatchedJobs is refused at once",
          "[executor]") {
  Fixture f(/*cache_on=*/true);
  StalledWriter<JobResult> writer;
  std::vector<std::string> ids;
  for (int i = 0; i <= 100; ++i) ids.push_back(IdOf(absl::StrCat("app-", i)));
  absl::Status ended;
  bool called = false;
  f.executor->WatchStatus(ids, absl::Now() + absl::Seconds(30), &writer, [&](absl::Status s) {
    ended = std::move(s);
    called = true;
  });
  REQUIRE(called);  // answered inline, before any request
  CHECK(absl::IsInvalidArgument(ended));
  CHECK_THAT(
      std::string(ended.message()),
      Catch::Contains("at most 100 execution ids per watch (server.maxWatchedJobs), got 101"));
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("executor: a watcher that stops reading overflows alone; others keep their stream",
          "[executor]") {
  Fixture f(/*cache_on=*/true);
  f.cache->Pin(kNs);
  auto list = f.Next("list");
  k8s::ListPage page;
  page.items = testing::Items({AppJson("a", "3", "Submitted")});
  page.resource_version = "5";
  f.client->CompleteList(list, page);
  auto watch = f.Next("watch");

  StalledWriter<JobResult> stalled;
  StalledWriter<JobResult> reading;
  struct Ended {
    absl::Notification done;
    absl::Status value;
  };
  Ended stalled_end;
  Ended reading_end;
  auto to_status = [](Ended& r) {
    return [&r](absl::Status s) {
      r.value = std::move(s);
      r.done.Notify();
    };
  };
  auto h1 = f.executor->WatchStatus({IdOf("a")}, absl::Now() + absl::Seconds(30), &stalled,
                                    to_status(stalled_end));
  auto h2 = f.executor->WatchStatus({IdOf("a")}, absl::Now() + absl::Seconds(30), &reading,
                                    to_status(reading_end));
  // Both got the first status; the stalled one never lets its write complete.
  for (int i = 0; i < 100 && (stalled.Count() < 1 || reading.Count() < 1); ++i) f.client->Barrier();
  REQUIRE(stalled.Count() == 1);
  REQUIRE(reading.Count() == 1);
  reading.Release();
  // More changes than the stalled stream may fall behind by (4).
  const char* states[] = {"DriverRequested",
                          "DriverStarted",
                          "DriverReady",
                          "RunningHealthy",
                          "RunningWithBelowThresholdExecutors",
                          "RunningHealthy"};
  int rv = 10;
  for (const char* state : states) {
    f.client->SendEvent(watch,
                        k8s::WatchEvent{k8s::WatchEvent::Type::kModified, std::to_string(rv),
                                        testing::Json(AppJson("a", std::to_string(rv), state))});
    ++rv;
    for (int i = 0; i < 5; ++i) f.client->Barrier();
    reading.Release();
  }
  REQUIRE(stalled_end.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  CHECK(absl::IsResourceExhausted(stalled_end.value));
  CHECK(stalled_end.value.message().find("too slowly") != std::string::npos);
  CHECK(stalled.Count() == 1);  // one write in flight, never more
  // The reading one saw the changes and is still open.
  CHECK(reading.Count() >= 2);
  CHECK_FALSE(reading_end.done.HasBeenNotified());
  h2->Cancel();
  REQUIRE(reading_end.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  CHECK(absl::IsCancelled(reading_end.value));
  CHECK(f.cache->Stats().size() == 1);
  stalled.Release(false);
}

TEST_CASE("executor: a follower that stops reading holds a bounded log; lines are counted",
          "[executor]") {
  Fixture f;
  StalledWriter<OutputBatch> writer;
  absl::Notification ended;
  absl::Status end;
  f.executor->FollowOutput(IdOf("a"), 0, "", LogRequest{}, absl::Now() + absl::Seconds(30), &writer,
                           [&](absl::Status s) {
                             end = std::move(s);
                             ended.Notify();
                           });
  f.client->Complete(f.Next("get"), AppJson("a", "3", "RunningHealthy"));
  auto pods = f.Next("list");
  k8s::ListPage page;
  page.items = testing::Items(
      {R"({"metadata":{"name":"a-0-driver","creationTimestamp":"2026-01-01T00:00:01Z"},)"
       R"("spec":{"containers":[{"name":"spark-kubernetes-driver","image":"spark"}]},)"
       R"("status":{"phase":"Running","containerStatuses":[{"name":"spark-kubernetes-driver",)"
       R"("state":{"running":{"startedAt":"2026-01-01T00:00:02Z"}}}]}})"});
  f.client->CompleteList(pods, page);
  auto log = f.Next("stream_log");
  CHECK(log->ref.name == "a-0-driver");
  CHECK(log->log.follow);
  // The first line goes out and its write never completes; the driver keeps writing: 100 lines
  // far past the 64-byte buffer.
  f.client->SendChunk(log, "first\n");
  for (int i = 0; i < 100 && writer.Count() < 1; ++i) f.client->Barrier();
  REQUIRE(writer.Count() == 1);
  for (int i = 0; i < 100; ++i) f.client->SendChunk(log, "line-0000\n");
  f.client->EndStream(log, absl::OkStatus());
  f.client->Barrier();
  CHECK(writer.Count() == 1);  // one write in flight, never more
  CHECK_FALSE(ended.HasBeenNotified());
  // Reading again: what fit in the buffer, and how many lines were dropped meanwhile.
  for (int i = 0; i < 100 && !ended.HasBeenNotified(); ++i) {
    writer.Release();
    f.client->Barrier();
  }
  REQUIRE(ended.WaitForNotificationWithTimeout(absl::Seconds(10)));
  CHECK(end.ok());
  std::vector<OutputBatch> batches = writer.Messages();
  REQUIRE(batches.size() >= 2);
  CHECK(batches[0].lines == std::vector<std::string>{"first"});
  size_t kept = 0;
  int64_t dropped = 0;
  for (size_t i = 1; i < batches.size(); ++i) {
    kept += batches[i].lines.size();
    dropped += batches[i].dropped_lines;
  }
  // The 64-byte buffer holds as many 9-byte lines as fit (the line feed isn't kept).
  CHECK(kept == 64 / std::string("line-0000").size());
  CHECK(kept + static_cast<size_t>(dropped) == 100);
}

}  // namespace
}  // namespace kje::executor

namespace kje::executor {
namespace {

std::string EventJson(const std::string& name, const std::string& kind, const std::string& object,
                      const std::string& reason, const std::string& first) {
  return absl::StrCat(R"({"metadata":{"name":")", name, R"("},"involvedObject":{"kind":")", kind,
                      R"(","name":")", object, R"("},"reason":")", reason,
                      R"(","type":"Normal","message":"m","count":1,)",
                      R"("source":{"component":"kubelet"},"firstTimestamp":")", first,
                      R"(","lastTimestamp":")", first, R"("})");
}

k8s::ListPage DriverPage() {
  k8s::ListPage page;
  page.items = testing::Items(
      {R"({"metadata":{"name":"a-0-driver","creationTimestamp":"2026-01-01T00:00:01Z"},)"
       R"("spec":{"containers":[{"name":"spark-kubernetes-driver","image":"spark"}]},)"
       R"("status":{"phase":"Running"}})"});
  return page;
}

TEST_CASE("executor: events are the app's and its driver pod's, oldest first", "[executor]") {
  Fixture f;
  Result<JobEvents> r;
  f.executor->Events(IdOf("a"), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), AppJson("a", "3", "RunningHealthy"));
  auto app_events = f.Next("list");
  CHECK(app_events->ref.plural == "events");
  CHECK(app_events->ref.namespace_ == kNs);
  CHECK(app_events->list.field_selector ==
        "involvedObject.kind=SparkApplication,involvedObject.name=a");
  CHECK(app_events->list.limit > 0);
  k8s::ListPage page;
  page.items = testing::Items(
      {EventJson("a.2", "SparkApplication", "a", "SparkApplicationRunning", "2026-01-01T00:00:09Z"),
       EventJson("a.1", "SparkApplication", "a", "SparkApplicationSubmitted",
                 "2026-01-01T00:00:01Z")});
  f.client->CompleteList(app_events, page);
  auto pods = f.Next("list");
  CHECK(pods->ref.plural == "pods");
  f.client->CompleteList(pods, DriverPage());
  auto pod_events = f.Next("list");
  CHECK(pod_events->list.field_selector ==
        "involvedObject.kind=Pod,involvedObject.name=a-0-driver");
  k8s::ListPage pod_page;
  pod_page.items = testing::Items(
      {EventJson("d.1", "Pod", "a-0-driver", "Scheduled", "2026-01-01T00:00:02Z"), "[]"});
  f.client->CompleteList(pod_events, pod_page);
  const auto& events = r.Get();
  REQUIRE(events.ok());
  CHECK_FALSE(events->truncated);
  REQUIRE(events->events.size() == 3);  // the unreadable item is skipped
  CHECK(events->events[0].reason == "SparkApplicationSubmitted");
  CHECK(events->events[1].reason == "Scheduled");
  CHECK(events->events[1].object_kind == "Pod");
  CHECK(events->events[2].reason == "SparkApplicationRunning");
}

TEST_CASE("executor: events of a deleted app still show; none at all is NOT_FOUND", "[executor]") {
  for (bool any : {true, false}) {
    Fixture f;
    Result<JobEvents> r;
    f.executor->Events(IdOf("gone"), absl::Now() + absl::Seconds(5), r.Callback());
    f.client->Complete(f.Next("get"), k8s::MakeApiStatus({404, "NotFound", "not found"}));
    k8s::ListPage page;
    if (any) {
      page.items = testing::Items({EventJson("gone.1", "SparkApplication", "gone",
                                             "SparkApplicationFailed", "2026-01-01T00:00:01Z")});
    }
    f.client->CompleteList(f.Next("list"), page);
    // Its drivers' Events by name (attempt 0's, and 1's: 0's may have expired): none left.
    for (const char* pod : {"gone-0-driver", "gone-1-driver"}) {
      auto pod_events = f.Next("list");
      CHECK(pod_events->ref.plural == "events");
      CHECK(pod_events->list.field_selector ==
            absl::StrCat("involvedObject.kind=Pod,involvedObject.name=", pod));
      f.client->CompleteList(pod_events, k8s::ListPage{});
    }
    const auto& events = r.Get();
    if (any) {
      REQUIRE(events.ok());
      CHECK(events->events.size() == 1);
    } else {
      CHECK(absl::IsNotFound(events.status()));
    }
  }
}

TEST_CASE("executor: events are bounded per object and say so", "[executor]") {
  Fixture f;
  Result<JobEvents> r;
  f.executor->Events(IdOf("a"), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), AppJson("a", "3", "RunningHealthy"));
  // 1000 by default: two pages of 500, and a continue token left.
  for (int p = 0; p < 2; ++p) {
    auto list = f.Next("list");
    CHECK(list->list.limit == 500);
    CHECK(list->list.continue_token == (p == 0 ? "" : "next-1"));
    k8s::ListPage page;
    for (int i = 0; i < 500; ++i) {
      page.items.push_back(testing::Json(EventJson(
          absl::StrCat("a.", p, "-", i), "SparkApplication", "a", "R", "2026-01-01T00:00:01Z")));
    }
    page.continue_token = absl::StrCat("next-", p + 1);
    f.client->CompleteList(list, page);
  }
  f.client->CompleteList(f.Next("list"), k8s::ListPage{});  // pods: none
  // No driver pod: the kept record is looked for (none was kept).
  f.client->Complete(f.Next("get"), k8s::MakeApiStatus({404, "NotFound", "not found"}));
  const auto& events = r.Get();
  REQUIRE(events.ok());
  CHECK(events->events.size() == 1000);
  CHECK(events->truncated);
}

TEST_CASE("executor: an events LIST the API server refuses is the table's code", "[executor]") {
  Fixture f;
  Result<JobEvents> r;
  f.executor->Events(IdOf("a"), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), AppJson("a", "3", "RunningHealthy"));
  f.client->CompleteList(f.Next("list"),
                         k8s::MakeApiStatus({403, "Forbidden", "events is forbidden"}));
  CHECK(absl::IsPermissionDenied(r.Get().status()));
  CHECK(absl::StrContains(r.Get().status().message(), "events of SparkApplication jobs/a"));
}

TEST_CASE("executor: events of a malformed id answer at once", "[executor]") {
  Fixture f;
  Result<JobEvents> r;
  f.executor->Events("nope", absl::Now() + absl::Seconds(5), r.Callback());
  CHECK(absl::IsNotFound(r.Get().status()));
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

}  // namespace
}  // namespace kje::executor
