#include "kubesim/sim/kueue_workload.h"

#include <cctype>

#include "kubesim/sim/clock.h"
#include "kubesim/sim/ids.h"

namespace kubesim::sim {
namespace {

namespace json = boost::json;

uint64_t Hash(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

json::object Condition(const char* type, bool status, const char* reason, std::string message,
                       int64_t now_ms) {
  return json::object{{"type", type},
                      {"status", status ? "True" : "False"},
                      {"reason", reason},
                      {"message", std::move(message)},
                      {"lastTransitionTime", FormatTime(now_ms, false)},
                      {"observedGeneration", 1}};
}

}  // namespace

std::string WorkloadName(const WorkloadOwner& owner) {
  std::string kind = owner.kind;
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return kind + "-" + owner.name + "-" +
         Hex(Hash(owner.kind + "|" + owner.name + "|" + owner.uid), 5);
}

ObjectWrite WorkloadWrite(const WorkloadOwner& owner, const std::string& queue,
                          const std::vector<WorkloadPodSet>& pod_sets, bool admitted,
                          int64_t now_ms) {
  json::array sets;
  json::array assignments;
  for (const WorkloadPodSet& p : pod_sets) {
    json::object requests{{"cpu", std::to_string(p.cpu)}, {"memory", p.memory}};
    sets.push_back(json::object{
        {"name", p.name},
        {"count", p.count},
        {"template",
         json::object{{"spec", json::object{{"containers",
                                             json::array{json::object{
                                                 {"name", p.container},
                                                 {"resources",
                                                  json::object{{"requests", requests}}}}}}}}}}});
    assignments.push_back(json::object{
        {"name", p.name},
        {"count", p.count},
        {"flavors", json::object{{"cpu", kKueueFlavor}, {"memory", kKueueFlavor}}},
        {"resourceUsage",
         json::object{{"cpu", std::to_string(p.cpu * p.count)}, {"memory", p.memory}}}});
  }
  json::object status;
  if (admitted) {
    status["conditions"] = json::array{
        Condition("QuotaReserved", true, "QuotaReserved",
                  std::string("Quota reserved in ClusterQueue ") + kKueueClusterQueue, now_ms),
        Condition("Admitted", true, "Admitted", "The workload is admitted", now_ms)};
    status["admission"] = json::object{{"clusterQueue", kKueueClusterQueue},
                                       {"podSetAssignments", std::move(assignments)}};
  } else {
    WorkloadPodSet first;
    first.name = "driver";
    if (!pod_sets.empty()) first = pod_sets.front();
    status["conditions"] =
        json::array{Condition("QuotaReserved", false, "Pending",
                              "couldn't assign flavors to pod set " + first.name +
                                  ": insufficient unused quota for cpu in flavor " + kKueueFlavor +
                                  ", " + std::to_string(first.cpu) + " more needed",
                              now_ms)};
  }
  ObjectWrite w;
  w.group = "kueue.x-k8s.io";
  w.version = "v1beta1";
  w.plural = "workloads";
  w.object = json::object{
      {"apiVersion", "kueue.x-k8s.io/v1beta1"},
      {"kind", "Workload"},
      {"metadata",
       json::object{{"name", WorkloadName(owner)},
                    {"namespace", owner.ns},
                    {"labels", json::object{{"kueue.x-k8s.io/job-uid", owner.uid}}},
                    {"ownerReferences", json::array{json::object{{"apiVersion", owner.api_version},
                                                                 {"kind", owner.kind},
                                                                 {"name", owner.name},
                                                                 {"uid", owner.uid},
                                                                 {"controller", true},
                                                                 {"blockOwnerDeletion", true}}}}}},
      {"spec", json::object{{"queueName", queue}, {"active", true}, {"podSets", std::move(sets)}}},
      {"status", std::move(status)}};
  return w;
}

}  // namespace kubesim::sim
