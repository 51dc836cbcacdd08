#pragma once

// A store with the core and RBAC types, and helpers to write RBAC objects into it.

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "kubesim/rbac/rbac.h"
#include "kubesim/store/core_types.h"
#include "kubesim/store/store.h"

namespace kubesim::rbac {

struct World {
  int64_t now_ms = 1764552000000;
  std::unique_ptr<Store> store = NewMemoryStore([this] { return now_ms; });

  World() {
    for (const ResourceType& t : CoreTypes()) store->RegisterType(t);
    for (const ResourceType& t : Types()) store->RegisterType(t);
    for (const char* ns : {"jobs", "other"}) {
      REQUIRE(store
                  ->Create(NamespaceType(), "",
                           Obj(R"({"metadata":{"name":")" + std::string(ns) + R"("}})"), {})
                  .ok());
    }
  }

  static boost::json::object Obj(const std::string& text) {
    return boost::json::parse(text).as_object();
  }

  const ResourceType& Type(const char* plural) const {
    const ResourceType* t = store->FindType(plural[0] == '!' ? "" : "rbac.authorization.k8s.io",
                                            "v1", plural[0] == '!' ? plural + 1 : plural);
    REQUIRE(t != nullptr);
    return *t;
  }

  Result<boost::json::object> Create(const char* plural, const std::string& ns,
                                     const std::string& text) {
    return store->Create(Type(plural), ns, Obj(text), {});
  }

  void MustCreate(const char* plural, const std::string& ns, const std::string& text) {
    auto r = Create(plural, ns, text);
    INFO(text);
    REQUIRE(r.ok());
  }

  // A Role (or ClusterRole, with ns empty) named `name` with the rules given as JSON.
  void Role(const std::string& ns, const std::string& name, const std::string& rules) {
    MustCreate(ns.empty() ? "clusterroles" : "roles", ns,
               R"({"metadata":{"name":")" + name + R"("},"rules":)" + rules + "}");
  }

  // Binds `subjects` (JSON) to the role: a RoleBinding in `ns`, or a ClusterRoleBinding.
  void Bind(const std::string& ns, const std::string& name, const std::string& role_kind,
            const std::string& role, const std::string& subjects) {
    MustCreate(ns.empty() ? "clusterrolebindings" : "rolebindings", ns,
               R"({"metadata":{"name":")" + name +
                   R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":")" + role_kind +
                   R"(","name":")" + role + R"("},"subjects":)" + subjects + "}");
  }
};

inline Attributes Req(std::string verb, std::string group, std::string resource, std::string ns,
                      std::string name = "", std::string subresource = "") {
  Attributes a;
  a.verb = std::move(verb);
  a.api_group = std::move(group);
  a.resource = std::move(resource);
  a.ns = std::move(ns);
  a.name = std::move(name);
  a.subresource = std::move(subresource);
  return a;
}

}  // namespace kubesim::rbac
