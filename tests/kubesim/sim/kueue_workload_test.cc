// The Workload kubesim's Kueue stand-in writes for a queued job.

#include "kubesim/sim/kueue_workload.h"

#include <catch2/catch.hpp>

namespace kubesim::sim {
namespace {

namespace json = boost::json;

constexpr int64_t kT = 1764552000000;  // 2025-12-01T01:20:00Z

WorkloadOwner Owner() {
  return {"sparkoperator.k8s.io/v1beta2", "SparkApplication", "jobs", "spark-pi", "u-1"};
}

std::vector<WorkloadPodSet> Sets() {
  return {{"driver", 1, "spark-kubernetes-driver", 1, "1408Mi"},
          {"executor", 2, "spark-kubernetes-executor", 2, "896Mi"}};
}

TEST_CASE("a pending Workload: queued, no quota reserved", "[sim]") {
  CHECK_THAT(WorkloadName(Owner()), Catch::Matches("sparkapplication-spark-pi-[0-9a-f]{5}"));
  CHECK(WorkloadName(Owner()) !=
        WorkloadName({"v1", "SparkApplication", "jobs", "spark-pi", "u-2"}));
  ObjectWrite w = WorkloadWrite(Owner(), "team-a", Sets(), false, kT);
  CHECK(w.group == "kueue.x-k8s.io");
  CHECK(w.version == "v1beta1");
  CHECK(w.plural == "workloads");
  const json::object& o = w.object;
  CHECK(o.at("metadata").at("labels") == json::parse(R"({"kueue.x-k8s.io/job-uid":"u-1"})"));
  CHECK(o.at("metadata").at("ownerReferences").at(0).at("uid") == "u-1");
  CHECK(o.at("spec").at("queueName") == "team-a");
  CHECK(o.at("spec").at("podSets").at(1).at("count") == 2);
  CHECK(o.at("spec")
            .at("podSets")
            .at(1)
            .at("template")
            .at("spec")
            .at("containers")
            .at(0)
            .at("resources") == json::parse(R"({"requests":{"cpu":"2","memory":"896Mi"}})"));
  const json::object& c = o.at("status").at("conditions").at(0).as_object();
  CHECK(c.at("type") == "QuotaReserved");
  CHECK(c.at("status") == "False");
  CHECK(c.at("reason") == "Pending");
  CHECK(c.at("message") ==
        "couldn't assign flavors to pod set driver: insufficient unused quota for cpu in flavor "
        "default-flavor, 1 more needed");
  CHECK_FALSE(o.at("status").as_object().contains("admission"));
}

TEST_CASE("an admitted Workload: quota reserved, admitted, with its admission", "[sim]") {
  ObjectWrite w = WorkloadWrite(Owner(), "team-a", Sets(), true, kT);
  const json::object& status = w.object.at("status").as_object();
  const json::array& conditions = status.at("conditions").as_array();
  REQUIRE(conditions.size() == 2);
  CHECK(conditions[0].at("type") == "QuotaReserved");
  CHECK(conditions[0].at("status") == "True");
  CHECK(conditions[0].at("message") == "Quota reserved in ClusterQueue cluster-queue");
  CHECK(conditions[1].at("type") == "Admitted");
  CHECK(conditions[1].at("status") == "True");
  CHECK(status.at("admission").at("clusterQueue") == "cluster-queue");
  CHECK(status.at("admission").at("podSetAssignments").at(1) ==
        json::parse(R"({"name":"executor","count":2,
            "flavors":{"cpu":"default-flavor","memory":"default-flavor"},
            "resourceUsage":{"cpu":"4","memory":"896Mi"}})"));
}

}  // namespace
}  // namespace kubesim::sim
