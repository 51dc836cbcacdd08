#include "kubesim/operator/driver.h"

#include <catch2/catch.hpp>

#include "kubesim/operator/driver_log.h"

namespace kubesim::op::internal {
namespace {

TEST_CASE("Times format like Java's Instant and Kubernetes' metav1.Time", "[driver]") {
  // 2026-05-12T10:00:31.660Z = 1778580031660 ms (checked with `date -d ... +%s`).
  CHECK(FormatStatusTime(1778580031660) == "2026-05-12T10:00:31.660Z");
  CHECK(FormatStatusTime(1778580031000) == "2026-05-12T10:00:31Z");
  CHECK(FormatPodTime(1778580031660) == "2026-05-12T10:00:31Z");
  CHECK(FormatStatusTime(0) == "1970-01-01T00:00:00Z");
  CHECK(FormatStatusTime(951782400000) == "2000-02-29T00:00:00Z");
}

TEST_CASE("ParseTime reads RFC 3339 with fractions and offsets", "[driver]") {
  CHECK(ParseTime("2026-05-12T10:00:31.66Z") == 1778580031660);
  CHECK(ParseTime("2026-05-12T10:00:31.412931Z") == 1778580031412);
  CHECK(ParseTime("2026-05-12T10:00:31Z") == 1778580031000);
  CHECK(ParseTime("2026-05-12T12:00:31+02:00") == 1778580031000);
  CHECK_FALSE(ParseTime("2026-05-12 10:00:31"));
  CHECK_FALSE(ParseTime("yesterday"));
  CHECK(ParseTime(FormatStatusTime(1778580031007)) == 1778580031007);
}

TEST_CASE("AppId shortens only ids longer than 46 characters", "[driver]") {
  CHECK(AppId("default", "pi", 0) == "pi-0");
  const std::string name44(44, 'a');  // "<44>-0" is 46 long
  CHECK(AppId("default", name44, 0) == name44 + "-0");
  const std::string name45(45, 'a');
  const std::string short_id = AppId("default", name45, 0);
  CHECK(short_id.size() == 46);
  CHECK(short_id.starts_with("aaaaaaaaa-"));
  // Test vectors computed independently (Python: base 36 of SHA-256("<ns>/<name>/<attempt>")).
  const std::string name = "a-very-long-spark-application-name-for-hashing-test";
  CHECK(AppId("default", name, 0) == "a-very-lo-3ptgqypqe6ek75ctxytd3nr6m9368udyg6g6");
  CHECK(AppId("default", name, 1) == "a-very-lo-7t2fchivijaob876u6ftfkoz2fzcighq9kea");
  CHECK(AppId("jobs", name, 0) == "a-very-lo-4pfuje8d0te1sj1fv0omboq3wppaulq28v1o");
}

TEST_CASE("The job's fate and shape come from its spec and sparkConf", "[driver]") {
  auto app = boost::json::parse(R"({
    "metadata": {"name": "x", "namespace": "ns", "uid": "u"},
    "spec": {"runtimeVersions": {"sparkVersion": "4.0.1"},
             "pyFiles": "local:///a.py,local:///b.py",
             "mainClass": "org.apache.spark.deploy.PythonRunner",
             "driverArgs": ["5"],
             "sparkConf": {"kubesim.outcome": "evict", "kubesim.durationMs": "1234",
                           "spark.kubernetes.container.image": "img:{{SPARK_VERSION}}",
                           "spark.app.name": "mine"}}})")
                 .as_object();
  JobConf c = ReadJobConf(app);
  CHECK(c.outcome == Outcome::kEvict);
  CHECK(c.duration_ms == 1234);
  CHECK(c.image == "img:4.0.1");
  CHECK(c.python);
  CHECK(c.primary_resource == "local:///a.py");
  CHECK(c.driver_args == std::vector<std::string>{"5"});
  CHECK(c.app_name_label == "x");  // spark.app.name set: the operator forces metadata.name
  CHECK(c.service_account == "default");

  auto bad = boost::json::parse(R"({"metadata": {"name": "y"}, "spec": {"sparkConf":
      {"kubesim.durationMs": "soon"}}})")
                 .as_object();
  JobConf d = ReadJobConf(bad);
  CHECK(d.outcome == Outcome::kSucceed);
  CHECK(d.duration_ms == 3000);
  CHECK_FALSE(d.image);
}

TEST_CASE("The kubelet timeline follows the outcome and the time scale", "[driver]") {
  JobConf c;
  c.duration_ms = 10000;
  Timeline t = DriverTimeline(c, 0, 1000, 10);
  REQUIRE(t.started_ms);
  REQUIRE(t.ended_ms);
  CHECK(*t.ended_ms - *t.started_ms == 1000);
  CHECK(StageAt(t, 1000) == PodStage::kPending);
  CHECK(StageAt(t, *t.started_ms) == PodStage::kRunning);
  CHECK(StageAt(t, *t.ended_ms) == PodStage::kTerminated);
  c.outcome = Outcome::kHang;
  Timeline hang = DriverTimeline(c, 0, 1000, 10);
  CHECK_FALSE(hang.ended_ms);
  CHECK(StageAt(hang, 1LL << 50) == PodStage::kRunning);
  c.outcome = Outcome::kUnschedulable;
  CHECK(StageAt(DriverTimeline(c, 0, 1000, 10), 1LL << 50) == PodStage::kPending);
}

TEST_CASE("EstimatePi converges and depends on the seed", "[driver]") {
  CHECK(std::abs(EstimatePi(1, 200000) - 3.14159) < 0.02);
  // What a job prints (90k samples) reads 3.14… whatever the seed.
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    CAPTURE(seed);
    double pi = EstimatePi(seed * 0x9E3779B97F4A7C15ULL, 90000);
    CHECK(pi >= 3.14);
    CHECK(pi < 3.15);
  }
  CHECK(EstimatePi(1, 1000) == EstimatePi(1, 1000));
  CHECK(EstimatePi(1, 1000) != EstimatePi(2, 1000));
}

}  // namespace
}  // namespace kubesim::op::internal
