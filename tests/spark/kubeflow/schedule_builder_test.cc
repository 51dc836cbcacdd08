#include "spark/kubeflow/schedule_builder.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "spark/job_template.h"
#include "spark/kubeflow/app_builder.h"
#include "spark/names.h"

namespace kje::spark::kubeflow {
namespace {

rapidjson::Document Parse(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.c_str());
  REQUIRE_FALSE(document.HasParseError());
  return document;
}

std::string Str(const rapidjson::Value& value) {
  REQUIRE(value.IsString());
  return value.GetString();
}

BuiltApplication PiApplication() {
  BuilderOptions options;
  options.namespace_ = "spark-jobs";
  options.image = "apache/spark:3.5.6";
  options.spark_version = "3.5.6";
  SparkTemplate t;
  t.name = "spark-pi";
  t.executable = "local:///opt/spark/examples/jars/spark-examples.jar";
  t.class_name = "org.apache.spark.examples.SparkPi";
  t.arguments = {"100"};
  absl::StatusOr<BuiltApplication> app = kubeflow::BuildSparkApplication("77", "ml", t, options);
  REQUIRE(app.ok());
  return *app;
}

ScheduleSpec NightlySpec() {
  ScheduleSpec spec;
  spec.cron = "30 2 * * *";
  spec.time_zone = "Europe/Berlin";
  spec.concurrency_policy = ConcurrencyPolicy::kForbid;
  spec.successful_run_history_limit = 3;
  spec.failed_run_history_limit = 0;
  return spec;
}

ScheduleMeta NightlyMeta() {
  ScheduleMeta meta;
  meta.name = "nightly-pi";
  meta.labels = {{std::string(spark::kLabelManagedBy), "gravitino"},
                 {std::string(spark::kLabelJobId), "77"}};
  meta.annotations = {{std::string(spark::kAnnotationMetalake), "ml"}};
  return meta;
}

std::string Message(const absl::Status& status) {
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  return std::string(status.message());
}

TEST_CASE("concurrency policies have the operator's spellings", "[kubeflow][schedule]") {
  CHECK(ConcurrencyPolicyName(ConcurrencyPolicy::kAllow) == "Allow");
  CHECK(ConcurrencyPolicyName(ConcurrencyPolicy::kForbid) == "Forbid");
  CHECK(ConcurrencyPolicyName(ConcurrencyPolicy::kReplace) == "Replace");
  CHECK(ConcurrencyPolicyName(ConcurrencyPolicy::kUnset).empty());
  CHECK(ConcurrencyPolicyName(ConcurrencyPolicy::kUnrecognized).empty());
  CHECK(ParseConcurrencyPolicy("Replace") == ConcurrencyPolicy::kReplace);
  CHECK(ParseConcurrencyPolicy("") == ConcurrencyPolicy::kUnset);
  CHECK(ParseConcurrencyPolicy("allow") == ConcurrencyPolicy::kUnrecognized);
  CHECK(ParseConcurrencyPolicy("MaybeSometimes") == ConcurrencyPolicy::kUnrecognized);
}

TEST_CASE("CheckScheduleSpec names the field at fault", "[kubeflow][schedule]") {
  ScheduleSpec spec = NightlySpec();
  CHECK(CheckScheduleSpec(spec).ok());
  spec.successful_run_history_limit = 0;
  CHECK(CheckScheduleSpec(spec).ok());
  ScheduleSpec hourly;
  hourly.cron = "@hourly";
  CHECK(CheckScheduleSpec(hourly).ok());

  ScheduleSpec bad = NightlySpec();
  bad.cron = "61 * * * *";
  CHECK(absl::StartsWith(Message(CheckScheduleSpec(bad)), "schedule \"61 * * * *\": the minute"));
  bad = NightlySpec();
  bad.cron = "";
  CHECK(Message(CheckScheduleSpec(bad)) == "schedule is empty");
  bad = NightlySpec();
  bad.time_zone = "Europe/Atlantis";
  CHECK(absl::StartsWith(Message(CheckScheduleSpec(bad)), "time_zone \"Europe/Atlantis\""));
  for (ConcurrencyPolicy policy : {ConcurrencyPolicy::kUnset, ConcurrencyPolicy::kUnrecognized}) {
    bad = NightlySpec();
    bad.concurrency_policy = policy;
    CHECK(absl::StartsWith(Message(CheckScheduleSpec(bad)), "concurrency_policy"));
  }
  bad = NightlySpec();
  bad.successful_run_history_limit = -1;
  CHECK(Message(CheckScheduleSpec(bad)) ==
        "successful_run_history_limit must be 0 or more, not -1");
  bad = NightlySpec();
  bad.failed_run_history_limit = -5;
  CHECK(absl::StartsWith(Message(CheckScheduleSpec(bad)), "failed_run_history_limit"));
}

TEST_CASE("schedule names leave room for the controller's run names", "[kubeflow][schedule]") {
  CHECK(kMaxScheduleNameLength == 43);
  CHECK(CheckScheduleName("nightly-pi").ok());
  CHECK(CheckScheduleName("a").ok());
  CHECK(CheckScheduleName("a1-b2").ok());
  const std::string longest(kMaxScheduleNameLength, 'a');
  CHECK(CheckScheduleName(longest).ok());
  // Its nanosecond run name is exactly the longest SparkApplication name.
  CHECK(absl::StrCat(longest, "-", std::string(kRunTimestampDigits, '9')).size() == kMaxNameLength);
  CHECK(absl::StrContains(Message(CheckScheduleName(longest + "a")), "at most 43"));
  for (const char* name : {"", "1nightly", "Nightly", "night_ly", "night.ly", "nightly-", "-a",
                           "nightly pi", "n\xC3\xA9"}) {
    INFO(name);
    CHECK(absl::StartsWith(Message(CheckScheduleName(name)), "name \""));
  }
}

TEST_CASE("the ScheduledSparkApplication carries the app's spec as its template",
          "[kubeflow][schedule]") {
  BuiltApplication app = PiApplication();
  absl::StatusOr<BuiltObject> built =
      BuildScheduledApplication(NightlyMeta(), NightlySpec(), app.json);
  REQUIRE(built.ok());
  CHECK(built->name == "nightly-pi");
  CHECK(built->namespace_ == "spark-jobs");
  rapidjson::Document schedule = Parse(built->json);
  rapidjson::Document application = Parse(app.json);
  CHECK(Str(schedule["apiVersion"]) == "sparkoperator.k8s.io/v1beta2");
  CHECK(Str(schedule["kind"]) == "ScheduledSparkApplication");
  const rapidjson::Value& metadata = schedule["metadata"];
  CHECK(Str(metadata["name"]) == "nightly-pi");
  CHECK(Str(metadata["namespace"]) == "spark-jobs");
  CHECK(metadata["labels"].MemberCount() == 2);
  CHECK(Str(metadata["labels"]["app.kubernetes.io/managed-by"]) == "gravitino");
  CHECK(Str(metadata["labels"]["gravitino.apache.org/job-id"]) == "77");
  CHECK(metadata["annotations"].MemberCount() == 1);
  CHECK(Str(metadata["annotations"]["gravitino.apache.org/metalake"]) == "ml");
  const rapidjson::Value& spec = schedule["spec"];
  CHECK(spec.MemberCount() == 7);
  CHECK(Str(spec["schedule"]) == "30 2 * * *");
  CHECK(Str(spec["timeZone"]) == "Europe/Berlin");
  CHECK(Str(spec["concurrencyPolicy"]) == "Forbid");
  CHECK(spec["successfulRunHistoryLimit"].GetInt() == 3);
  CHECK(spec["failedRunHistoryLimit"].GetInt() == 0);
  CHECK(spec["suspend"].IsFalse());
  CHECK(spec["template"] == application["spec"]);
  CHECK(Str(spec["template"]["mainClass"]) == "org.apache.spark.examples.SparkPi");
}

TEST_CASE("the schedule writes every policy field, the zone only when set",
          "[kubeflow][schedule]") {
  ScheduleSpec spec;
  spec.cron = "@daily";
  spec.suspended = true;
  ScheduleMeta meta;
  meta.name = "daily";
  meta.namespace_ = "spark-jobs";
  absl::StatusOr<BuiltObject> built = BuildScheduledApplication(meta, spec, PiApplication().json);
  REQUIRE(built.ok());
  rapidjson::Document schedule = Parse(built->json);
  const rapidjson::Value& written = schedule["spec"];
  CHECK_FALSE(written.HasMember("timeZone"));
  CHECK(Str(written["concurrencyPolicy"]) == "Allow");
  CHECK(written["successfulRunHistoryLimit"].GetInt() == kDefaultRunHistoryLimit);
  CHECK(written["failedRunHistoryLimit"].GetInt() == kDefaultRunHistoryLimit);
  CHECK(written["suspend"].IsTrue());
  CHECK_FALSE(schedule["metadata"].HasMember("labels"));
  CHECK_FALSE(schedule["metadata"].HasMember("annotations"));
}

TEST_CASE("the schedule builder refuses what can't run", "[kubeflow][schedule]") {
  const std::string app = PiApplication().json;
  ScheduleMeta meta = NightlyMeta();
  meta.name = std::string(44, 'a');
  CHECK(absl::StartsWith(Message(BuildScheduledApplication(meta, NightlySpec(), app).status()),
                         "name"));
  ScheduleSpec spec = NightlySpec();
  spec.concurrency_policy = ConcurrencyPolicy::kUnset;
  CHECK(absl::StartsWith(Message(BuildScheduledApplication(NightlyMeta(), spec, app).status()),
                         "concurrency_policy"));
  meta = NightlyMeta();
  meta.labels[std::string(kLabelScheduledAppName)] = "other";
  CHECK(absl::StrContains(Message(BuildScheduledApplication(meta, NightlySpec(), app).status()),
                          "scheduled-app-name"));
  meta = NightlyMeta();
  meta.namespace_ = "elsewhere";
  CHECK(absl::StartsWith(Message(BuildScheduledApplication(meta, NightlySpec(), app).status()),
                         "namespace \"elsewhere\""));
  for (const char* bad : {"", "not json", "[]", R"({"apiVersion":"spark.apache.org/v1",
       "kind":"SparkApplication","spec":{}})",
                          R"({"apiVersion":"sparkoperator.k8s.io/v1beta2",
       "kind":"SparkApplication","spec":"x"})",
                          R"({"apiVersion":"sparkoperator.k8s.io/v1beta2",
       "kind":"ScheduledSparkApplication","spec":{}})"}) {
    INFO(bad);
    CHECK(absl::StrContains(
        Message(BuildScheduledApplication(NightlyMeta(), NightlySpec(), bad).status()),
        "template"));
  }
  // Without a namespace on either side there is nowhere to create it.
  CHECK(absl::StartsWith(
      Message(BuildScheduledApplication(
                  NightlyMeta(), NightlySpec(),
                  R"({"apiVersion":"sparkoperator.k8s.io/v1beta2","kind":"SparkApplication",
                      "spec":{}})")
                  .status()),
      "namespace"));
}

