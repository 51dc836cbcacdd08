// Spark's pod confs (node selectors, Secret env and volumes) as they reach a pod.

#include "kubesim/sim/spark_pod_conf.h"

#include <catch2/catch.hpp>

namespace kubesim::sim {
namespace {

namespace json = boost::json;

TEST_CASE("node selectors, Secret env and Secret volumes by role", "[sim]") {
  json::object conf = json::parse(R"({
      "spark.kubernetes.node.selector.topology.kubernetes.io/zone": "us-east-1a",
      "spark.kubernetes.node.selector.disk": "ssd",
      "spark.kubernetes.driver.node.selector.disk": "nvme",
      "spark.kubernetes.executor.node.selector.pool": "spot",
      "spark.kubernetes.driver.secretKeyRef.DB_PASSWORD": "db:password",
      "spark.kubernetes.driver.secretKeyRef.BROKEN": "no-key",
      "spark.kubernetes.executor.secretKeyRef.TOKEN": "api:token",
      "spark.kubernetes.driver.secrets.tls": "/etc/tls",
      "spark.kubernetes.driver.secrets.number": 3})")
                          .as_object();
  SparkPodConf driver = ReadSparkPodConf(conf, "driver");
  CHECK(driver.node_selector ==
        json::parse(R"({"topology.kubernetes.io/zone":"us-east-1a","disk":"nvme"})"));
  REQUIRE(driver.secret_env.size() == 1);
  CHECK(driver.secret_env[0].env == "DB_PASSWORD");
  CHECK(driver.secret_env[0].secret == "db");
  CHECK(driver.secret_env[0].key == "password");
  REQUIRE(driver.secret_volumes.size() == 1);
  CHECK(driver.secret_volumes[0].secret == "tls");
  SparkPodConf executor = ReadSparkPodConf(conf, "executor");
  CHECK(executor.node_selector ==
        json::parse(R"({"topology.kubernetes.io/zone":"us-east-1a","disk":"ssd","pool":"spot"})"));
  REQUIRE(executor.secret_env.size() == 1);
  CHECK(executor.secret_env[0].env == "TOKEN");
  CHECK(executor.secret_volumes.empty());

  json::object spec{{"volumes", json::array{json::object{{"name", "x"}}}}};
  json::object container{{"name", "c"}};
  ApplySparkPodConf(driver, &spec, &container);
  CHECK(spec.at("nodeSelector") == json::value(driver.node_selector));
  CHECK(spec.at("volumes") == json::parse(R"([{"name":"x"},
      {"name":"tls-volume","secret":{"secretName":"tls","defaultMode":420}}])"));
  CHECK(container.at("volumeMounts") ==
        json::parse(R"([{"name":"tls-volume","mountPath":"/etc/tls"}])"));
  CHECK(container.at("env") == json::parse(R"([{"name":"DB_PASSWORD",
      "valueFrom":{"secretKeyRef":{"name":"db","key":"password"}}}])"));
}

}  // namespace
}  // namespace kubesim::sim
