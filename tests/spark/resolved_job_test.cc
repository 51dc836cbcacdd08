// The queue a job resolves to (ResolveJob) and what both operators' builders make of it: the
// same rules and the same queue read back from the application, whatever the operator.

#include "spark/resolved_job.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "spark/build_error.h"
#include "spark/names.h"
#include "spark/operators.h"
#include "spark/queue.h"

namespace kje::spark {
namespace {

const std::vector<std::string_view> kOperatorNames = {"apache", "kubeflow"};

BuilderOptions Options(QueueScheduler scheduler, std::string queue_name = "") {
  BuilderOptions options;
  options.namespace_ = "spark-jobs";
  options.image = "apache/spark:3.5.6";
  options.spark_version = "3.5.6";
  options.queue_scheduler = scheduler;
  options.queue_name = std::move(queue_name);
  return options;
}

SparkTemplate Pi(std::string queue = "") {
  SparkTemplate t;
  t.name = "spark-pi";
  t.executable = "local:///opt/spark/examples/jars/spark-examples.jar";
  t.class_name = "org.apache.spark.examples.SparkPi";
  t.custom_fields = {{"team", "data"}};
  if (!queue.empty()) t.custom_fields[std::string(kCustomFieldQueue)] = std::move(queue);
  return t;
}

std::string Json(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  value.Accept(w);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::unique_ptr<OperatorBackend> Backend(std::string_view name) {
  auto backend = NewOperatorBackend(name);
  REQUIRE(backend.ok());
  return *std::move(backend);
}

// The queue the operator's backend reads back from the application it built.
std::string QueueReadBack(const OperatorBackend& backend, const BuiltApplication& built) {
  absl::StatusOr<AppProjection> app = backend.ProjectJson(built.json);
  REQUIRE(app.ok());
  return std::string(backend.RunDetailsOf(*app).queue());
}

TEST_CASE("queue: the template's custom field wins over the deployment's queue", "[queue]") {
  SparkTemplate t = Pi("  team-b  ");
  absl::StatusOr<ResolvedJob> job =
      ResolveJob("7", "m", t, Options(QueueScheduler::kKueue, "team-a"));
  REQUIRE(job.ok());
  CHECK(job->queue_scheduler == QueueScheduler::kKueue);
  CHECK(job->queue == "team-b");
  job = ResolveJob("7", "m", Pi(), Options(QueueScheduler::kKueue, "team-a"));
  REQUIRE(job.ok());
  CHECK(job->queue == "team-a");
  // No default and no field: no queue, the scheduler still known.
  job = ResolveJob("7", "m", Pi(), Options(QueueScheduler::kYuniKorn));
  REQUIRE(job.ok());
  CHECK(job->queue.empty());
  CHECK(job->queue_scheduler == QueueScheduler::kYuniKorn);
  // A blank field is unset, as blank confs are.
  job = ResolveJob("7", "m", Pi(" "), Options(QueueScheduler::kNone));
  REQUIRE(job.ok());
  CHECK(job->queue.empty());
}

TEST_CASE("queue: each operator refuses what the rules refuse, naming the rule, building nothing",
          "[queue]") {
  const std::string_view name = GENERATE(from_range(kOperatorNames));
  INFO(name);
  std::unique_ptr<OperatorBackend> backend = Backend(name);
  auto error_of = [&](const SparkTemplate& t, const BuilderOptions& o) {
    absl::StatusOr<BuiltApplication> built = backend->Build("7", "m", t, o);
    REQUIRE_FALSE(built.ok());
    CHECK(built.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(BuildInputOf(built.status()) == BuildInput::kTemplate);
    return std::string(built.status().message());
  };
  CHECK(error_of(Pi("team-a"), Options(QueueScheduler::kNone)) ==
        "Job template \"spark-pi\" names a queue in its custom field queue, but this executor "
        "sends jobs to no batch scheduler (queue.scheduler is none)");
  CHECK_THAT(error_of(Pi("Team_A"), Options(QueueScheduler::kKueue)),
             Catch::StartsWith("The custom field queue of job template \"spark-pi\" must be a "
                               "Kueue LocalQueue name") &&
                 Catch::EndsWith(", not \"Team_A\""));
  CHECK_THAT(error_of(Pi(std::string(64, 'a')), Options(QueueScheduler::kKueue)),
             Catch::Contains("at most 63 characters"));
  CHECK_THAT(error_of(Pi("analytics"), Options(QueueScheduler::kYuniKorn)),
             Catch::Contains("must be a full YuniKorn queue path root.<queue>") &&
                 Catch::EndsWith(", not \"analytics\""));
  CHECK_THAT(error_of(Pi("Batch"), Options(QueueScheduler::kVolcano)),
             Catch::Contains("must be a Volcano Queue name"));
  // The pods' scheduler is the queue's to set.
  for (QueueScheduler s : {QueueScheduler::kYuniKorn, QueueScheduler::kVolcano}) {
    SparkTemplate t = Pi();
    t.configs = {{std::string(kConfSchedulerName), "default-scheduler"}};
    CHECK_THAT(error_of(t, Options(s)),
               Catch::StartsWith("spark.kubernetes.scheduler.name of job template \"spark-pi\" is "
                                 "\"default-scheduler\", but this executor's jobs go through the "
                                 "batch scheduler ") &&
                   Catch::EndsWith(" (queue.scheduler): leave it unset"));
    t.configs = {{std::string(kConfSchedulerName), std::string(QueueSchedulerName(s))}};
    CHECK(backend->Build("7", "m", t, Options(s)).ok());
  }
  // A bad deployment default is the executor's own configuration, not the caller's.
  absl::StatusOr<BuiltApplication> built =
      backend->Build("7", "m", Pi(), Options(QueueScheduler::kYuniKorn, "default"));
  REQUIRE_FALSE(built.ok());
  CHECK(built.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(BuildInputOf(built.status()) == BuildInput::kServerConfig);
  CHECK_THAT(std::string(built.status().message()),
             Catch::StartsWith("The executor's queue.name must be a full YuniKorn queue path"));
}

TEST_CASE("queue: each operator writes the queue and reads the same one back", "[queue]") {
  const std::string_view name = GENERATE(from_range(kOperatorNames));
  INFO(name);
  std::unique_ptr<OperatorBackend> backend = Backend(name);
  struct Case {
    QueueScheduler scheduler;
    std::string queue;
  };
  for (const Case& c : {Case{QueueScheduler::kKueue, "team-a"},
                        Case{QueueScheduler::kYuniKorn, "root.analytics.etl"},
                        Case{QueueScheduler::kVolcano, "batch"}}) {
    INFO(QueueSchedulerName(c.scheduler));
    absl::StatusOr<BuiltApplication> built =
        backend->Build("7", "m", Pi(c.queue), Options(c.scheduler));
    REQUIRE(built.ok());
    CHECK(QueueReadBack(*backend, *built) == c.queue);
    // Kueue's label is on the app (and so on a schedule of it, and its runs); no other's is.
    const auto label = built->labels.find(std::string(kLabelKueueQueueName));
    if (c.scheduler == QueueScheduler::kKueue) {
      REQUIRE(label != built->labels.end());
      CHECK(label->second == c.queue);
    } else {
      CHECK(label == built->labels.end());
    }
    // Without a queue, the scheduler alone leaves nothing to read back.
    built = backend->Build("7", "m", Pi(), Options(c.scheduler));
    REQUIRE(built.ok());
    CHECK(QueueReadBack(*backend, *built).empty());
  }
  absl::StatusOr<BuiltApplication> plain = backend->Build("7", "m", Pi(), Options({}));
  REQUIRE(plain.ok());
  CHECK(QueueReadBack(*backend, *plain).empty());
  CHECK(plain->labels.count(std::string(kLabelKueueQueueName)) == 0);
}

TEST_CASE("queue: a projection keeps a queue only when the app has one", "[queue]") {
  const std::string_view name = GENERATE(from_range(kOperatorNames));
  INFO(name);
  std::unique_ptr<OperatorBackend> backend = Backend(name);
  absl::StatusOr<BuiltApplication> plain =
      backend->Build("7", "m", Pi(), Options(QueueScheduler::kVolcano));
  absl::StatusOr<BuiltApplication> queued =
      backend->Build("7", "m", Pi("batch"), Options(QueueScheduler::kVolcano));
  REQUIRE(plain.ok());
  REQUIRE(queued.ok());
  absl::StatusOr<AppProjection> without = backend->ProjectJson(plain->json);
  absl::StatusOr<AppProjection> with = backend->ProjectJson(queued->json);
  REQUIRE(without.ok());
  REQUIRE(with.ok());
  // The queue's bytes and their length, nothing more; nothing at all without one.
  CHECK(with->operator_status().size() == without->operator_status().size() + 1 + 5);
  // Unpacked and packed again, the projection says the same.
  const AppProjection copy(with->ToFields());
  CHECK(backend->RunDetailsOf(copy).queue() == "batch");
  CHECK(backend->RunDetailsOf(copy).ToDetails().queue == "batch");
}

// Where each operator keeps its pod templates: Kubeflow driver/executor.template, the Apache
// operator's driverSpec/executorSpec.podTemplateSpec.
const rapidjson::Value* PodTemplateOf(const rapidjson::Document& app, std::string_view op,
                                      std::string_view role) {
  const rapidjson::Value& spec = app["spec"];
  const std::string holder =
      op == "apache" ? absl::StrCat(ToAbsl(role), "Spec") : std::string(role);
  const char* field = op == "apache" ? "podTemplateSpec" : "template";
  if (!spec.HasMember(holder.c_str()) || !spec[holder.c_str()].HasMember(field)) return nullptr;
  return &spec[holder.c_str()][field];
}

TEST_CASE("pod templates: each operator writes them into its own pod-template fields",
          "[pod_template]") {
  const std::string_view name = GENERATE(from_range(kOperatorNames));
  INFO(name);
  std::unique_ptr<OperatorBackend> backend = Backend(name);
  SparkTemplate t = Pi();
  t.custom_fields["podTemplate"] =
      R"({"spec":{"tolerations":[{"key":"dedicated","operator":"Exists","effect":"NoSchedule"}]}})";
  t.custom_fields["sparkConfigMap"] = "spark-defaults";
  absl::StatusOr<BuiltApplication> built =
      backend->Build("7", "m", t, Options(QueueScheduler::kNone));
  REQUIRE(built.ok());
  rapidjson::Document app;
  app.Parse(built->json.data(), built->json.size());
  REQUIRE_FALSE(app.HasParseError());
  for (std::string_view role : {"driver", "executor"}) {
    INFO(role);
    const rapidjson::Value* tmpl = PodTemplateOf(app, name, role);
    REQUIRE(tmpl != nullptr);
    CHECK(std::string((*tmpl)["spec"]["tolerations"][0]["key"].GetString()) == "dedicated");
    CHECK(std::string((*tmpl)["spec"]["containers"][0]["name"].GetString()) ==
          absl::StrCat("spark-kubernetes-", ToAbsl(role)));
  }
  // Nothing in the fields only Kubeflow's webhook applies, nor a pod template file.
  CHECK(built->json.find("podTemplateFile") == std::string::npos);
  if (name == "kubeflow") {
    CHECK_FALSE(app["spec"]["driver"].HasMember("tolerations"));
    CHECK_FALSE(app["spec"]["driver"].HasMember("volumeMounts"));
    CHECK_FALSE(app["spec"].HasMember("sparkConfigMap"));
  }
  // The driver container keeps the name the service reads the driver's log from.
  absl::StatusOr<AppProjection> projected = backend->ProjectJson(built->json);
  REQUIRE(projected.ok());
  CHECK(projected->driver_container() == kDriverContainerName);
  // The driver's asks for its last words; the executors' doesn't.
  CHECK(std::string((*PodTemplateOf(app, name,
                                    "driver"))["spec"]["containers"][0]["terminationMessagePolicy"]
                        .GetString()) == "FallbackToLogsOnError");
  CHECK_FALSE((*PodTemplateOf(app, name, "executor"))["spec"]["containers"][0].HasMember(
      "terminationMessagePolicy"));
  // No customisation: no executor template, and the driver's holds only the policy.
  built = backend->Build("7", "m", Pi(), Options(QueueScheduler::kNone));
  REQUIRE(built.ok());
  app.Parse(built->json.data(), built->json.size());
  const rapidjson::Value* driver = PodTemplateOf(app, name, "driver");
  REQUIRE(driver != nullptr);
  CHECK(
      Json(*driver) ==
      R"({"spec":{"containers":[{"name":"spark-kubernetes-driver","terminationMessagePolicy":"FallbackToLogsOnError"}]}})");
  CHECK(PodTemplateOf(app, name, "executor") == nullptr);
}

TEST_CASE("pod templates: the driver's last words, where the operator takes a template",
          "[pod_template]") {
  const std::string_view name = GENERATE(from_range(kOperatorNames));
  INFO(name);
  std::unique_ptr<OperatorBackend> backend = Backend(name);
  auto policy = [&](const SparkTemplate& t, const BuilderOptions& options) -> std::string {
    absl::StatusOr<BuiltApplication> built = backend->Build("7", "m", t, options);
    REQUIRE(built.ok());
    rapidjson::Document app;
    app.Parse(built->json.data(), built->json.size());
    const rapidjson::Value* driver = PodTemplateOf(app, name, "driver");
    if (driver == nullptr) return "no template";
    const rapidjson::Value& c = (*driver)["spec"]["containers"][0];
    return c.HasMember("terminationMessagePolicy") ? c["terminationMessagePolicy"].GetString()
                                                   : "none";
  };
  // A template's own policy is kept.
  SparkTemplate own = Pi();
  own.custom_fields["podTemplate.driver"] =
      R"({"spec":{"containers":[{"terminationMessagePolicy":"File"}]}})";
  CHECK(policy(own, Options(QueueScheduler::kNone)) == "File");
  // A policy Kubernetes doesn't know is refused.
  own.custom_fields["podTemplate.driver"] =
      R"({"spec":{"containers":[{"terminationMessagePolicy":"Always"}]}})";
  CHECK(backend->Build("7", "m", own, Options(QueueScheduler::kNone)).status().code() ==
        absl::StatusCode::kInvalidArgument);
  // Under Kueue the Apache operator fails an app with any pod template; below Spark 3 the
  // Kubeflow operator's webhook refuses one: none is written then.
  const std::string queued = policy(Pi("batch"), Options(QueueScheduler::kKueue, "batch"));
  CHECK(queued == (name == "apache" ? "no template" : "FallbackToLogsOnError"));
  BuilderOptions old = Options(QueueScheduler::kNone);
  old.spark_version = "2.4.8";
  CHECK(policy(Pi(), old) == (name == "kubeflow" ? "no template" : "FallbackToLogsOnError"));
}

TEST_CASE("environments: a Secret labelled like the app, read through envFrom, values nowhere else",
          "[pod_template]") {
  const std::string_view name = GENERATE(from_range(kOperatorNames));
  INFO(name);
  std::unique_ptr<OperatorBackend> backend = Backend(name);
  SparkTemplate t = Pi();
  t.environments = {{"DB_PASSWORD", "hunter2-s3cr3t"}, {"REGION", "eu-west-1"}};
  BuilderOptions options = Options(QueueScheduler::kNone);
  // Off (the default): refused, as the Java executor refuses them, naming no value.
  absl::StatusOr<BuiltApplication> built = backend->Build("7", "m", t, options);
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(built.status().message()),
             Catch::Contains("\"DB_PASSWORD\", \"REGION\"") &&
                 Catch::Contains("spark.environmentSecrets is off") && !Catch::Contains("hunter2"));
  options.environment_secrets = true;
  built = backend->Build("7", "m", t, options);
  REQUIRE(built.ok());
  CHECK(built->env_secret_name == "gravitino-job-7-env");
  CHECK(built->json.find("hunter2") == std::string::npos);
  CHECK(built->json.find("eu-west-1") == std::string::npos);
  CHECK(built->env_secret_json.find("hunter2-s3cr3t") != std::string::npos);
  CHECK(built->kind == "SparkApplication");
  CHECK_FALSE(built->api_version.empty());
  rapidjson::Document secret;
  secret.Parse(built->env_secret_json.data(), built->env_secret_json.size());
  REQUIRE_FALSE(secret.HasParseError());
  for (const auto& [key, value] : built->labels) {
    CHECK(std::string(secret["metadata"]["labels"][key.c_str()].GetString()) == value);
  }
  rapidjson::Document app;
  app.Parse(built->json.data(), built->json.size());
  for (std::string_view role : {"driver", "executor"}) {
    const rapidjson::Value* tmpl = PodTemplateOf(app, name, role);
    REQUIRE(tmpl != nullptr);
    CHECK(std::string(
              (*tmpl)["spec"]["containers"][0]["envFrom"][0]["secretRef"]["name"].GetString()) ==
          "gravitino-job-7-env");
  }
  // Names are checked as Kubernetes checks them; still no value in the message.
  t.environments = {{"1BAD", "hunter2"}};
  built = backend->Build("7", "m", t, options);
  REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(built.status().message()),
             Catch::Contains("\"1BAD\"") && !Catch::Contains("hunter2"));
}

TEST_CASE("pod templates under Kueue: the Apache operator's refusal says what to use instead",
          "[pod_template]") {
  const std::string_view name = GENERATE(from_range(kOperatorNames));
  INFO(name);
  std::unique_ptr<OperatorBackend> backend = Backend(name);
  SparkTemplate t = Pi("team-a");
  t.custom_fields["podTemplate.driver"] = R"({"spec":{"nodeSelector":{"pool":"batch"}}})";
  absl::StatusOr<BuiltApplication> built =
      backend->Build("7", "m", t, Options(QueueScheduler::kKueue));
  if (name == "apache") {
    REQUIRE(built.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(built.status().message()),
               Catch::Contains("SchedulingFailure") &&
                   Catch::Contains("spark.kubernetes.node.selector.*"));
  } else {
    CHECK(built.ok());
  }
}

}  // namespace
}  // namespace kje::spark
