// The pod proxy subresource as the API server serves it, with the simulated Spark UI of a
// running driver behind it: both path forms, redirects and links kept inside the proxy, 503
// while nothing listens, 404 for a missing pod, RBAC of pods/proxy.

#include "kubesim/server/pod_proxy.h"

#include <catch2/catch.hpp>

#include "kubesim/server/api.h"
#include "kubesim/store/core_types.h"

namespace kubesim {
namespace {

namespace json = boost::json;

constexpr char kAdmin[] = "Bearer admin-token";
constexpr char kProxy[] = "/api/v1/namespaces/jobs/pods/pi-0-driver:4040/proxy";

// A driver pod as Spark makes it: labelled with its app id, owned by its application, its UI on
// the container port named spark-ui.
constexpr char kDriverPod[] = R"({"metadata":{"name":"pi-0-driver",
  "labels":{"spark-app-selector":"spark-3c1f","spark-role":"driver"},
  "ownerReferences":[{"apiVersion":"spark.apache.org/v1","kind":"SparkApplication","name":"pi",
                      "uid":"u1","controller":true}]},
  "spec":{"containers":[{"name":"spark-kubernetes-driver","image":"spark",
    "ports":[{"containerPort":7078,"name":"driver-rpc-port"},
             {"containerPort":4040,"name":"spark-ui"}]}]}})";

struct Fixture {
  Fixture() : store(NewMemoryStore([this] { return now_ms; })), tokens("", "admin-token") {
    for (const ResourceType& t : CoreTypes()) store->RegisterType(t);
    api = std::make_unique<Api>(*store, tokens, ApiOptions{}, [this] { return now_ms; });
    REQUIRE(As(kAdmin, "POST", "/api/v1/namespaces", R"({"metadata":{"name":"jobs"}})").status ==
            201);
    REQUIRE(As(kAdmin, "POST", "/api/v1/namespaces/jobs/pods", kDriverPod).status == 201);
  }

  HttpResponse As(const std::string& auth, const std::string& method, const std::string& target,
                  const std::string& body = "", const std::string& content_type = "") {
    HttpRequest req;
    req.method = method;
    req.target = target;
    req.body = body;
    req.content_type = content_type.empty() ? "application/json" : content_type;
    req.authorization = auth;
    return api->Handle(req, [] {});
  }
  HttpResponse Get(const std::string& target) { return As(kAdmin, "GET", target); }

  // The kubelet's part: the pod has an IP and its driver container runs (or is still waiting).
  void Run(bool running) {
    const std::string state = running ? R"({"running":{"startedAt":"2025-12-01T01:00:00Z"}})"
                                      : R"({"waiting":{"reason":"ContainerCreating"}})";
    REQUIRE(As(kAdmin, "PATCH", "/api/v1/namespaces/jobs/pods/pi-0-driver/status",
               R"({"status":{"phase":")" + std::string(running ? "Running" : "Pending") +
                   R"(","podIP":"10.244.0.7","startTime":"2025-12-01T01:00:00Z",
                   "containerStatuses":[{"name":"spark-kubernetes-driver","ready":true,
                   "restartCount":0,"state":)" +
                   state + "}]}}",
               "application/merge-patch+json")
                .status == 200);
  }

  static std::string Header(const HttpResponse& r, const std::string& name) {
    for (const auto& [k, v] : r.headers) {
      if (k == name) return v;
    }
    return "";
  }

  int64_t now_ms = 1764552000000;
  std::unique_ptr<Store> store;
  TokenFile tokens;
  std::unique_ptr<Api> api;
};