TEST_CASE("an update patches only the fields it sets", "[kubeflow][schedule]") {
  ScheduleUpdate all;
  all.cron = "0 * * * *";
  all.time_zone = "Asia/Tokyo";
  all.concurrency_policy = ConcurrencyPolicy::kReplace;
  all.successful_run_history_limit = 5;
  all.failed_run_history_limit = 2;
  all.suspended = true;
  absl::StatusOr<std::string> patch = BuildScheduleUpdatePatch(all);
  REQUIRE(patch.ok());
  CHECK(*patch ==
        R"({"spec":{"schedule":"0 * * * *","timeZone":"Asia/Tokyo","concurrencyPolicy":)"
        R"("Replace","successfulRunHistoryLimit":5,"failedRunHistoryLimit":2,"suspend":true}})");
  CHECK(MovesNextRun(all));

  ScheduleUpdate suspend;
  suspend.suspended = false;
  patch = BuildScheduleUpdatePatch(suspend);
  REQUIRE(patch.ok());
  CHECK(*patch == R"({"spec":{"suspend":false}})");
  CHECK_FALSE(MovesNextRun(suspend));

  ScheduleUpdate zone;
  zone.time_zone = "";
  patch = BuildScheduleUpdatePatch(zone);
  REQUIRE(patch.ok());
  CHECK(*patch == R"({"spec":{"timeZone":null}})");
  CHECK(MovesNextRun(zone));

  ScheduleUpdate cron;
  cron.cron = "@weekly";
  CHECK(MovesNextRun(cron));
  ScheduleUpdate limits;
  limits.failed_run_history_limit = 0;
  CHECK(*BuildScheduleUpdatePatch(limits) == R"({"spec":{"failedRunHistoryLimit":0}})");
  CHECK_FALSE(MovesNextRun(limits));
}

