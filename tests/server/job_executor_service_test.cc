#include "server/job_executor_service.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

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

}  // namespace
}  // namespace kje::server
