// Keep mode's stops over the scripted client, on both operators: the mark is one patch at the
// version judged (a 409 reads the app again and judges again), then the pods the operator leaves
// to the service are deleted by its selector; a mark another replica wrote is finished, not
// written again; a reason too long changes nothing.

#include "executor/cancel_keep.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "k8s/errors.h"
#include "spark/execution_id.h"
#include "spark/names.h"
#include "tests/executor/executor_fixture.h"
#include "tests/executor/operator_apps.h"
#include "tests/fakes/fake_kube_client.h"

namespace kje::executor {
namespace {

std::string IdOf(const std::string& name) {
  return spark::ExecutionId{"default", std::string(spark::kKindSparkApp), kNs, name}.ToString();
}

absl::Status Api(int code, const std::string& reason, const std::string& message) {
  return k8s::MakeApiStatus({code, reason, message});
}

std::string PodJson(const std::string& name) {
  return absl::StrCat(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", name,
                      R"(","namespace":"jobs"}})");
}

// Answers the reads of a capture of "a"'s record before its stop: its running driver, the log's
// two stamped lines, no Events.
void AnswerCapture(Fixture& f, const OperatorApps& op) {
  auto pods = f.Next("list");
  CHECK(pods->list.label_selector == op.backend->DriverSelector("a"));
  k8s::ListPage page;
  page.items = testing::Items({op.DriverPodJson("a")});
  f.client->CompleteList(pods, page);
  auto log = f.Next("stream_log");
  CHECK(log->ref.name == "a-driver");
  CHECK(log->log.timestamps);
  f.client->SendChunk(log,
                      "2026-01-01T00:00:04.000000001Z starting\n"
                      "2026-01-01T00:00:05.000000001Z running\n");
  f.client->EndStream(log, absl::OkStatus());
  for (const char* kind : {"SparkApplication", "Pod"}) {
    auto events = f.Next("list");
    CHECK(events->ref.plural == "events");
    CHECK(absl::StrContains(events->list.field_selector, kind));
    f.client->CompleteList(events, k8s::ListPage{});
  }
}

CancelOptions Keep(std::string reason = "why") {
  CancelOptions options;
  options.mode = spark::CancelMode::kKeep;
  options.reason = std::move(reason);
  return options;
}

TEST_CASE("cancel keep: marks at the version judged, judges again on 409, then deletes the pods",
          "[cancel_keep]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  INFO(op.name);
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  Result<bool> r;
  f.executor->Cancel(IdOf("a"), Keep(), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("a", "3", Situation::kRunning));
  // The driver's log and Events read first: the stop ends the driver.
  AnswerCapture(f, op);
  auto first = f.Next("patch");
  CHECK(absl::StrContains(first->body, R"("resourceVersion":"3")"));
  CHECK(absl::StrContains(first->body, R"("gravitino.apache.org/cancel-reason":"why")"));
  CHECK(absl::StrContains(first->body, "gravitino.apache.org/stop-kept-at"));
  CHECK(absl::StrContains(first->body, op.backend->KeptStopSpecPatch()));
  // The operator wrote its status meanwhile: read again, judged again, marked at the new version.
  f.client->Complete(first, Api(409, "Conflict", "the object has been modified"));
  f.client->Complete(f.Next("get"), op.AppJson("a", "4", Situation::kRunning));
  auto second = f.Next("patch");  // read once: not again for the second round
  CHECK(absl::StrContains(second->body, R"("resourceVersion":"4")"));
  f.client->Complete(second, Marked(op.AppJson("a", "5", Situation::kRunning)));
  // Marked: the record written, owned by the app, and the app labelled.
  auto record = f.Next("create");
  CHECK(record->ref.plural == "configmaps");
  CHECK(absl::StrContains(record->body, R"("name":"a-kept")"));
  CHECK(absl::StrContains(record->body, "running"));
  CHECK(absl::StrContains(record->body, R"("uid":"uid-a")"));
  f.client->Complete(record, "{}");
  auto label = f.Next("patch");
  CHECK(absl::StrContains(label->body, R"("gravitino.apache.org/output":"kept")"));
  f.client->Complete(label, Marked(op.AppJson("a", "6", Situation::kRunning)));
  auto list = f.Next("list");
  CHECK(list->list.label_selector == op.backend->KeptStopPodSelector("a"));
  k8s::ListPage pods;
  pods.items = testing::Items({PodJson("p1"), PodJson("p2")});
  f.client->CompleteList(list, pods);
  auto del1 = f.Next("delete");
  CHECK(del1->ref.name == "p1");
  f.client->Complete(del1, Api(404, "NotFound", "gone already"));  // someone was faster
  auto del2 = f.Next("delete");
  CHECK(del2->ref.name == "p2");
  f.client->Complete(del2, PodJson("p2"));
  REQUIRE(r.Get().ok());
  CHECK(*r.Get());
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());  // the application itself is never deleted
}