TEST_CASE("an update is checked field by field", "[kubeflow][schedule]") {
  CHECK(Message(BuildScheduleUpdatePatch(ScheduleUpdate{}).status()) ==
        "the schedule update sets no field");
  ScheduleUpdate update;
  update.cron = "0 0 * * 8";
  CHECK(absl::StartsWith(Message(BuildScheduleUpdatePatch(update).status()), "schedule"));
  update = {};
  update.time_zone = "Nowhere";
  CHECK(absl::StartsWith(Message(BuildScheduleUpdatePatch(update).status()), "time_zone"));
  update = {};
  update.concurrency_policy = ConcurrencyPolicy::kUnrecognized;
  CHECK(absl::StartsWith(Message(BuildScheduleUpdatePatch(update).status()), "concurrency_policy"));
  update = {};
  update.successful_run_history_limit = -1;
  CHECK(absl::StartsWith(Message(BuildScheduleUpdatePatch(update).status()),
                         "successful_run_history_limit"));
  update = {};
  update.failed_run_history_limit = -1;
  update.suspended = true;
  CHECK(absl::StartsWith(Message(BuildScheduleUpdatePatch(update).status()),
                         "failed_run_history_limit"));
}

TEST_CASE("the reschedule patch clears nextRun, and the validation state when asked",
          "[kubeflow][schedule]") {
  CHECK(BuildRescheduleStatusPatch(false) == R"({"status":{"nextRun":null}})");
  CHECK(BuildRescheduleStatusPatch(true) ==
        R"({"status":{"nextRun":null,"scheduleState":null,"reason":null}})");
}

