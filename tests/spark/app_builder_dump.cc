// Prints, one per line, the SparkApplications the builder makes for a spread of templates, so
// that crd_validate_test.py can check them against the real CRDs.

#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "spark/apache/app_builder.h"
#include "spark/kubeflow/app_builder.h"

namespace {

using kje::spark::BuilderOptions;
using kje::spark::SparkTemplate;

// `kubeflow` as the argument: kubeflow/spark-operator's v1beta2 applications instead.
int Main(bool kubeflow) {
  BuilderOptions options;
  options.image = "apache/spark:3.5.6";
  options.spark_version = "3.5.6";
  options.conf = {{"spark.executor.instances", "2"},
                  {"spark.master", "k8s://https://kubernetes.default.svc"}};

  std::vector<SparkTemplate> templates;
  SparkTemplate pi;
  pi.name = "spark-pi";
  pi.executable = "local:///opt/spark/examples/jars/spark-examples.jar";
  pi.class_name = "org.apache.spark.examples.SparkPi";
  pi.arguments = {"100"};
  templates.push_back(pi);

  SparkTemplate python;
  python.name = "etl";
  python.executable = "https://repo/jobs/etl.py?sig=abc";
  python.files = {"s3a://b/conf.json"};
  python.archives = {"hdfs://nn/env.tgz#env"};
  python.configs = {{"spark.kubernetes.namespace", "team-a"}};
  templates.push_back(python);

  SparkTemplate builtin;
  builtin.name = "builtin-iceberg-rewrite-data-files";
  builtin.executable = "/opt/gravitino/libs/gravitino-jobs.jar";
  builtin.class_name = "org.apache.gravitino.maintenance.jobs.iceberg.IcebergRewriteDataFiles";
  builtin.jars = {"https://repo/iceberg-spark-runtime-3.5_2.12-1.11.0.jar"};
  builtin.configs = {{"spark.sql.catalog.cat", "org.apache.iceberg.spark.SparkCatalog"}};
  builtin.arguments = {"--catalog", "cat", "--spark-conf",
                       R"({"spark.executor.memory":"4g","spark.sql.shuffle.partitions":8})"};
  templates.push_back(builtin);

  SparkTemplate no_args;
  no_args.name = "no-args";
  no_args.executable = "local:///opt/app.jar";
  templates.push_back(no_args);

  int job = 1;
  for (const SparkTemplate& t : templates) {
    std::string job_id = std::to_string(688822913391439376 + job++);
    auto built = kubeflow
                     ? kje::spark::kubeflow::BuildSparkApplication(job_id, "metalake_1", t, options)
                     : kje::spark::apache::BuildSparkApplication(job_id, "metalake_1", t, options);
    if (!built.ok()) {
      std::fprintf(stderr, "%s: %s\n", t.name.c_str(), built.status().ToString().c_str());
      return 1;
    }
    std::printf("%s\n", built->json.c_str());
  }
  // Each batch scheduler's fields, for a JVM and a Python job (Kueue sizes them differently).
  using kje::spark::QueueScheduler;
  const std::pair<QueueScheduler, const char*> queues[] = {
      {QueueScheduler::kKueue, "team-a"},
      {QueueScheduler::kYuniKorn, "root.analytics"},
      {QueueScheduler::kVolcano, "batch"}};
  for (const auto& [scheduler, queue] : queues) {
    BuilderOptions queued = options;
    queued.queue_scheduler = scheduler;
    queued.queue_name = queue;
    for (const SparkTemplate* t : {&pi, &python}) {
      std::string job_id = std::to_string(688822913391439376 + job++);
      auto built =
          kubeflow ? kje::spark::kubeflow::BuildSparkApplication(job_id, "metalake_1", *t, queued)
                   : kje::spark::apache::BuildSparkApplication(job_id, "metalake_1", *t, queued);
      if (!built.ok()) {
        std::fprintf(stderr, "%s: %s\n", t->name.c_str(), built.status().ToString().c_str());
        return 1;
      }
      std::printf("%s\n", built->json.c_str());
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc > 1 && std::strcmp(argv[1], "kubeflow") == 0); }
