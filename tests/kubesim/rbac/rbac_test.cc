#include "kubesim/rbac/rbac.h"

#include <catch2/catch.hpp>

#include "tests/kubesim/rbac/world.h"

namespace kubesim::rbac {
namespace {

constexpr char kSa[] = R"([{"kind":"ServiceAccount","name":"executor","namespace":"jobs"}])";
constexpr char kApps[] = "spark.apache.org";

UserInfo Executor() { return ServiceAccountUser("jobs", "executor"); }

TEST_CASE("A Role allows its verbs on its resources in its namespace only", "[rbac]") {
  World w;
  w.Role("jobs", "apps",
         R"([{"apiGroups":["spark.apache.org"],"resources":["sparkapplications"],
              "verbs":["get","list","watch"]}])");
  w.Bind("jobs", "apps", "Role", "apps", kSa);
  const Store& s = *w.store;
  CHECK(Allowed(s, Executor(), Req("get", kApps, "sparkapplications", "jobs", "a")));
  CHECK(Allowed(s, Executor(), Req("list", kApps, "sparkapplications", "jobs")));
  CHECK(Allowed(s, Executor(), Req("watch", kApps, "sparkapplications", "jobs")));
  for (const char* verb : {"create", "update", "patch", "delete", "deletecollection"}) {
    INFO(verb);
    CHECK_FALSE(Allowed(s, Executor(), Req(verb, kApps, "sparkapplications", "jobs", "a")));
  }
  CHECK_FALSE(Allowed(s, Executor(), Req("get", kApps, "sparkapplications", "other", "a")));
  CHECK_FALSE(Allowed(s, Executor(), Req("list", kApps, "sparkapplications", "")));  // all ns
  CHECK_FALSE(Allowed(s, Executor(), Req("get", "", "sparkapplications", "jobs", "a")));
  CHECK_FALSE(Allowed(s, Executor(), Req("get", kApps, "scheduledsparkapplications", "jobs", "a")));
  // Another ServiceAccount of the namespace, or the same name elsewhere, is someone else.
  CHECK_FALSE(Allowed(s, ServiceAccountUser("jobs", "other"),
                      Req("get", kApps, "sparkapplications", "jobs", "a")));
  CHECK_FALSE(Allowed(s, ServiceAccountUser("other", "executor"),
                      Req("get", kApps, "sparkapplications", "other", "a")));
}

TEST_CASE("Subresources are resources of their own: pods/log, sparkapplications/status", "[rbac]") {
  World w;
  w.Role("jobs", "logs",
         R"([{"apiGroups":[""],"resources":["pods/log"],"verbs":["get"]},
             {"apiGroups":["spark.apache.org"],"resources":["sparkapplications"],"verbs":["patch"]}])");
  w.Bind("jobs", "logs", "Role", "logs", kSa);
  const Store& s = *w.store;
  CHECK(Allowed(s, Executor(), Req("get", "", "pods", "jobs", "driver", "log")));
  CHECK_FALSE(Allowed(s, Executor(), Req("get", "", "pods", "jobs", "driver")));
  CHECK(Allowed(s, Executor(), Req("patch", kApps, "sparkapplications", "jobs", "a")));
  CHECK_FALSE(
      Allowed(s, Executor(), Req("patch", kApps, "sparkapplications", "jobs", "a", "status")));
  w.Role("jobs", "status", R"([{"apiGroups":["*"],"resources":["*/status"],"verbs":["*"]}])");
  w.Bind("jobs", "status", "Role", "status", kSa);
  CHECK(Allowed(s, Executor(), Req("patch", kApps, "sparkapplications", "jobs", "a", "status")));
  CHECK(Allowed(s, Executor(), Req("update", "", "pods", "jobs", "p", "status")));
  CHECK_FALSE(Allowed(s, Executor(), Req("update", "", "pods", "jobs", "p")));
}

TEST_CASE("resourceNames restrict a rule to those objects; a list names none", "[rbac]") {
  World w;
  w.Role("jobs", "one", R"([{"apiGroups":[""],"resources":["configmaps"],
                             "resourceNames":["settings"],"verbs":["get","list","watch"]}])");
  w.Bind("jobs", "one", "Role", "one", kSa);
  const Store& s = *w.store;
  CHECK(Allowed(s, Executor(), Req("get", "", "configmaps", "jobs", "settings")));
  CHECK(Allowed(s, Executor(), Req("watch", "", "configmaps", "jobs", "settings")));
  CHECK_FALSE(Allowed(s, Executor(), Req("get", "", "configmaps", "jobs", "secrets")));
  CHECK_FALSE(Allowed(s, Executor(), Req("list", "", "configmaps", "jobs")));
}

TEST_CASE(
    "A ClusterRole grants in a RoleBinding's namespace, or everywhere by a ClusterRoleBinding",
    "[rbac]") {
  World w;
  w.Role("", "pod-reader", R"([{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}])");
  w.Bind("jobs", "read", "ClusterRole", "pod-reader", kSa);
  const Store& s = *w.store;
  CHECK(Allowed(s, Executor(), Req("list", "", "pods", "jobs")));
  CHECK_FALSE(Allowed(s, Executor(), Req("list", "", "pods", "other")));
  CHECK_FALSE(Allowed(s, Executor(), Req("list", "", "pods", "")));
  w.Bind("", "read-all", "ClusterRole", "pod-reader", kSa);
  CHECK(Allowed(s, Executor(), Req("list", "", "pods", "other")));
  CHECK(Allowed(s, Executor(), Req("list", "", "pods", "")));
}

