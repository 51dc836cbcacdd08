#include "kubesim/server/url.h"

#include <catch2/catch.hpp>

namespace kubesim {
namespace {

TEST_CASE("PercentDecode decodes escapes and rejects malformed ones", "[url]") {
  std::string out;
  REQUIRE(PercentDecode("a%3Db%2Cc", false, &out));
  CHECK(out == "a=b,c");
  REQUIRE(PercentDecode("x+y", true, &out));
  CHECK(out == "x y");
  REQUIRE(PercentDecode("x+y", false, &out));
  CHECK(out == "x+y");
  CHECK_FALSE(PercentDecode("%4", false, &out));
  CHECK_FALSE(PercentDecode("%zz", false, &out));
  CHECK_FALSE(PercentDecode("abc%", false, &out));
}

TEST_CASE("ParseQuery splits and decodes, keeping the first of repeated keys", "[url]") {
  std::map<std::string, std::string> q;
  REQUIRE(
      ParseQuery("labelSelector=spark-role%3Ddriver%2Capp+in+(a%2Cb)&watch=1&limit=5&watch=0"
                 "&flag",
                 &q));
  CHECK(q["labelSelector"] == "spark-role=driver,app in (a,b)");
  CHECK(q["watch"] == "1");
  CHECK(q["limit"] == "5");
  CHECK(q.count("flag") == 1);
  CHECK(q["flag"].empty());
  std::map<std::string, std::string> bad;
  CHECK_FALSE(ParseQuery("a=%G0", &bad));
}

TEST_CASE("SplitTarget separates path and query", "[url]") {
  std::string_view path, query;
  SplitTarget("/api/v1/pods?limit=1&continue=x", &path, &query);
  CHECK(path == "/api/v1/pods");
  CHECK(query == "limit=1&continue=x");
  SplitTarget("/version", &path, &query);
  CHECK(path == "/version");
  CHECK(query.empty());
}

TEST_CASE("ParseApiPath routes discovery and non-resource paths", "[url]") {
  using K = ApiPath::Kind;
  CHECK(ParseApiPath("/version").kind == K::kVersion);
  CHECK(ParseApiPath("/healthz").kind == K::kHealth);
  CHECK(ParseApiPath("/readyz/ping").kind == K::kHealth);
  CHECK(ParseApiPath("/api").kind == K::kCoreVersions);
  CHECK(ParseApiPath("/api/").kind == K::kCoreVersions);
  CHECK(ParseApiPath("/apis").kind == K::kGroupList);
  ApiPath g = ParseApiPath("/apis/spark.apache.org");
  CHECK(g.kind == K::kGroup);
  CHECK(g.group == "spark.apache.org");
  ApiPath core = ParseApiPath("/api/v1");
  CHECK(core.kind == K::kResourceList);
  CHECK(core.group.empty());
  CHECK(core.version == "v1");
  ApiPath gv = ParseApiPath("/apis/spark.apache.org/v1");
  CHECK(gv.kind == K::kResourceList);
  CHECK(gv.group == "spark.apache.org");
  CHECK(ParseApiPath("/openapi/v2").kind == K::kOpenApiV2);
  CHECK(ParseApiPath("/openapi/v3").kind == K::kOpenApiV3Root);
  ApiPath doc = ParseApiPath("/openapi/v3/apis/spark.apache.org/v1");
  CHECK(doc.kind == K::kOpenApiV3Doc);
  CHECK(doc.group == "spark.apache.org");
  CHECK(doc.version == "v1");
  ApiPath core_doc = ParseApiPath("/openapi/v3/api/v1");
  CHECK(core_doc.kind == K::kOpenApiV3Doc);
  CHECK(core_doc.group.empty());
  ApiPath ks = ParseApiPath("/kubesim/faults/f3");
  CHECK(ks.kind == K::kKubesim);
  REQUIRE(ks.rest.size() == 2);
  CHECK(ks.rest[1] == "f3");
  CHECK(ParseApiPath("/nope").kind == K::kNotFound);
  CHECK(ParseApiPath("").kind == K::kNotFound);
  CHECK(ParseApiPath("/").kind == K::kNotFound);
}

TEST_CASE("ParseApiPath parses resource paths", "[url]") {
  using K = ApiPath::Kind;
  ApiPath p =
      ParseApiPath("/apis/spark.apache.org/v1/namespaces/team-a/sparkapplications/pi/status");
  CHECK(p.kind == K::kResource);
  CHECK(p.group == "spark.apache.org");
  CHECK(p.version == "v1");
  CHECK(p.ns == "team-a");
  CHECK(p.plural == "sparkapplications");
  CHECK(p.name == "pi");
  CHECK(p.subresource == "status");

  ApiPath log = ParseApiPath("/api/v1/namespaces/default/pods/pi-0-driver/log");
  CHECK(log.plural == "pods");
  CHECK(log.name == "pi-0-driver");
  CHECK(log.subresource == "log");

  ApiPath all = ParseApiPath("/api/v1/pods");
  CHECK(all.kind == K::kResource);
  CHECK(all.ns.empty());
  CHECK(all.plural == "pods");
  CHECK(all.name.empty());

  ApiPath nss = ParseApiPath("/api/v1/namespaces");
  CHECK(nss.plural == "namespaces");
  CHECK(nss.name.empty());
  ApiPath ns = ParseApiPath("/api/v1/namespaces/default");
  CHECK(ns.plural == "namespaces");
  CHECK(ns.name == "default");
  CHECK(ns.ns.empty());
  ApiPath ns_status = ParseApiPath("/api/v1/namespaces/default/status");
  CHECK(ns_status.plural == "namespaces");
  CHECK(ns_status.name == "default");
  CHECK(ns_status.subresource == "status");

  ApiPath legacy = ParseApiPath("/api/v1/watch/namespaces/default/pods");
  CHECK(legacy.legacy_watch);
  CHECK(legacy.ns == "default");
  CHECK(legacy.plural == "pods");

  ApiPath escaped = ParseApiPath("/api/v1/namespaces/default/configmaps/a%2Eb");
  CHECK(escaped.name == "a.b");

  CHECK(ParseApiPath("/api/v1/namespaces/a/pods/b/log/extra").kind == K::kNotFound);
  CHECK(ParseApiPath("/api/v1/namespaces/a/pods/b/c/d/e").kind == K::kNotFound);
}

}  // namespace
}  // namespace kubesim

namespace kubesim {
namespace {

TEST_CASE("ParseApiPath keeps the path after a pod's proxy subresource, as received", "[url]") {
  ApiPath p = ParseApiPath("/api/v1/namespaces/jobs/pods/pi-driver:4040/proxy/api/v1/a%20b/");
  REQUIRE(p.kind == ApiPath::Kind::kResource);
  CHECK(p.ns == "jobs");
  CHECK(p.plural == "pods");
  CHECK(p.name == "pi-driver:4040");
  CHECK(p.subresource == "proxy");
  CHECK(p.proxy_path == "/api/v1/a%20b/");
  CHECK(ParseApiPath("/api/v1/namespaces/jobs/pods/pi-driver/proxy").proxy_path == "/");
  CHECK(ParseApiPath("/api/v1/namespaces/jobs/pods/pi-driver/proxy/").proxy_path == "/");
  // Past any other subresource there is nothing.
  CHECK(ParseApiPath("/api/v1/namespaces/jobs/pods/pi-driver/log/x").kind ==
        ApiPath::Kind::kNotFound);
}

}  // namespace
}  // namespace kubesim