TEST_CASE("a retried manual run adopts only that schedule's live run", "[kubeflow][schedule]") {
  AppFields fields;
  fields.namespace_ = "default";
  fields.name = "gravitino-job-nightly-ra1";
  fields.labels = {{std::string(kLabelScheduledAppName), "gravitino-job-nightly"},
                   {"gravitino.apache.org/job-id", "nightly"}};
  CHECK(CheckManualRunAdoption(AppProjection(fields), "gravitino-job-nightly").ok());

  absl::Status other = CheckManualRunAdoption(AppProjection(fields), "gravitino-job-other");
  CHECK(other.code() == absl::StatusCode::kAlreadyExists);
  CHECK(absl::StrContains(other.message(), "isn't a run of schedule \"gravitino-job-other\""));

  AppFields submitted = fields;  // a job whose id spells the same name
  submitted.labels = {{"gravitino.apache.org/job-id", "nightly-ra1"}};
  CHECK(CheckManualRunAdoption(AppProjection(submitted), "gravitino-job-nightly").code() ==
        absl::StatusCode::kAlreadyExists);

  AppFields replaced = fields;  // deleted by the controller's Replace
  replaced.deleting = true;
  absl::Status deleting = CheckManualRunAdoption(AppProjection(replaced), "gravitino-job-nightly");
  CHECK(deleting.code() == absl::StatusCode::kAlreadyExists);
  CHECK(absl::StrContains(deleting.message(), "is being deleted"));
}

TEST_CASE("manual run names are stable and never the controller's", "[kubeflow][schedule]") {
  CHECK(*ManualRunName("nightly-pi", "20260512a") == "nightly-pi-r20260512a");
  CHECK(*ManualRunName("nightly-pi", "20260512a") == *ManualRunName("nightly-pi", "20260512a"));
  CHECK(*ManualRunName("nightly-pi", "1") == "nightly-pi-r1");
  CHECK(*ManualRunName("nightly-pi", "1") != *ManualRunName("nightly-pi", "2"));
  const std::string longest(kMaxScheduleNameLength, 'n');
  absl::StatusOr<std::string> name = ManualRunName(longest, std::string(18, '7'));
  REQUIRE(name.ok());
  CHECK(name->size() == kMaxNameLength);
  // The part after the last dash always has a letter, the controller's is all digits.
  for (const char* run_id : {"1", "000", "1778580000000000000", "abc"}) {
    INFO(run_id);
    absl::StatusOr<std::string> run = ManualRunName("a-1", run_id);
    if (!run.ok()) continue;
    std::string tail = run->substr(run->rfind('-') + 1);
    CHECK(tail.find_first_not_of("0123456789") != std::string::npos);
  }
  CHECK(absl::StrContains(Message(ManualRunName(longest, std::string(19, '7')).status()),
                          "must be 1 to 18"));
  for (const char* run_id : {"", "A1", "a-b", "a_b", "a.b", "a b", "\xC3\xA9"}) {
    INFO(run_id);
    CHECK(absl::StartsWith(Message(ManualRunName("nightly-pi", run_id).status()), "run_id"));
  }
  for (const char* schedule : {"", "Nightly", "a.b", "1a", "a-"}) {
    INFO(schedule);
    CHECK(absl::StartsWith(Message(ManualRunName(schedule, "1").status()), "schedule name"));
  }
  CHECK(absl::StrContains(Message(ManualRunName(std::string(61, 'a'), "1").status()), "no room"));
}