TEST_CASE("Subjects: ServiceAccounts (defaulting to the binding's namespace), groups, users",
          "[rbac]") {
  World w;
  w.Role("jobs", "r", R"([{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}])");
  w.Bind("jobs", "sa", "Role", "r", R"([{"kind":"ServiceAccount","name":"local"}])");
  w.Bind("jobs", "group", "Role", "r",
         R"([{"kind":"Group","name":"system:serviceaccounts:other"}])");
  w.Bind("jobs", "user", "Role", "r", R"([{"kind":"User","name":"alice"}])");
  const Store& s = *w.store;
  Attributes get = Req("get", "", "pods", "jobs", "p");
  CHECK(Allowed(s, ServiceAccountUser("jobs", "local"), get));
  CHECK(Allowed(s, ServiceAccountUser("other", "anyone"), get));
  UserInfo alice;
  alice.name = "alice";
  CHECK(Allowed(s, alice, get));
  UserInfo bob;
  bob.name = "bob";
  CHECK_FALSE(Allowed(s, bob, get));
  CHECK_FALSE(Allowed(s, ServiceAccountUser("third", "local"), get));
  UserInfo root;
  root.name = "root";
  root.superuser = true;
  CHECK(Allowed(s, root, Req("deletecollection", "x", "anything", "")));
}

TEST_CASE("A binding to a missing role grants nothing until the role exists", "[rbac]") {
  World w;
  w.Bind("jobs", "early", "Role", "later", kSa);
  Attributes get = Req("get", "", "pods", "jobs", "p");
  CHECK_FALSE(Allowed(*w.store, Executor(), get));
  w.Role("jobs", "later", R"([{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}])");
  CHECK(Allowed(*w.store, Executor(), get));
  REQUIRE(w.store->Delete(w.Type("roles"), "jobs", "later", {}).ok());
  CHECK_FALSE(Allowed(*w.store, Executor(), get));
}

TEST_CASE("Non-resource URLs are allowed by ClusterRoles only", "[rbac]") {
  World w;
  for (const auto& [plural, obj] : BootstrapObjects()) {
    REQUIRE(w.store->Create(w.Type(plural.c_str()), "", obj, {}).ok());
  }
  Attributes discovery;
  discovery.resource_request = false;
  discovery.verb = "get";
  discovery.path = "/apis/spark.apache.org/v1";
  CHECK(Allowed(*w.store, Executor(), discovery));
  Attributes admin = discovery;
  admin.path = "/kubesim/stats";
  CHECK_FALSE(Allowed(*w.store, Executor(), admin));
  Attributes post = discovery;
  post.verb = "post";
  CHECK_FALSE(Allowed(*w.store, Executor(), post));
  // Bootstrapped too: cluster-admin for system:masters.
  UserInfo master;
  master.name = "m";
  master.groups = {"system:masters"};
  CHECK(Allowed(*w.store, master, admin));
  CHECK(Allowed(*w.store, master, Req("delete", "", "namespaces", "", "jobs")));
}

TEST_CASE("Forbidden is the API server's Status and message", "[rbac]") {
  UserInfo u = Executor();
  ApiError named = Forbidden(u, Req("get", "", "pods", "jobs", "driver", "log"));
  CHECK(named.code == 403);
  CHECK(named.reason == "Forbidden");
  CHECK(named.message ==
        "pods \"driver\" is forbidden: User \"system:serviceaccount:jobs:executor\" cannot get "
        "resource \"pods/log\" in API group \"\" in the namespace \"jobs\"");
  CHECK(boost::json::serialize(named.details) == R"({"name":"driver","kind":"pods"})");

  ApiError list = Forbidden(u, Req("list", kApps, "sparkapplications", "jobs"));
  CHECK(list.message ==
        "sparkapplications.spark.apache.org is forbidden: User "
        "\"system:serviceaccount:jobs:executor\" cannot list resource \"sparkapplications\" in "
        "API group \"spark.apache.org\" in the namespace \"jobs\"");
  CHECK(boost::json::serialize(list.details) ==
        R"({"group":"spark.apache.org","kind":"sparkapplications"})");

  ApiError cluster = Forbidden(u, Req("watch", "", "namespaces", ""));
  CHECK(cluster.message ==
        "namespaces is forbidden: User \"system:serviceaccount:jobs:executor\" cannot watch "
        "resource \"namespaces\" in API group \"\" at the cluster scope");

  Attributes path;
  path.resource_request = false;
  path.verb = "get";
  path.path = "/kubesim/stats";
  CHECK(Forbidden(u, path).message ==
        "forbidden: User \"system:serviceaccount:jobs:executor\" cannot get path "
        "\"/kubesim/stats\"");
}

}  // namespace
}  // namespace kubesim::rbac
