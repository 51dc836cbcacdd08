// Events of a job whose driver pod, or whose application too, is gone: the Events the cluster
// still holds, found by the names each operator gives its drivers, never by listing live pods.

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "executor/kept_record.h"
#include "k8s/errors.h"
#include "spark/execution_id.h"
#include "tests/executor/executor_fixture.h"
#include "tests/executor/operator_apps.h"
#include "tests/fakes/fake_kube_client.h"

namespace kje::executor {
namespace {

std::string IdOf(const std::string& name) {
  return spark::ExecutionId{"default", std::string(spark::kKindSparkApp), kNs, name}.ToString();
}

std::string EventJson(const std::string& name, const std::string& kind, const std::string& object,
                      const std::string& reason, const std::string& first) {
  return absl::StrCat(R"({"metadata":{"name":")", name, R"("},"involvedObject":{"kind":")", kind,
                      R"(","name":")", object, R"("},"reason":")", reason,
                      R"(","type":"Normal","message":"m","count":1,)",
                      R"("source":{"component":"kubelet"},"firstTimestamp":")", first,
                      R"(","lastTimestamp":")", first, R"("})");
}

k8s::ListPage PageOf(std::initializer_list<std::string_view> items) {
  k8s::ListPage page;
  page.items = testing::Items(items);
  return page;
}

absl::Status NotFound() { return k8s::MakeApiStatus({404, "NotFound", "not found"}); }

// The driver names each operator gives attempts 0 and 1 of application `app`.
std::string Driver(const OperatorApps& op, const std::string& app, int attempt) {
  if (op.name == "kubeflow") return app + "-driver";
  return absl::StrCat(app, "-", attempt, "-driver");
}

// Answers the events LIST of the next call, checking it asks for `kind` `name`.
void AnswerEvents(Fixture& f, const std::string& kind, const std::string& name,
                  const k8s::ListPage& page) {
  auto list = f.Next("list");
  REQUIRE(list->ref.plural == "events");
  CHECK(list->list.field_selector ==
        absl::StrCat("involvedObject.kind=", kind, ",involvedObject.name=", name));
  f.client->CompleteList(list, page);
}

TEST_CASE("executor events: an app gone, its drivers' Events are found by name", "[executor]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  Result<JobEvents> r;
  f.executor->Events(IdOf("gone"), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), NotFound());
  AnswerEvents(f, "SparkApplication", "gone",
               PageOf({EventJson("gone.1", "SparkApplication", "gone", "SparkApplicationFailed",
                                 "2026-01-01T00:00:09Z")}));
  // No LIST of pods: the first attempt's driver by its name.
  AnswerEvents(
      f, "Pod", Driver(op, "gone", 0),
      PageOf(
          {EventJson("d.1", "Pod", Driver(op, "gone", 0), "Killing", "2026-01-01T00:00:08Z"),
           EventJson("d.0", "Pod", Driver(op, "gone", 0), "Scheduled", "2026-01-01T00:00:02Z")}));
  if (op.name == "apache") {
    // Each attempt's driver has its own name: the next one's, which never ran.
    AnswerEvents(f, "Pod", Driver(op, "gone", 1), k8s::ListPage{});
  }
  const auto& events = r.Get();
  REQUIRE(events.ok());
  REQUIRE(events->events.size() == 3);
  CHECK(events->events[0].reason == "Scheduled");
  CHECK(events->events[1].reason == "Killing");
  CHECK(events->events[1].object_name == Driver(op, "gone", 0));
  CHECK(events->events[2].reason == "SparkApplicationFailed");
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("executor events: nothing left of the job at all is NOT_FOUND", "[executor]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  Result<JobEvents> r;
  f.executor->Events(IdOf("never"), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), NotFound());
  AnswerEvents(f, "SparkApplication", "never", k8s::ListPage{});
  AnswerEvents(f, "Pod", Driver(op, "never", 0), k8s::ListPage{});
  // Attempt 0's Events may have expired before a restarted attempt's: one more name.
  if (op.name == "apache") AnswerEvents(f, "Pod", Driver(op, "never", 1), k8s::ListPage{});
  CHECK(absl::IsNotFound(r.Get().status()));
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

TEST_CASE("executor events: a restarted attempt's driver is found after an expired first one",
          "[executor]") {
  const OperatorApps op = OperatorApps::Named("apache");
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  Result<JobEvents> r;
  f.executor->Events(IdOf("retried"), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), NotFound());
  AnswerEvents(f, "SparkApplication", "retried", k8s::ListPage{});
  AnswerEvents(f, "Pod", "retried-0-driver", k8s::ListPage{});
  AnswerEvents(
      f, "Pod", "retried-1-driver",
      PageOf({EventJson("r1.1", "Pod", "retried-1-driver", "Scheduled", "2026-01-01T01:00:02Z")}));
  AnswerEvents(
      f, "Pod", "retried-2-driver",
      PageOf({EventJson("r2.1", "Pod", "retried-2-driver", "Scheduled", "2026-01-01T01:10:02Z")}));
  AnswerEvents(f, "Pod", "retried-3-driver", k8s::ListPage{});
  const auto& events = r.Get();
  REQUIRE(events.ok());
  REQUIRE(events->events.size() == 2);
  CHECK(events->events[0].object_name == "retried-1-driver");
  CHECK(events->events[1].object_name == "retried-2-driver");
}

