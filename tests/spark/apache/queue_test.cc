// What a job's queue becomes on an Apache operator's SparkApplication, and the operator's Kueue
// rules, through the builder that applies them.

#include "spark/apache/queue.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "rapidjson/document.h"
#include "spark/apache/app_builder.h"
#include "spark/job_template.h"

namespace kje::spark::apache {
namespace {

BuilderOptions Options() {
  BuilderOptions options;
  options.namespace_ = "spark-jobs";
  options.image = "apache/spark:3.5.6";
  options.spark_version = "3.5.6";
  return options;
}

SparkTemplate PiTemplate() {
  SparkTemplate t;
  t.name = "spark-pi";
  t.executable = "local:///opt/spark/examples/jars/spark-examples.jar";
  t.class_name = "org.apache.spark.examples.SparkPi";
  return t;
}

rapidjson::Document Parse(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.c_str());
  REQUIRE_FALSE(document.HasParseError());
  return document;
}

std::string Str(const rapidjson::Value& v) {
  REQUIRE(v.IsString());
  return std::string(v.GetString(), v.GetStringLength());
}

const rapidjson::Value& Conf(const rapidjson::Document& app) { return app["spec"]["sparkConf"]; }

bool HasConf(const rapidjson::Document& app, const char* key) { return Conf(app).HasMember(key); }

std::string ConfValue(const rapidjson::Document& app, const char* key) {
  REQUIRE(HasConf(app, key));
  return Str(Conf(app)[key]);
}

absl::StatusOr<BuiltApplication> Build(const SparkTemplate& t, const BuilderOptions& o) {
  return BuildSparkApplication("688822913391439376", "metalake_1", t, o);
}

std::string ErrorOf(const absl::StatusOr<BuiltApplication>& built) {
  REQUIRE_FALSE(built.ok());
  CHECK(built.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(built.status().message());
}

BuilderOptions QueueOptions(QueueScheduler scheduler, std::string queue) {
  BuilderOptions options = Options();
  options.queue_scheduler = scheduler;
  options.queue_name = std::move(queue);
  return options;
}

TEST_CASE("Queues: YuniKorn gets its scheduler, queue labels and app-id annotations as confs") {
  absl::StatusOr<BuiltApplication> built =
      Build(PiTemplate(), QueueOptions(QueueScheduler::kYuniKorn, "root.analytics"));
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK(ConfValue(app, "spark.kubernetes.scheduler.name") == "yunikorn");
  CHECK(ConfValue(app, "spark.kubernetes.driver.label.queue") == "root.analytics");
  CHECK(ConfValue(app, "spark.kubernetes.executor.label.queue") == "root.analytics");
  CHECK(ConfValue(app, "spark.kubernetes.driver.annotation.yunikorn.apache.org/app-id") ==
        "{{APP_ID}}");
  CHECK(ConfValue(app, "spark.kubernetes.executor.annotation.yunikorn.apache.org/app-id") ==
        "{{APP_ID}}");
  CHECK_FALSE(app["metadata"]["labels"].HasMember("kueue.x-k8s.io/queue-name"));
  // A conf that already says the same is fine; one that says otherwise is refused.
  SparkTemplate t = PiTemplate();
  t.configs = {{"spark.kubernetes.driver.label.queue", "root.analytics"}};
  CHECK(Build(t, QueueOptions(QueueScheduler::kYuniKorn, "root.analytics")).ok());
  t.configs = {{"spark.kubernetes.executor.label.queue", "root.other"}};
  CHECK(ErrorOf(Build(t, QueueOptions(QueueScheduler::kYuniKorn, "root.analytics"))) ==
        "spark.kubernetes.executor.label.queue of job template \"spark-pi\" is \"root.other\", "
        "but the job's queue sets it to \"root.analytics\": leave it unset, and name the queue in "
        "the template's custom field queue or the executor's queue.name");
  // Without a queue YuniKorn still schedules the pods, in its default placement.
  built = Build(PiTemplate(), QueueOptions(QueueScheduler::kYuniKorn, ""));
  REQUIRE(built.ok());
  app = Parse(built->json);
  CHECK(ConfValue(app, "spark.kubernetes.scheduler.name") == "yunikorn");
  CHECK_FALSE(HasConf(app, "spark.kubernetes.driver.label.queue"));
}

TEST_CASE("Queues: Volcano gets its scheduler, feature step and the PodGroup's queue") {
  SparkTemplate t = PiTemplate();
  t.configs = {{"spark.kubernetes.executor.pod.featureSteps", "com.example.Step"}};
  absl::StatusOr<BuiltApplication> built = Build(t, QueueOptions(QueueScheduler::kVolcano, "gpu"));
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  const std::string step = "org.apache.spark.deploy.k8s.features.VolcanoFeatureStep";
  CHECK(ConfValue(app, "spark.kubernetes.scheduler.name") == "volcano");
  CHECK(ConfValue(app, "spark.kubernetes.driver.pod.featureSteps") == step);
  CHECK(ConfValue(app, "spark.kubernetes.executor.pod.featureSteps") == "com.example.Step," + step);
  CHECK(ConfValue(app, "spark.kubernetes.job.queue") == "gpu");
  // The step already listed isn't listed twice.
  t.configs = {{"spark.kubernetes.driver.pod.featureSteps", step}};
  built = Build(t, QueueOptions(QueueScheduler::kVolcano, ""));
  REQUIRE(built.ok());
  app = Parse(built->json);
  CHECK(ConfValue(app, "spark.kubernetes.driver.pod.featureSteps") == step);
  CHECK_FALSE(HasConf(app, "spark.kubernetes.job.queue"));
}

TEST_CASE("Queues: Kueue labels the app, and its rules are checked before anything is built") {
  absl::StatusOr<BuiltApplication> built =
      Build(PiTemplate(), QueueOptions(QueueScheduler::kKueue, "team-a"));
  REQUIRE(built.ok());
  rapidjson::Document app = Parse(built->json);
  CHECK(Str(app["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]) == "team-a");
  CHECK_FALSE(
      app["metadata"]["annotations"].HasMember("spark.operator/kueue-reserve-max-executors"));
  // The service never suspends for Kueue, and the pods keep the cluster's scheduler.
  CHECK_FALSE(app["spec"].HasMember("suspend"));
  CHECK_FALSE(HasConf(app, "spark.kubernetes.scheduler.name"));
  CHECK_FALSE(HasConf(app, "spark.kubernetes.driver.label.kueue.x-k8s.io/queue-name"));

  // Dynamic allocation: reserved at its bound, which the service then asks the operator for.
  SparkTemplate dynamic = PiTemplate();
  dynamic.configs = {{"spark.dynamicAllocation.enabled", " True "},
                     {"spark.dynamicAllocation.maxExecutors", "8"}};
  built = Build(dynamic, QueueOptions(QueueScheduler::kKueue, "team-a"));
  REQUIRE(built.ok());
  app = Parse(built->json);
  CHECK(Str(app["metadata"]["annotations"]["spark.operator/kueue-reserve-max-executors"]) ==
        "true");
  dynamic.configs.erase("spark.dynamicAllocation.maxExecutors");
  CHECK(ErrorOf(Build(dynamic, QueueOptions(QueueScheduler::kKueue, "team-a"))) ==
        "spark.dynamicAllocation.enabled=true of job template \"spark-pi\" with the Kueue queue "
        "\"team-a\" needs spark.dynamicAllocation.maxExecutors set to a whole number from 1 to "
        "2147483647: Kueue reserves the most executors the job may have");
  dynamic.configs["spark.dynamicAllocation.maxExecutors"] = "0";
  CHECK_THAT(ErrorOf(Build(dynamic, QueueOptions(QueueScheduler::kKueue, "team-a"))),
             Catch::EndsWith(", not \"0\""));
  // Without Kueue, or without a queue, dynamic allocation is the job's own business.
  CHECK(Build(dynamic, QueueOptions(QueueScheduler::kKueue, "")).ok());
  CHECK(Build(dynamic, Options()).ok());

  for (const char* key :
       {"spark.kubernetes.driver.podTemplateFile", "spark.kubernetes.executor.podTemplateFile"}) {
    SparkTemplate t = PiTemplate();
    t.configs = {{key, "s3a://b/pod.yaml"}};
    CHECK(ErrorOf(Build(t, QueueOptions(QueueScheduler::kKueue, "team-a"))) ==
          absl::StrCat(key,
                       " of job template \"spark-pi\" can't be used with the Kueue queue "
                       "\"team-a\": the Spark operator doesn't support pod template files under "
                       "Kueue yet and fails the app with SchedulingFailure"));
    CHECK(Build(t, QueueOptions(QueueScheduler::kYuniKorn, "root.a")).ok());
  }
}

}  // namespace
}  // namespace kje::spark::apache