TEST_CASE("The pod proxy reaches a running driver's Spark UI", "[api][proxy]") {
  Fixture f;
  f.Run(true);
  const std::string proxy = kProxy;

  // `/` redirects to /jobs/, the Location kept inside the proxy as the API server rewrites it.
  HttpResponse root = f.Get(proxy + "/");
  CHECK(root.status == 302);
  CHECK(Fixture::Header(root, "Location") == proxy + "/jobs/");

  HttpResponse jobs = f.Get(proxy + "/jobs/");
  REQUIRE(jobs.status == 200);
  CHECK(jobs.content_type.rfind("text/html", 0) == 0);
  CHECK(jobs.body.find("<title>pi - Spark Jobs</title>") != std::string::npos);
  CHECK(jobs.body.find("spark-3c1f") != std::string::npos);
  // Root-relative links point through the proxy.
  CHECK(jobs.body.find("href=\"" + proxy + "/api/v1/applications\"") != std::string::npos);
  CHECK(jobs.body.find("href=\"/jobs/\"") == std::string::npos);

  HttpResponse apps = f.Get(proxy + "/api/v1/applications?status=running");
  REQUIRE(apps.status == 200);
  CHECK(apps.content_type == "application/json");
  json::array listed = json::parse(apps.body).as_array();
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].as_object()["id"] == "spark-3c1f");
  CHECK(listed[0].as_object()["name"] == "pi");
  CHECK(listed[0].as_object()["attempts"].as_array()[0].as_object()["startTime"] ==
        "2025-12-01T01:00:00.000GMT");
  CHECK(f.Get(proxy + "/api/v1/applications/spark-3c1f").status == 200);
  CHECK(f.Get(proxy + "/api/v1/applications/spark-other").status == 404);
  // The UI's own 404 is its answer, not the API server's Status.
  HttpResponse missing = f.Get(proxy + "/no/such/page");
  CHECK(missing.status == 404);
  CHECK(missing.content_type.rfind("text/plain", 0) == 0);

  // The path form without a port proxies to the pod's first declared port (the RPC port: no
  // HTTP UI there).
  CHECK(f.Get("/api/v1/namespaces/jobs/pods/pi-0-driver/proxy/jobs/").status == 503);
  // A port nothing listens on.
  CHECK(f.Get("/api/v1/namespaces/jobs/pods/pi-0-driver:4041/proxy/").status == 503);
  CHECK(f.Get("/api/v1/namespaces/jobs/pods/pi-0-driver:99999/proxy/").status == 400);
}

TEST_CASE("The pod proxy: 503 while the UI doesn't run, 404 without the pod", "[api][proxy]") {
  Fixture f;
  // Not scheduled yet: no IP.
  HttpResponse unscheduled = f.Get(std::string(kProxy) + "/");
  CHECK(unscheduled.status == 503);
  f.Run(false);
  HttpResponse waiting = f.Get(std::string(kProxy) + "/jobs/");
  REQUIRE(waiting.status == 503);
  json::object status = json::parse(waiting.body).as_object();
  CHECK(status["kind"] == "Status");
  CHECK(status["reason"] == "ServiceUnavailable");
  CHECK(std::string(status["message"].as_string()) ==
        "error trying to reach service: dial tcp 10.244.0.7:4040: connect: connection refused");

  HttpResponse gone = f.Get("/api/v1/namespaces/jobs/pods/nope:4040/proxy/");
  REQUIRE(gone.status == 404);
  CHECK(json::parse(gone.body).as_object()["reason"] == "NotFound");
}

TEST_CASE("The pod proxy is pods/proxy get to RBAC", "[api][proxy][rbac]") {
  Fixture f;
  f.Run(true);
  REQUIRE(f.As(kAdmin, "POST", "/api/v1/namespaces/jobs/serviceaccounts",
               R"({"metadata":{"name":"executor"}})")
              .status == 201);
  HttpResponse issued =
      f.As(kAdmin, "POST", "/api/v1/namespaces/jobs/serviceaccounts/executor/token");
  REQUIRE(issued.status == 201);
  const std::string sa =
      "Bearer " +
      std::string(json::parse(issued.body).as_object()["status"].as_object()["token"].as_string());
  auto grant = [&](const std::string& name, const std::string& rules) {
    REQUIRE(f.As(kAdmin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/jobs/roles",
                 R"({"metadata":{"name":")" + name + R"("},"rules":)" + rules + "}")
                .status == 201);
    REQUIRE(f.As(kAdmin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/jobs/rolebindings",
                 R"({"metadata":{"name":")" + name +
                     R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role",)"
                     R"("name":")" +
                     name + R"("},"subjects":[{"kind":"ServiceAccount","name":"executor"}]})")
                .status == 201);
  };
  grant("pods", R"([{"apiGroups":[""],"resources":["pods","pods/log"],"verbs":["get"]}])");
  HttpResponse denied = f.As(sa, "GET", std::string(kProxy) + "/jobs/");
  REQUIRE(denied.status == 403);
  CHECK(json::parse(denied.body).as_object()["message"] ==
        "pods \"pi-0-driver:4040\" is forbidden: User \"system:serviceaccount:jobs:executor\" "
        "cannot get resource \"pods/proxy\" in API group \"\" in the namespace \"jobs\"");
  grant("proxy", R"([{"apiGroups":[""],"resources":["pods/proxy"],"verbs":["get"]}])");
  CHECK(f.As(sa, "GET", std::string(kProxy) + "/jobs/").status == 200);
}

}  // namespace
}  // namespace kubesim