std::string StoredSchedule() {
  absl::StatusOr<BuiltObject> built =
      BuildScheduledApplication(NightlyMeta(), NightlySpec(), PiApplication().json);
  REQUIRE(built.ok());
  rapidjson::Document schedule = Parse(built->json);
  schedule["metadata"].AddMember("uid", "3f1c-77", schedule.GetAllocator());
  // A label that claims another schedule's runs must not win on the run.
  schedule["metadata"]["labels"].AddMember("sparkoperator.k8s.io/scheduled-app-name", "other",
                                           schedule.GetAllocator());
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  schedule.Accept(writer);
  return buffer.GetString();
}

TEST_CASE("a manual run is the controller's run in all but its name", "[kubeflow][schedule]") {
  const std::string stored = StoredSchedule();
  absl::StatusOr<BuiltObject> run = BuildManualRunJson(stored, "20260512a");
  REQUIRE(run.ok());
  CHECK(run->name == "nightly-pi-r20260512a");
  CHECK(run->namespace_ == "spark-jobs");
  rapidjson::Document app = Parse(run->json);
  rapidjson::Document schedule = Parse(stored);
  CHECK(Str(app["apiVersion"]) == "sparkoperator.k8s.io/v1beta2");
  CHECK(Str(app["kind"]) == "SparkApplication");
  const rapidjson::Value& metadata = app["metadata"];
  CHECK(Str(metadata["name"]) == "nightly-pi-r20260512a");
  CHECK(Str(metadata["namespace"]) == "spark-jobs");
  CHECK_FALSE(metadata.HasMember("annotations"));
  const rapidjson::Value& labels = metadata["labels"];
  CHECK(labels.MemberCount() == 3);
  CHECK(Str(labels["sparkoperator.k8s.io/scheduled-app-name"]) == "nightly-pi");
  CHECK(Str(labels["app.kubernetes.io/managed-by"]) == "gravitino");
  CHECK(Str(labels["gravitino.apache.org/job-id"]) == "77");
  REQUIRE(metadata["ownerReferences"].IsArray());
  REQUIRE(metadata["ownerReferences"].Size() == 1);
  const rapidjson::Value& owner = metadata["ownerReferences"][0];
  CHECK(owner.MemberCount() == 5);
  CHECK(Str(owner["apiVersion"]) == "sparkoperator.k8s.io/v1beta2");
  CHECK(Str(owner["kind"]) == "ScheduledSparkApplication");
  CHECK(Str(owner["name"]) == "nightly-pi");
  CHECK(Str(owner["uid"]) == "3f1c-77");
  CHECK(owner["blockOwnerDeletion"].IsTrue());
  CHECK_FALSE(owner.HasMember("controller"));
  CHECK(app["spec"] == schedule["spec"]["template"]);
  // Idempotent: the same request builds the same object.
  CHECK(BuildManualRunJson(stored, "20260512a")->json == run->json);
}

