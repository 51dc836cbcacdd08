// A pod template applied to a pod Spark built: the template is the base, what Spark sets wins.

#include "kubesim/sim/pod_template.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

namespace kubesim::sim {
namespace {

namespace json = boost::json;

json::object SparkPod() {
  return json::parse(R"({"metadata":{"name":"d","labels":{"spark-role":"driver"}},
    "spec":{"nodeSelector":{"zone":"a"},"volumes":[{"name":"spark-local-dir-1","emptyDir":{}}],
      "containers":[{"name":"spark-kubernetes-driver","image":"spark:4","args":["driver"],
        "env":[{"name":"SPARK_USER","value":"spark"}],
        "volumeMounts":[{"name":"spark-local-dir-1","mountPath":"/var/data"}],
        "resources":{"requests":{"cpu":"1","memory":"1408Mi"}}}]}})")
      .as_object();
}

const json::object kTemplate = json::parse(R"({"metadata":{"labels":{"team":"a","spark-role":"x"}},
  "spec":{"nodeSelector":{"zone":"b","disk":"ssd"},
    "tolerations":[{"key":"dedicated","operator":"Exists"}],
    "volumes":[{"name":"events","persistentVolumeClaim":{"claimName":"h"}}],
    "containers":[{"name":"spark-kubernetes-driver","image":"mine:1",
        "env":[{"name":"SPARK_USER","value":"me"},{"name":"TZ","value":"UTC"}],
        "envFrom":[{"secretRef":{"name":"s"}}],
        "volumeMounts":[{"name":"events","mountPath":"/events"}],
        "resources":{"requests":{"cpu":"4"},"limits":{"nvidia.com/gpu":"1"}}},
      {"name":"proxy","image":"envoy:1"}]}})")
                                   .as_object();

TEST_CASE("pod template: the template is the base, Spark's settings win", "[pod_template]") {
  json::object pod = SparkPod();
  ApplyPodTemplate(&kTemplate, "", &pod);
  const json::object& labels = pod["metadata"].as_object()["labels"].as_object();
  CHECK(labels.at("team") == "a");
  CHECK(labels.at("spark-role") == "driver");
  json::object& spec = pod["spec"].as_object();
  CHECK(spec["nodeSelector"].as_object().at("zone") == "a");
  CHECK(spec["nodeSelector"].as_object().at("disk") == "ssd");
  CHECK(spec["tolerations"].as_array().size() == 1);
  json::array& volumes = spec["volumes"].as_array();
  REQUIRE(volumes.size() == 2);
  CHECK(volumes[0].as_object().at("name") == "events");
  json::array& containers = spec["containers"].as_array();
  REQUIRE(containers.size() == 2);
  json::object& spark = containers[0].as_object();
  CHECK(spark.at("image") == "spark:4");
  json::array& env = spark["env"].as_array();
  REQUIRE(env.size() == 2);
  CHECK(env[0].as_object().at("value") == "spark");  // Spark's SPARK_USER replaced the template's
  CHECK(spark["envFrom"].as_array().size() == 1);
  CHECK(spark["volumeMounts"].as_array().size() == 2);
  json::object& resources = spark["resources"].as_object();
  CHECK(resources["requests"].as_object().at("cpu") == "1");
  CHECK(resources["limits"].as_object().at("nvidia.com/gpu") == "1");
  CHECK(containers[1].as_object().at("name") == "proxy");
}

TEST_CASE("pod template: none changes nothing; the node selector reaches the scheduler",
          "[pod_template]") {
  json::object pod = SparkPod();
  ApplyPodTemplate(nullptr, "", &pod);
  CHECK(pod == SparkPod());
  SparkPodConf conf;
  conf.node_selector["zone"] = "a";
  AddTemplateNodeSelector(&kTemplate, &conf);
  CHECK(conf.node_selector.at("zone") == "a");
  CHECK(conf.node_selector.at("disk") == "ssd");
}

}  // namespace
}  // namespace kubesim::sim