TEST_CASE("cancel keep: a mark another replica wrote is finished, not written again",
          "[cancel_keep]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  INFO(op.name);
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  Result<bool> r;
  f.executor->Cancel(IdOf("a"), Keep("another"), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), Marked(op.AppJson("a", "5", Situation::kRunning)));
  auto list = f.Next("list");  // no patch: straight to the pods
  f.client->CompleteList(list, k8s::ListPage{});
  REQUIRE(r.Get().ok());
  CHECK(*r.Get());
}

TEST_CASE("cancel keep: a pod deletion RBAC forbids fails the Cancel, which can be retried",
          "[cancel_keep]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  Result<bool> r;
  f.executor->Cancel(IdOf("a"), Keep(), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("a", "3", Situation::kRunning));
  // A capture that fails doesn't hold the stop back (the job's end keeps the record then).
  f.client->CompleteList(f.Next("list"), Api(503, "ServiceUnavailable", "try later"));
  f.client->Complete(f.Next("patch"), Marked(op.AppJson("a", "4", Situation::kRunning)));
  k8s::ListPage pods;
  pods.items = testing::Items({PodJson("p1")});
  f.client->CompleteList(f.Next("list"), pods);
  f.client->Complete(f.Next("delete"), Api(403, "Forbidden", "pods is forbidden"));
  CHECK(absl::IsPermissionDenied(r.Get().status()));
}

TEST_CASE("cancel keep: a reason over 1024 bytes is refused before any request", "[cancel_keep]") {
  Fixture f;
  Result<bool> r;
  f.executor->Cancel(IdOf("a"), Keep(std::string(1025, 'r')), absl::Now() + absl::Seconds(5),
                     r.Callback());
  CHECK(absl::IsInvalidArgument(r.Get().status()));
  CHECK_FALSE(absl::StrContains(r.Get().status().message(), "rrrr"));
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("cancel keep: delete mode writes the reason with the mark", "[cancel_keep]") {
  Fixture f;
  Result<bool> r;
  CancelOptions options;
  options.reason = "a\nb";
  const OperatorApps op = OperatorApps::Named("apache");
  f.executor->Cancel(IdOf("a"), options, absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("a", "3", Situation::kRunning));
  auto patch = f.Next("patch");
  // Escaped: no line break reaches the annotation.
  CHECK(absl::StrContains(patch->body, R"("gravitino.apache.org/cancel-reason":"a\\x0Ab")"));
  f.client->Complete(patch, op.AppJson("a", "4", Situation::kRunning));
  auto del = f.Next("delete");
  CHECK(del->delete_options.propagation_policy == "Foreground");
  f.client->Complete(del, op.AppJson("a", "5", Situation::kRunning));
  REQUIRE(r.Get().ok());
}

TEST_CASE(
    "cancel keep: a stop owes a finish once stopped, or unfinished for two minutes, until "
    "marked done",
    "[cancel_keep]") {
  const OperatorApps op = OperatorApps::Named("kubeflow");
  auto app = op.backend->ProjectJson(Marked(op.AppJson("a", "5", Situation::kRunning)));
  REQUIRE(app.ok());
  spark::JobStatusInfo running;
  running.status = spark::JobStatus::kCancelling;
  const absl::Time marked = absl::FromUnixSeconds(1767225660);  // 2026-01-01T00:01:00Z
  CHECK_FALSE(KeptStopOwesFinish(*app, running, marked + absl::Seconds(119)));
  CHECK(KeptStopOwesFinish(*app, running, marked + absl::Seconds(120)));
  spark::JobStatusInfo stopped = running;
  stopped.is_stopped = true;
  CHECK(KeptStopOwesFinish(*app, stopped, marked));
  CHECK_FALSE(DeadlineDeleteUnfinished(*app));
  auto done = op.backend->ProjectJson(absl::StrReplaceAll(
      Marked(op.AppJson("a", "6", Situation::kRunning)),
      {{R"("annotations":{)", R"("annotations":{"gravitino.apache.org/stop-kept-done":"true",)"}}));
  REQUIRE(done.ok());
  CHECK_FALSE(KeptStopOwesFinish(*done, stopped, marked + absl::Hours(1)));
  CHECK_FALSE(KeptStopOwesFinish(*done, running, marked + absl::Hours(1)));
}

}  // namespace
}  // namespace kje::executor
