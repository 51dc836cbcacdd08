#include "k8s/resource.h"

#include <catch2/catch.hpp>

#include "base/quote.h"
#include "k8s/errors.h"

namespace kje::k8s {
namespace {

TEST_CASE("Core and group resources get their API paths") {
  CHECK(*ResourcePath({"", "v1", "pods", "ns1", "", ""}) == "/api/v1/namespaces/ns1/pods");
  CHECK(*ResourcePath({"", "v1", "pods", "ns1", "driver", "log"}) ==
        "/api/v1/namespaces/ns1/pods/driver/log");
  CHECK(*ResourcePath({"spark.apache.org", "v1", "sparkapplications", "jobs", "app-1", "status"}) ==
        "/apis/spark.apache.org/v1/namespaces/jobs/sparkapplications/app-1/status");
  CHECK(*ResourcePath({"spark.apache.org", "v1", "sparkapplications", "", "", ""}) ==
        "/apis/spark.apache.org/v1/sparkapplications");
  CHECK(*ResourcePath({"", "v1", "namespaces", "", "default", ""}) == "/api/v1/namespaces/default");
}

TEST_CASE("Resource references that would change the path are rejected") {
  CHECK(absl::IsInvalidArgument(ResourcePath({"", "v1", "pods", "ns", "../x", ""}).status()));
  CHECK(absl::IsInvalidArgument(ResourcePath({"", "v1", "pods", "..", "x", ""}).status()));
  CHECK(absl::IsInvalidArgument(ResourcePath({"", "v1", "pods", "ns", "a?b", ""}).status()));
  CHECK(absl::IsInvalidArgument(ResourcePath({"", "", "pods", "ns", "", ""}).status()));
  CHECK(absl::IsInvalidArgument(ResourcePath({"", "v1", "", "ns", "", ""}).status()));
  CHECK(absl::IsInvalidArgument(ResourcePath({"", "v1", "pods", "ns", "", "log"}).status()));
}

TEST_CASE("The metrics label names the subresource") {
  CHECK(ResourceLabel({"", "v1", "pods", "ns", "p", "log"}) == "pods/log");
  CHECK(ResourceLabel({"spark.apache.org", "v1", "sparkapplications", "ns", "", ""}) ==
        "sparkapplications");
}

TEST_CASE("Query values are percent-encoded") {
  CHECK(UrlEncode("a=b,c!=d") == "a%3Db%2Cc%21%3Dd");
  CHECK(UrlEncode("env in (prod, qa)") == "env%20in%20%28prod%2C%20qa%29");
  CHECK(UrlEncode("Az09-._~") == "Az09-._~");
  CHECK(QueryString({}) == "");
  CHECK(QueryString({{"a", "1"}, {"b", "x y"}}) == "?a=1&b=x%20y");
}

TEST_CASE("List options become query parameters") {
  ListOptions o;
  CHECK(ListQuery(o) == "");
  o.label_selector = "app=x,tier!=db";
  o.field_selector = "metadata.name=n";
  o.limit = 500;
  o.continue_token = "abc/+=";
  o.resource_version = "0";
  CHECK(ListQuery(o) ==
        "?labelSelector=app%3Dx%2Ctier%21%3Ddb&fieldSelector=metadata.name%3Dn&limit=500"
        "&continue=abc%2F%2B%3D&resourceVersion=0");
}

TEST_CASE("Watch queries resume from the given version") {
  WatchOptions o;
  o.label_selector = "a=b";
  o.resource_version = "10";
  o.timeout_seconds = 30;
  CHECK(WatchQuery(o, "42") ==
        "?watch=true&labelSelector=a%3Db&resourceVersion=42&allowWatchBookmarks=true"
        "&timeoutSeconds=30");
  o.allow_bookmarks = false;
  o.timeout_seconds = 0;
  CHECK(WatchQuery(o, "") == "?watch=true&labelSelector=a%3Db");
}

TEST_CASE("Log options become query parameters") {
  LogOptions o;
  CHECK(LogQuery(o) == "");
  o.container = "spark-kubernetes-driver";
  o.tail_lines = 100;
  o.limit_bytes = 65536;
  o.follow = true;
  CHECK(LogQuery(o) ==
        "?container=spark-kubernetes-driver&tailLines=100&limitBytes=65536&follow=true");
  LogOptions since;
  since.since_seconds = 300;
  since.timestamps = true;
  since.previous = true;
  CHECK(LogQuery(since) == "?timestamps=true&sinceSeconds=300&previous=true");
}

TEST_CASE("Delete options carry the propagation policy and preconditions") {
  DeleteOptions o;
  CHECK(DeleteBody(o) == R"({"kind":"DeleteOptions","apiVersion":"v1"})");
  o.propagation_policy = "Foreground";
  o.precondition_uid = "u-1";
  o.precondition_resource_version = "7";
  o.grace_period_seconds = 0;
  CHECK(DeleteBody(o) ==
        R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground",)"
        R"("gracePeriodSeconds":0,"preconditions":{"uid":"u-1","resourceVersion":"7"}})");
}

TEST_CASE("A list page hands out each item and the continue token") {
  auto page = ParseListPage(
      R"({"kind":"PodList","metadata":{"resourceVersion":"99","continue":"tok","remainingItemCount":5},)"
      R"("items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"},"spec":{"x":[1,2]}}]})");
  REQUIRE(page.ok());
  CHECK(page->resource_version == "99");
  CHECK(page->continue_token == "tok");
  CHECK(page->remaining_item_count == 5);
  REQUIRE(page->items.size() == 2);
  CHECK(page->items[0].ToString() == R"({"metadata":{"name":"a"}})");
  CHECK(page->items[1].ToString() == R"({"metadata":{"name":"b"},"spec":{"x":[1,2]}})");
}

TEST_CASE("An empty list may have null items, garbage is an error") {
  auto page = ParseListPage(R"({"metadata":{"resourceVersion":"3"},"items":null})");
  REQUIRE(page.ok());
  CHECK(page->items.empty());
  CHECK(page->continue_token.empty());
  CHECK(absl::IsInternal(ParseListPage("not json").status()));
  CHECK(absl::IsInternal(ParseListPage(R"({"items":{}})").status()));
}

TEST_CASE("Watch events are parsed with their resource version") {
  auto added = ParseWatchEvent(
      R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"p","resourceVersion":"12"}}})");
  REQUIRE(added.ok());
  CHECK(added->type == WatchEvent::Type::kAdded);
  CHECK(added->resource_version == "12");
  CHECK(added->object.ToString() ==
        R"({"kind":"Pod","metadata":{"name":"p","resourceVersion":"12"}})");
  auto bookmark =
      ParseWatchEvent(R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"20"}}})");
  REQUIRE(bookmark.ok());
  CHECK(bookmark->type == WatchEvent::Type::kBookmark);
  CHECK(bookmark->resource_version == "20");
  CHECK(ParseWatchEvent(R"({"type":"MODIFIED","object":{}})")->type == WatchEvent::Type::kModified);
  CHECK(ParseWatchEvent(R"({"type":"DELETED","object":{}})")->type == WatchEvent::Type::kDeleted);
  CHECK(WatchEventTypeName(WatchEvent::Type::kDeleted) == "DELETED");
}