TEST_CASE("a manual run refuses a schedule it can't own", "[kubeflow][schedule]") {
  const std::string meta = R"("metadata":{"name":"s","namespace":"n","uid":"u")";
  auto error = [](const std::string& json, const std::string& run_id = "1") {
    absl::StatusOr<BuiltObject> run = BuildManualRunJson(json, run_id);
    REQUIRE_FALSE(run.ok());
    CHECK(run.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(run.status().message());
  };
  CHECK(absl::StrContains(error("{"), "isn't JSON"));
  CHECK(absl::StrContains(error("[]"), "metadata.name"));
  CHECK(absl::StrContains(error(R"({"metadata":[],"spec":{"template":{}}})"), "metadata.name"));
  CHECK(absl::StrContains(error(R"({"metadata":{"name":"s","namespace":"n"},
                                   "spec":{"template":{}}})"),
                          "metadata.uid"));
  CHECK(absl::StrContains(error(R"({"metadata":{"name":7,"namespace":"n","uid":"u"},
                                   "spec":{"template":{}}})"),
                          "metadata.name"));
  CHECK(absl::StrContains(error(absl::StrCat("{", meta, "}}")), "spec.template"));
  CHECK(absl::StrContains(error(absl::StrCat("{", meta, R"(},"spec":{"template":"x"}})")),
                          "spec.template"));
  CHECK(absl::StrContains(error(absl::StrCat("{", meta, R"(},"spec":[]})")), "spec.template"));
  CHECK(absl::StrContains(
      error(absl::StrCat("{", meta, R"(,"labels":["a"]},"spec":{"template":{}}})")), "labels"));
  CHECK(absl::StrContains(
      error(absl::StrCat("{", meta, R"(,"labels":{"a":1}},"spec":{"template":{}}})")),
      "label \"a\" isn't a string"));
  CHECK(absl::StartsWith(error(absl::StrCat("{", meta, R"(},"spec":{"template":{}}})"), "X"),
                         "run_id"));
  // Null labels are no labels.
  absl::StatusOr<BuiltObject> run = BuildManualRunJson(
      absl::StrCat("{", meta, R"(,"labels":null},"spec":{"template":{}}})"), "1");
  REQUIRE(run.ok());
  CHECK(run->name == "s-r1");
}

TEST_CASE("a queued app's schedule carries its queue, and so do the schedule's runs",
          "[kubeflow][schedule]") {
  BuilderOptions options;
  options.namespace_ = "spark-jobs";
  options.image = "apache/spark:3.5.6";
  options.spark_version = "3.5.6";
  options.queue_scheduler = QueueScheduler::kKueue;
  options.queue_name = "team-a";
  SparkTemplate t;
  t.name = "spark-pi";
  t.executable = "local:///opt/spark/examples/jars/spark-examples.jar";
  absl::StatusOr<BuiltApplication> app = kubeflow::BuildSparkApplication("77", "ml", t, options);
  REQUIRE(app.ok());
  // The executor gives the schedule the app's labels.
  ScheduleMeta meta = NightlyMeta();
  meta.labels = app->labels;
  absl::StatusOr<BuiltObject> built = BuildScheduledApplication(meta, NightlySpec(), app->json);
  REQUIRE(built.ok());
  rapidjson::Document schedule = Parse(built->json);
  CHECK(Str(schedule["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]) == "team-a");
  // Sized for Kueue in the template the runs are made from.
  CHECK(Str(schedule["spec"]["template"]["executor"]["memoryOverhead"]) == "384m");
  // A run made now: the schedule's labels, the queue's among them.
  schedule["metadata"].AddMember("uid", "uid-1", schedule.GetAllocator());
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  schedule.Accept(writer);
  absl::StatusOr<BuiltObject> run = BuildManualRunJson(buffer.GetString(), "20260512a");
  REQUIRE(run.ok());
  rapidjson::Document run_app = Parse(run->json);
  CHECK(Str(run_app["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]) == "team-a");

  // YuniKorn's queue is in the spec, which the template carries to every run.
  options.queue_scheduler = QueueScheduler::kYuniKorn;
  options.queue_name = "root.nightly";
  app = kubeflow::BuildSparkApplication("77", "ml", t, options);
  REQUIRE(app.ok());
  built = BuildScheduledApplication(NightlyMeta(), NightlySpec(), app->json);
  REQUIRE(built.ok());
  schedule = Parse(built->json);
  CHECK(Str(schedule["spec"]["template"]["batchScheduler"]) == "yunikorn");
  CHECK(Str(schedule["spec"]["template"]["batchSchedulerOptions"]["queue"]) == "root.nightly");
}

}  // namespace
}  // namespace kje::spark::kubeflow