TEST_CASE("executor events: a long Apache name's driver carries the operator's hashed id",
          "[executor]") {
  const OperatorApps op = OperatorApps::Named("apache");
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  // 45 characters: "<name>-0" passes the operator's 46.
  const std::string name = "gravitino-job-a-rather-long-job-id-0123456789";
  Result<JobEvents> r;
  f.executor->Events(IdOf(name), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), NotFound());
  AnswerEvents(f, "SparkApplication", name, k8s::ListPage{});
  // The first 9 characters of "<name>-<attempt>", a dash, the first 36 base-36 digits of
  // SHA-256("jobs/<name>/<attempt>") (worked out with Python's hashlib), then "-driver".
  const std::string first = "gravitino-4kje29358hmi148qfos8chsmgab72ot61s1m-driver";
  AnswerEvents(f, "Pod", first,
               PageOf({EventJson("h.1", "Pod", first, "Scheduled", "2026-01-01T00:00:02Z")}));
  AnswerEvents(f, "Pod", "gravitino-146agwc3o7yh9mvj63psi8kmcaso3ubwwx9i-driver", k8s::ListPage{});
  REQUIRE(r.Get().ok());
  CHECK(r.Get()->events.size() == 1);
}

TEST_CASE("executor events: a stopped job without a record finds its driver's Events by name",
          "[executor]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  Result<JobEvents> r;
  f.executor->Events(IdOf("done"), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("done", "5", Situation::kSucceeded));
  AnswerEvents(f, "SparkApplication", "done", k8s::ListPage{});
  auto pods = f.Next("list");
  CHECK(pods->ref.plural == "pods");
  f.client->CompleteList(pods, k8s::ListPage{});  // the driver is gone
  auto record = f.Next("get");
  CHECK(record->ref.name == "done-kept");
  f.client->Complete(record, NotFound());
  AnswerEvents(
      f, "Pod", Driver(op, "done", 0),
      PageOf({EventJson("d.1", "Pod", Driver(op, "done", 0), "Started", "2026-01-01T00:00:03Z")}));
  if (op.name == "apache") AnswerEvents(f, "Pod", Driver(op, "done", 1), k8s::ListPage{});
  const auto& events = r.Get();
  REQUIRE(events.ok());
  REQUIRE(events->events.size() == 1);
  CHECK(events->events[0].reason == "Started");
}

TEST_CASE("executor events: a record that saw no pod adds its Events to the driver's by name",
          "[executor]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  Result<JobEvents> r;
  f.executor->Events(IdOf("unseen"), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("unseen", "5", Situation::kSucceeded));
  AnswerEvents(f, "SparkApplication", "unseen", k8s::ListPage{});  // expired since
  f.client->CompleteList(f.Next("list"), k8s::ListPage{});         // the driver is gone
  KeptRecord record;
  record.not_kept = NotKept::kPodGone;
  k8s::Event kept;
  kept.name = "unseen.1";
  kept.object_kind = "SparkApplication";
  kept.object_name = "unseen";
  kept.reason = "SparkApplicationFailed";
  kept.first_seen = kept.last_seen = absl::FromUnixSeconds(1767225600);
  record.events = {kept};
  RecordOwner owner;
  owner.namespace_ = kNs;
  owner.app_name = "unseen";
  owner.app_uid = "uid-unseen";
  owner.api_version = std::string(op.backend->Name());
  owner.kind = "SparkApplication";
  f.client->Complete(f.Next("get"), KeptRecordJson(owner, record));
  AnswerEvents(f, "Pod", Driver(op, "unseen", 0),
               PageOf({EventJson("d.1", "Pod", Driver(op, "unseen", 0), "Killing",
                                 "2026-01-01T00:00:08Z")}));
  if (op.name == "apache") AnswerEvents(f, "Pod", Driver(op, "unseen", 1), k8s::ListPage{});
  const auto& events = r.Get();
  REQUIRE(events.ok());
  REQUIRE(events->events.size() == 2);
  CHECK(events->events[0].reason == "SparkApplicationFailed");
  CHECK(events->events[1].reason == "Killing");
}

TEST_CASE("executor events: a queued job without a driver looks up no driver by name",
          "[executor]") {
  const OperatorApps op = OperatorApps::Named(GENERATE(from_range(kOperators)));
  Fixture f(/*cache_on=*/false, {}, 1024, op.backend);
  Result<JobEvents> r;
  f.executor->Events(IdOf("q"), absl::Now() + absl::Seconds(5), r.Callback());
  f.client->Complete(f.Next("get"), op.AppJson("q", "2", Situation::kSubmitted));
  AnswerEvents(f, "SparkApplication", "q", k8s::ListPage{});
  f.client->CompleteList(f.Next("list"), k8s::ListPage{});  // no driver pod yet
  f.client->Complete(f.Next("get"), NotFound());            // no record
  const auto& events = r.Get();
  REQUIRE(events.ok());
  CHECK(events->events.empty());
  f.client->Barrier();
  CHECK_FALSE(f.client->HasPendingCall());
}

}  // namespace
}  // namespace kje::executor