TEST_CASE("A 410 ERROR event is reported as Gone") {
  auto gone = ParseWatchEvent(
      R"j({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 1 (50)"}})j");
  REQUIRE_FALSE(gone.ok());
  CHECK(IsK8sGone(gone.status()));
  CHECK(GetApiError(gone.status())->reason == "Expired");
  CHECK(absl::IsInternal(ParseWatchEvent(R"({"type":"WHAT","object":{}})").status()));
  CHECK(absl::IsInternal(ParseWatchEvent(R"({"type":"ADDED"})").status()));
  CHECK(absl::IsInternal(ParseWatchEvent("{").status()));
}

TEST_CASE("The resource version of an object") {
  CHECK(ResourceVersionOf(R"({"metadata":{"resourceVersion":"5"}})") == "5");
  CHECK(ResourceVersionOf(R"({"metadata":{}})") == "");
  CHECK(ResourceVersionOf("nope") == "");
}

TEST_CASE("An API server's over-long or control-byte event type is quoted bounded") {
  const std::string type = std::string(8995, 'T') + "\\u001b[31m";  // 9000 bytes decoded
  for (const std::string& object : {std::string(R"("object":{})"), std::string(R"("x":1)")}) {
    auto event = ParseWatchEvent(R"({"type":")" + type + R"(",)" + object + "}");
    REQUIRE_FALSE(event.ok());
    std::string message(event.status().message());
    INFO(message.substr(0, 200));
    CHECK(message.size() < 1024);
    CHECK(message.find("(9000 bytes)") != std::string::npos);
    CHECK_FALSE(HasControlByte(message));
  }
}

}  // namespace
}  // namespace kje::k8s
