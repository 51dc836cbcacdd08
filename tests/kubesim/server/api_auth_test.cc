// RBAC through the API: ServiceAccount tokens from the TokenRequest API, 403s as the API server
// words them, and the admin token untouched.

#include <catch2/catch.hpp>

#include "kubesim/server/api.h"
#include "kubesim/store/core_types.h"

namespace kubesim {
namespace {

namespace json = boost::json;

constexpr char kAdmin[] = "Bearer admin-token";

struct Fixture {
  Fixture() : store(NewMemoryStore([this] { return now_ms; })), tokens("", "admin-token") {
    for (const ResourceType& t : CoreTypes()) store->RegisterType(t);
    api = std::make_unique<Api>(*store, tokens, ApiOptions{}, [this] { return now_ms; });
    REQUIRE(As(kAdmin, "POST", "/api/v1/namespaces", R"({"metadata":{"name":"jobs"}})").status ==
            201);
    REQUIRE(As(kAdmin, "POST", "/api/v1/namespaces/jobs/serviceaccounts",
               R"({"metadata":{"name":"executor"}})")
                .status == 201);
    REQUIRE(As(kAdmin, "POST", "/api/v1/namespaces/jobs/pods",
               R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}})")
                .status == 201);
  }

  HttpResponse As(const std::string& auth, const std::string& method, const std::string& target,
                  const std::string& body = "") {
    HttpRequest req;
    req.method = method;
    req.target = target;
    req.body = body;
    req.content_type = "application/json";
    req.authorization = auth;
    return api->Handle(req, [] {});
  }

  // A token of jobs/executor, from the TokenRequest API.
  std::string Token(const std::string& body = "") {
    HttpResponse r =
        As(kAdmin, "POST", "/api/v1/namespaces/jobs/serviceaccounts/executor/token", body);
    INFO(r.body);
    REQUIRE(r.status == 201);
    json::object o = json::parse(r.body).as_object();
    CHECK(o["kind"] == "TokenRequest");
    CHECK(o["apiVersion"] == "authentication.k8s.io/v1");
    return "Bearer " + std::string(o["status"].as_object()["token"].as_string());
  }

  void Grant(const std::string& rules) {
    static int n = 0;
    std::string name = "r" + std::to_string(++n);
    REQUIRE(As(kAdmin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/jobs/roles",
               R"({"metadata":{"name":")" + name + R"("},"rules":)" + rules + "}")
                .status == 201);
    REQUIRE(
        As(kAdmin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/jobs/rolebindings",
           R"({"metadata":{"name":")" + name +
               R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":")" +
               name + R"("},"subjects":[{"kind":"ServiceAccount","name":"executor"}]})")
            .status == 201);
  }

  int64_t now_ms = 1764552000000;
  std::unique_ptr<Store> store;
  TokenFile tokens;
  std::unique_ptr<Api> api;
};

TEST_CASE("A ServiceAccount token without bindings discovers the API and nothing more",
          "[api][rbac]") {
  Fixture f;
  std::string sa = f.Token();
  CHECK(f.As(sa, "GET", "/api").status == 200);
  CHECK(f.As(sa, "GET", "/apis/rbac.authorization.k8s.io/v1").status == 200);
  CHECK(f.As(sa, "GET", "/version").status == 200);

  HttpResponse denied = f.As(sa, "GET", "/api/v1/namespaces/jobs/pods");
  REQUIRE(denied.status == 403);
  json::object s = json::parse(denied.body).as_object();
  CHECK(s["kind"] == "Status");
  CHECK(s["apiVersion"] == "v1");
  CHECK(s["status"] == "Failure");
  CHECK(s["reason"] == "Forbidden");
  CHECK(s["code"] == 403);
  CHECK(s["message"] ==
        "pods is forbidden: User \"system:serviceaccount:jobs:executor\" cannot list resource "
        "\"pods\" in API group \"\" in the namespace \"jobs\"");
  CHECK(json::serialize(s["details"]) == R"({"kind":"pods"})");

  // Authorization comes before routing: a type that doesn't exist is forbidden too.
  CHECK(f.As(sa, "GET", "/apis/nothing.example/v1/namespaces/jobs/things").status == 403);
  HttpResponse admin_path = f.As(sa, "GET", "/kubesim/stats");
  CHECK(admin_path.status == 403);
  CHECK(json::parse(admin_path.body).as_object()["message"] ==
        "forbidden: User \"system:serviceaccount:jobs:executor\" cannot get path "
        "\"/kubesim/stats\"");
  // A token nobody issued is no one.
  CHECK(f.As("Bearer kubesim-sa.0000", "GET", "/api").status == 401);
  // The admin token is untouched by RBAC.
  CHECK(f.As(kAdmin, "GET", "/api/v1/namespaces/jobs/pods").status == 200);
  CHECK(f.As(kAdmin, "GET", "/kubesim/stats").status == 200);
}

