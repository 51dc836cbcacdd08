#include <catch2/catch.hpp>

#include "kubesim/rbac/rbac.h"
#include "tests/kubesim/rbac/world.h"

namespace kubesim::rbac {
namespace {

std::string Causes(const Result<boost::json::object>& r) {
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == 422);
  return boost::json::serialize(r.error().details);
}

TEST_CASE("RBAC objects are stored as the API server stores them", "[rbac]") {
  World w;
  auto role = w.Create("roles", "jobs",
                       R"({"metadata":{"name":"system:executor"},"rules":[
                           {"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]})");
  REQUIRE(role.ok());
  CHECK(role.value().at("apiVersion") == "rbac.authorization.k8s.io/v1");
  CHECK(role.value().at("kind") == "Role");
  auto binding = w.Create("rolebindings", "jobs",
                          R"({"metadata":{"name":"b"},"roleRef":{"apiGroup":
                              "rbac.authorization.k8s.io","kind":"Role","name":"system:executor"},
                              "subjects":[{"kind":"User","name":"alice"}]})");
  REQUIRE(binding.ok());
  // The apiGroup of a User subject is defaulted.
  CHECK(binding.value().at("subjects").at(0).at("apiGroup") == "rbac.authorization.k8s.io");
  auto listed = w.store->List(w.Type("roles"), "jobs", {});
  REQUIRE(listed.ok());
  CHECK(listed.value().at("kind") == "RoleList");
  CHECK(listed.value().at("items").as_array().size() == 1);
}

TEST_CASE("Invalid rules, roleRefs and subjects are refused with the field", "[rbac]") {
  World w;
  std::string c = Causes(w.Create("roles", "jobs", R"({"metadata":{"name":"r"},"rules":[
      {"apiGroups":[""],"resources":["pods"]},
      {"nonResourceURLs":["/healthz"],"verbs":["get"]},
      {"verbs":["get"]}]})"));
  CHECK(c.find("rules[0].verbs") != std::string::npos);
  CHECK(c.find("namespaced rules cannot apply to non-resource URLs") != std::string::npos);
  CHECK(c.find("rules[2].apiGroups") != std::string::npos);
  CHECK(c.find("rules[2].resources") != std::string::npos);

  c = Causes(w.Create("clusterroles", "", R"({"metadata":{"name":"c"},"rules":[
      {"nonResourceURLs":["/x"],"resources":["pods"],"apiGroups":[""],"verbs":["get"]}]})"));
  CHECK(c.find("both regular resources and non-resource URLs") != std::string::npos);

  c = Causes(w.Create("clusterrolebindings", "", R"({"metadata":{"name":"b"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"},
      "subjects":[{"kind":"ServiceAccount","name":"sa"},{"kind":"Robot","name":"x"}]})"));
  CHECK(c.find("roleRef.kind") != std::string::npos);
  CHECK(c.find("subjects[0].namespace") != std::string::npos);
  CHECK(c.find("subjects[1].kind") != std::string::npos);

  c = Causes(w.Create("rolebindings", "jobs", R"({"metadata":{"name":"b"},"subjects":[]})"));
  CHECK(c.find("roleRef") != std::string::npos);
  CHECK(w.store->Get(w.Type("rolebindings"), "jobs", "b").error().code == 404);

  c = Causes(w.Create("roles", "jobs", R"({"metadata":{"name":"a/b"},"rules":[]})"));
  CHECK(c.find("metadata.name") != std::string::npos);
}

}  // namespace
}  // namespace kubesim::rbac
