#include "spark/pod_memory.h"

#include <catch2/catch.hpp>
#include <string>

namespace kje::spark {
namespace {

MergedConf Conf(std::map<std::string, std::string> values) {
  MergedConf conf;
  for (auto& [key, value] : values) conf[key] = ConfValue{value, "job template \"t\""};
  return conf;
}

PodMemory Of(const MergedConf& conf, SparkRole role, bool non_jvm = false) {
  absl::StatusOr<PodMemory> pod = PodMemoryOf(conf, role, non_jvm);
  REQUIRE(pod.ok());
  return *pod;
}

TEST_CASE("memory sizes read as Spark reads them, in MiB", "[memory]") {
  CHECK(ParseMemoryMib("512") == 512);  // no unit: MiB
  CHECK(ParseMemoryMib("512m") == 512);
  CHECK(ParseMemoryMib("512MB") == 512);
  CHECK(ParseMemoryMib(" 4g ") == 4096);
  CHECK(ParseMemoryMib("4Gb") == 4096);
  CHECK(ParseMemoryMib("2t") == 2 * 1024 * 1024);
  CHECK(ParseMemoryMib("1p") == int64_t{1} << 30);
  CHECK(ParseMemoryMib("1536k") == 1);  // rounded down, as Spark converts
  CHECK(ParseMemoryMib("2097152b") == 2);
  CHECK(ParseMemoryMib("1048575b") == 0);
  CHECK_FALSE(ParseMemoryMib("1.5g").has_value());  // Spark refuses fractions
  CHECK_FALSE(ParseMemoryMib("-1g").has_value());
  CHECK_FALSE(ParseMemoryMib("g").has_value());
  CHECK_FALSE(ParseMemoryMib("").has_value());
  CHECK_FALSE(ParseMemoryMib("4 g").has_value());
  CHECK_FALSE(ParseMemoryMib("4gib").has_value());
  CHECK_FALSE(ParseMemoryMib("99999999999999999999").has_value());
  CHECK_FALSE(ParseMemoryMib("9999999999999p").has_value());  // past int64 MiB
}

TEST_CASE("the overhead is max(factor x memory, 384 MiB) with Spark's defaults", "[memory]") {
  // 1g by default: 10% is 102 MiB, so the minimum holds.
  PodMemory pod = Of(Conf({}), SparkRole::kDriver);
  CHECK(pod.memory_mib == 1024);
  CHECK(pod.overhead_mib == 384);
  // 8g: 10% of 8192 is 819.2, rounded down.
  pod = Of(Conf({{"spark.executor.memory", "8g"}}), SparkRole::kExecutor);
  CHECK(pod.memory_mib == 8192);
  CHECK(pod.overhead_mib == 819);
  // A Python or R job: 40%.
  pod = Of(Conf({{"spark.driver.memory", "2g"}}), SparkRole::kDriver, /*non_jvm=*/true);
  CHECK(pod.overhead_mib == 819);
  pod = Of(Conf({{"spark.executor.memory", "4g"}}), SparkRole::kExecutor, /*non_jvm=*/true);
  CHECK(pod.overhead_mib == 1638);
  // Just under and over the minimum: 3840 MiB x 0.1 = 384; 3850 x 0.1 = 385.
  CHECK(Of(Conf({{"spark.driver.memory", "3840m"}}), SparkRole::kDriver).overhead_mib == 384);
  CHECK(Of(Conf({{"spark.driver.memory", "3850m"}}), SparkRole::kDriver).overhead_mib == 385);
}

TEST_CASE("the overhead's factor, minimum and explicit value as Spark orders them", "[memory]") {
  const MergedConf shared = Conf({{"spark.executor.memory", "10g"},
                                  {"spark.driver.memory", "10g"},
                                  {"spark.kubernetes.memoryOverheadFactor", "0.2"}});
  CHECK(Of(shared, SparkRole::kDriver).overhead_mib == 2048);
  CHECK(Of(shared, SparkRole::kExecutor).overhead_mib == 2048);
  // The shared factor holds for a non-JVM job too: the 0.4 default is only a default.
  CHECK(Of(shared, SparkRole::kExecutor, /*non_jvm=*/true).overhead_mib == 2048);
  // A role's own factor wins over the shared one.
  MergedConf own = shared;
  own["spark.executor.memoryOverheadFactor"] = ConfValue{"0.3", "t"};
  CHECK(Of(own, SparkRole::kExecutor).overhead_mib == 3072);
  CHECK(Of(own, SparkRole::kDriver).overhead_mib == 2048);
  // The driver's factor reaches the executors, which Spark hands it.
  MergedConf driver_only =
      Conf({{"spark.executor.memory", "10g"}, {"spark.driver.memoryOverheadFactor", "0.25"}});
  CHECK(Of(driver_only, SparkRole::kExecutor).overhead_mib == 2560);
  // A minimum of the role's own.
  MergedConf minimum = Conf({{"spark.driver.minMemoryOverhead", "1g"}});
  CHECK(Of(minimum, SparkRole::kDriver).overhead_mib == 1024);
  CHECK(Of(minimum, SparkRole::kExecutor).overhead_mib == 384);
  // An explicit overhead wins over everything, even below the minimum.
  MergedConf fixed = Conf(
      {{"spark.executor.memoryOverhead", "300"}, {"spark.executor.memoryOverheadFactor", "0.9"}});
  CHECK(Of(fixed, SparkRole::kExecutor).overhead_mib == 300);
  CHECK(Of(fixed, SparkRole::kDriver).overhead_mib == 384);
}

TEST_CASE("a size or factor Spark can't read is refused, naming the key and source", "[memory]") {
  auto error_of = [](std::map<std::string, std::string> values, SparkRole role) {
    absl::StatusOr<PodMemory> pod = PodMemoryOf(Conf(std::move(values)), role, false);
    REQUIRE_FALSE(pod.ok());
    CHECK(pod.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(pod.status().message());
  };
  CHECK(error_of({{"spark.driver.memory", "1.5g"}}, SparkRole::kDriver) ==
        "spark.driver.memory of job template \"t\" must be a whole size such as 512m or 4g "
        "(units b, k, m, g, t, p; MiB without one), not \"1.5g\"");
  CHECK_THAT(error_of({{"spark.executor.memoryOverhead", "lots"}}, SparkRole::kExecutor),
             Catch::StartsWith("spark.executor.memoryOverhead of job template \"t\""));
  CHECK(error_of({{"spark.kubernetes.memoryOverheadFactor", "0"}}, SparkRole::kDriver) ==
        "spark.kubernetes.memoryOverheadFactor of job template \"t\" must be a number above 0, "
        "not \"0\"");
  CHECK_THAT(error_of({{"spark.executor.memoryOverheadFactor", "nan"}}, SparkRole::kExecutor),
             Catch::StartsWith("spark.executor.memoryOverheadFactor of job template"));
  // Only the role's keys matter: the driver's bad size doesn't stop an executor's answer.
  CHECK(PodMemoryOf(Conf({{"spark.driver.memory", "x"}}), SparkRole::kExecutor, false).ok());
}

}  // namespace
}  // namespace kje::spark
