#include "spark/template_hash.h"

#include <catch2/catch.hpp>
#include <string>

namespace kje::spark {
namespace {

ResolvedJob Job() {
  ResolvedJob job;
  job.executable = "local:///opt/spark/examples/jars/spark-examples.jar";
  job.class_name = "org.apache.spark.examples.SparkPi";
  job.arguments = {"10"};
  job.conf["spark.executor.memory"] = ConfValue{"1g", "template"};
  job.conf["spark.kubernetes.container.image"] = ConfValue{"apache/spark:4.0.0", "server"};
  job.namespace_ = "default";
  job.name = "gravitino-job-1";
  job.pod_templates.driver = R"({"metadata":{"labels":{"a":"1","b":"2"}},"spec":{}})";
  job.env_secret.names = {"TOKEN"};
  return job;
}

std::string Encoded(const ResolvedJob& job) { return EncodeHashes(HashResolvedJob(job)); }

TEST_CASE("template hash: the same job hashes the same, whatever the order of its maps",
          "[template_hash]") {
  ResolvedJob reordered = Job();
  reordered.pod_templates.driver = R"({"spec":{},"metadata":{"labels":{"b":"2","a":"1"}}})";
  CHECK(Encoded(Job()) == Encoded(reordered));
  // What differs per attempt (the name is the job id's; the source of a conf value) is left out.
  ResolvedJob other_source = Job();
  other_source.conf["spark.executor.memory"].source = "server";
  CHECK(Encoded(Job()) == Encoded(other_source));
  CHECK(DifferingFields(Encoded(Job()), Encoded(reordered)).empty());
}

TEST_CASE("template hash: each changed field is named, and no value is stored", "[template_hash]") {
  ResolvedJob changed = Job();
  changed.arguments = {"20"};
  changed.conf["spark.executor.memory"].value = "2g";
  changed.env_secret.names = {"TOKEN", "PASSWORD"};
  const std::string encoded = Encoded(changed);
  CHECK(DifferingFields(Encoded(Job()), encoded) ==
        std::vector<std::string>{"arguments", "configs", "environment"});
  CHECK(encoded.find("2g") == std::string::npos);
  CHECK(encoded.find("PASSWORD") == std::string::npos);
  CHECK(encoded.size() < 512);
  // Arguments are a list: ["1 0"] is not ["1", "0"].
  ResolvedJob split = Job();
  split.arguments = {"1", "0"};
  ResolvedJob joined = Job();
  joined.arguments = {"10"};
  CHECK(DifferingFields(Encoded(split), Encoded(joined)) == std::vector<std::string>{"arguments"});
  const absl::Status refused = CheckSameTemplate("SparkApplication default/gravitino-job-1",
                                                 Encoded(Job()), Encoded(changed));
  CHECK(refused.code() == absl::StatusCode::kAlreadyExists);
  CHECK(refused.message() ==
        "SparkApplication default/gravitino-job-1 exists, made from a different request (it "
        "differs in arguments, configs, environment): a retry must send the same one; use a new "
        "id for a different job");
}

TEST_CASE("template hash: a resource without hashes, or another version's, is adopted",
          "[template_hash]") {
  CHECK(CheckSameTemplate("x", "", Encoded(Job())).ok());
  CHECK(CheckSameTemplate("x", "v2;whatever", Encoded(Job())).ok());
  CHECK(CheckSameTemplate("x", "garbage", Encoded(Job())).ok());
  CHECK(CheckSameTemplate("x", std::string(2000, 'v'), Encoded(Job())).ok());
  // A field only one side knows is not compared.
  CHECK(CheckSameTemplate("x", "v1;executable:" + DecodeHashes(Encoded(Job()))[0].second,
                          Encoded(Job()))
            .ok());
  CHECK(DecodeHashes(Encoded(Job())).size() == HashResolvedJob(Job()).size());
}

TEST_CASE("template hash: a schedule's spec differs field by field", "[template_hash]") {
  ScheduleSpec a;
  a.cron = "0 3 * * *";
  ScheduleSpec b = a;
  CHECK(DifferingSpecFields(a, b).empty());
  b.cron = "0 4 * * *";
  b.suspended = true;
  CHECK(DifferingSpecFields(a, b) == std::vector<std::string>{"schedule", "suspend"});
  const absl::Status refused =
      CheckSameTemplate("ScheduledSparkApplication default/s", "", "", DifferingSpecFields(a, b));
  CHECK(refused.code() == absl::StatusCode::kAlreadyExists);
  CHECK(std::string(refused.message()).find("differs in schedule, suspend") != std::string::npos);
}

}  // namespace
}  // namespace kje::spark