TEST_CASE("Each request is judged by its own verb: watch, get of pods/log, deletecollection",
          "[api][rbac]") {
  Fixture f;
  std::string sa = f.Token();
  f.Grant(R"([{"apiGroups":[""],"resources":["pods"],"verbs":["list","get"]}])");
  CHECK(f.As(sa, "GET", "/api/v1/namespaces/jobs/pods").status == 200);
  CHECK(f.As(sa, "GET", "/api/v1/namespaces/jobs/pods/p").status == 200);
  HttpResponse watch = f.As(sa, "GET", "/api/v1/namespaces/jobs/pods?watch=true");
  CHECK(watch.status == 403);
  CHECK(json::parse(watch.body).as_object()["message"].as_string().find("cannot watch resource") !=
        std::string::npos);
  CHECK(f.As(sa, "GET", "/api/v1/watch/namespaces/jobs/pods").status == 403);
  HttpResponse log = f.As(sa, "GET", "/api/v1/namespaces/jobs/pods/p/log");
  CHECK(log.status == 403);
  CHECK(json::parse(log.body).as_object()["message"] ==
        "pods \"p\" is forbidden: User \"system:serviceaccount:jobs:executor\" cannot get "
        "resource \"pods/log\" in API group \"\" in the namespace \"jobs\"");
  CHECK(f.As(sa, "DELETE", "/api/v1/namespaces/jobs/pods").status == 403);
  CHECK(f.As(sa, "DELETE", "/api/v1/namespaces/jobs/pods/p").status == 403);
  CHECK(f.As(sa, "GET", "/api/v1/pods").status == 403);  // across namespaces: cluster scope

  f.Grant(R"([{"apiGroups":[""],"resources":["pods"],"verbs":["watch","delete"]},
              {"apiGroups":[""],"resources":["pods/log"],"verbs":["get"]}])");
  CHECK(f.As(sa, "GET", "/api/v1/namespaces/jobs/pods?watch=true").stream != nullptr);
  CHECK(f.As(sa, "GET", "/api/v1/namespaces/jobs/pods/p/log").status != 403);
  CHECK(f.As(sa, "DELETE", "/api/v1/namespaces/jobs/pods").status == 403);  // deletecollection
  CHECK(f.As(sa, "DELETE", "/api/v1/namespaces/jobs/pods/p").status == 200);

  // kubesim's stats name every denial by user and right.
  json::object stats = json::parse(f.As(kAdmin, "GET", "/kubesim/stats").body).as_object();
  std::string forbidden = json::serialize(stats["forbidden"]);
  CHECK(forbidden.find(R"({"user":"system:serviceaccount:jobs:executor","verb":"get",)"
                       R"("apiGroup":"","resource":"pods/log","count":1})") != std::string::npos);
  CHECK(forbidden.find(R"("verb":"deletecollection","apiGroup":"","resource":"pods","count":2})") !=
        std::string::npos);
}

TEST_CASE("A request's name and namespace as RBAC sees them", "[api][rbac]") {
  Fixture f;
  REQUIRE(f.As(kAdmin, "POST", "/api/v1/namespaces", R"({"metadata":{"name":"other"}})").status ==
          201);
  std::string sa = f.Token();
  f.Grant(R"([{"apiGroups":[""],"resources":["namespaces"],"verbs":["get"]},
              {"apiGroups":[""],"resources":["pods"],"resourceNames":["p"],
               "verbs":["list","watch"]}])");
  // A namespace is in itself: a RoleBinding in jobs grants get of namespace jobs only.
  CHECK(f.As(sa, "GET", "/api/v1/namespaces/jobs").status == 200);
  HttpResponse other = f.As(sa, "GET", "/api/v1/namespaces/other");
  CHECK(other.status == 403);
  CHECK(json::parse(other.body).as_object()["message"] ==
        "namespaces \"other\" is forbidden: User \"system:serviceaccount:jobs:executor\" cannot "
        "get resource \"namespaces\" in API group \"\" in the namespace \"other\"");
  // A list or watch narrowed to one name is about that object.
  CHECK(f.As(sa, "GET", "/api/v1/namespaces/jobs/pods?fieldSelector=metadata.name%3Dp").status ==
        200);
  CHECK(f.As(sa, "GET", "/api/v1/namespaces/jobs/pods?watch=1&fieldSelector=metadata.name%3D%3Dp")
            .stream != nullptr);
  CHECK(f.As(sa, "GET", "/api/v1/namespaces/jobs/pods?fieldSelector=metadata.name%3Dq").status ==
        403);
  CHECK(f.As(sa, "GET", "/api/v1/namespaces/jobs/pods").status == 403);
}

TEST_CASE("TokenRequest: expiry honoured, too short refused, bound to the ServiceAccount",
          "[api][rbac]") {
  Fixture f;
  HttpResponse short_lived =
      f.As(kAdmin, "POST", "/api/v1/namespaces/jobs/serviceaccounts/executor/token",
           R"({"spec":{"expirationSeconds":60}})");
  CHECK(short_lived.status == 422);
  CHECK(json::parse(short_lived.body).as_object()["message"] ==
        "TokenRequest.authentication.k8s.io \"executor\" is invalid: spec.expirationSeconds: "
        "Invalid value: 60: may not specify a duration less than 10 minutes");
  CHECK(f.As(kAdmin, "POST", "/api/v1/namespaces/jobs/serviceaccounts/nobody/token").status == 404);

  std::string sa = f.Token(R"({"spec":{"expirationSeconds":600}})");
  CHECK(f.As(sa, "GET", "/api").status == 200);
  f.now_ms += 600'000;
  CHECK(f.As(sa, "GET", "/api").status == 401);

  // Minting tokens is itself a right: create on serviceaccounts/token.
  std::string again = f.Token();
  CHECK(f.As(again, "POST", "/api/v1/namespaces/jobs/serviceaccounts/executor/token").status ==
        403);
  f.Grant(R"([{"apiGroups":[""],"resources":["serviceaccounts/token"],"verbs":["create"]}])");
  CHECK(f.As(again, "POST", "/api/v1/namespaces/jobs/serviceaccounts/executor/token").status ==
        201);
  REQUIRE(f.As(kAdmin, "DELETE", "/api/v1/namespaces/jobs/serviceaccounts/executor").status == 200);
  CHECK(f.As(again, "GET", "/api").status == 401);
}

}  // namespace
}  // namespace kubesim
