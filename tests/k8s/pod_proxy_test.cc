#include "k8s/pod_proxy.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kje::k8s {
namespace {

TEST_CASE("PodProxyPath: the pod's port, then the UI's path and query as given") {
  CHECK(*PodProxyPath("team-a", "pi-driver", 4040, "/jobs/?id=1") ==
        "/api/v1/namespaces/team-a/pods/pi-driver:4040/proxy/jobs/?id=1");
  CHECK(*PodProxyPath("team-a", "pi-driver", 4041, "") ==
        "/api/v1/namespaces/team-a/pods/pi-driver:4041/proxy/");
  CHECK(*PodProxyPath("a", "b", 1, "/api/v1/applications/app-1/jobs") ==
        "/api/v1/namespaces/a/pods/b:1/proxy/api/v1/applications/app-1/jobs");
  // Dots inside a segment and in the query are the UI's business.
  CHECK(PodProxyPath("a", "b", 4040, "/static/spark.js?v=1..2").ok());
}

TEST_CASE("PodProxyPath refuses what would leave the proxy or isn't a path") {
  for (const std::string& bad : std::vector<std::string>{
           "jobs", "/a b", "/a\tb", std::string("/a\0b", 4), "/x#frag", "/..", "/a/../b", "/a/./b",
           "/%2e%2e/x", "/a/%2E%2E", "/.%2e/x", "/\x7f"}) {
    INFO(bad);
    absl::Status s = CheckProxiedPath(bad);
    CHECK(absl::IsInvalidArgument(s));
    CHECK(absl::IsInvalidArgument(PodProxyPath("a", "b", 4040, bad).status()));
  }
  CHECK(absl::IsInvalidArgument(PodProxyPath("a", "b", 0, "/").status()));
  CHECK(absl::IsInvalidArgument(PodProxyPath("a", "b", 65536, "/").status()));
  CHECK(absl::IsInvalidArgument(PodProxyPath("a/b", "c", 4040, "/").status()));
  CHECK(absl::IsInvalidArgument(PodProxyPath("a", "c:1", 4040, "/").status()));
  CHECK(absl::IsInvalidArgument(PodProxyPath("a", "..", 4040, "/").status()));
  CHECK(CheckProxiedPath("").ok());
}

TEST_CASE("IsApiServerAnswer: only an error that is a Kubernetes Status object") {
  const std::string status =
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404})";
  CHECK(IsApiServerAnswer(404, "application/json", status));
  CHECK(IsApiServerAnswer(503, "application/json; charset=utf-8", status));
  CHECK_FALSE(IsApiServerAnswer(200, "application/json", status));  // a success is the UI's
  CHECK_FALSE(IsApiServerAnswer(404, "text/plain", status));
  CHECK_FALSE(IsApiServerAnswer(404, "application/json", R"({"message":"unknown app"})"));
  CHECK_FALSE(IsApiServerAnswer(404, "application/json", "not json"));
  CHECK_FALSE(IsApiServerAnswer(404, "application/json", R"([{"kind":"Status"}])"));
}

TEST_CASE("LocationInsideProxy and UnproxyLinks give the UI's own paths back") {
  const std::string prefix = "/api/v1/namespaces/a/pods/b:4040/proxy";
  CHECK(LocationInsideProxy(prefix + "/jobs/", prefix) == "/jobs/");
  CHECK(LocationInsideProxy("https://10.0.0.1:6443" + prefix + "/jobs/?x=1", prefix) ==
        "/jobs/?x=1");
  CHECK(LocationInsideProxy("https://k8s.example/base" + prefix, prefix) == "/");
  CHECK(LocationInsideProxy(prefix + "?x", prefix) == "/?x");
  CHECK(LocationInsideProxy("https://history.example/app", prefix) ==
        "https://history.example/app");
  CHECK(LocationInsideProxy(prefix + "x/y", prefix) == prefix + "x/y");
  CHECK(LocationInsideProxy("", prefix).empty());

  const std::string page = "<a href=\"" + prefix + "/jobs/\">j</a><img src=\"" + prefix +
                           "/static/x.png\"><a href=\"https://spark.apache.org/\">s</a>";
  CHECK(UnproxyLinks(page, "text/html;charset=utf-8", prefix) ==
        "<a href=\"/jobs/\">j</a><img src=\"/static/x.png\"><a "
        "href=\"https://spark.apache.org/\">s</a>");
  CHECK(UnproxyLinks(page, "application/json", prefix) == page);
}

}  // namespace
}  // namespace kje::k8s
