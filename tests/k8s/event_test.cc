#include "k8s/event.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "rapidjson/document.h"

namespace kje::k8s {
namespace {

rapidjson::Document Doc(const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

TEST_CASE("event: a core/v1 event projects with its recorder's fields", "[event]") {
  auto doc = Doc(R"({"metadata":{"name":"d.1","creationTimestamp":"2026-12-04T10:00:00Z"},
    "involvedObject":{"kind":"Pod","name":"d"},"reason":"Pulling","type":"Normal",
    "message":"Pulling image \"spark:4\"","count":3,
    "source":{"component":"kubelet","host":"node-1"},
    "firstTimestamp":"2026-12-04T10:00:01Z","lastTimestamp":"2026-12-04T10:00:09.5Z"})");
  auto e = ProjectEvent(doc);
  REQUIRE(e.ok());
  CHECK(e->name == "d.1");
  CHECK(e->object_kind == "Pod");
  CHECK(e->object_name == "d");
  CHECK(e->reason == "Pulling");
  CHECK(e->type == "Normal");
  CHECK(e->message == "Pulling image \"spark:4\"");
  CHECK(e->count == 3);
  CHECK(e->source == "kubelet, node-1");
  CHECK(e->first_seen == absl::FromUnixSeconds(1796378401));
  CHECK(e->last_seen == absl::FromUnixMillis(int64_t{1796378409} * 1000 + 500));
}

TEST_CASE("event: an events.k8s.io-style event falls back to eventTime and the series", "[event]") {
  auto doc = Doc(R"({"metadata":{"name":"a.2"},"involvedObject":{"kind":"SparkApplication",
    "name":"a"},"reason":"SparkApplicationFailed","type":"Warning","message":"boom",
    "eventTime":"2026-12-04T10:00:00.000001Z","reportingComponent":"spark-operator",
    "reportingInstance":"spark-operator","series":{"count":4,
    "lastObservedTime":"2026-12-04T10:05:00Z"}})");
  auto e = ProjectEvent(doc);
  REQUIRE(e.ok());
  CHECK(e->count == 4);
  CHECK(e->source == "spark-operator");
  CHECK(e->first_seen == absl::FromUnixMicros(int64_t{1796378400} * 1000000 + 1));
  CHECK(e->last_seen == absl::FromUnixSeconds(1796378700));
}

TEST_CASE("event: hostile shapes give empty fields or an error, never a crash", "[event]") {
  CHECK_FALSE(ProjectEvent(Doc("[]")).ok());
  CHECK_FALSE(ProjectEvent(Doc("\"x\"")).ok());
  auto e = ProjectEvent(Doc(R"({"metadata":7,"involvedObject":[],"reason":1,"count":-2,
    "source":"kubelet","firstTimestamp":"yesterday","series":{"count":"9"}})"));
  REQUIRE(e.ok());
  CHECK(e->name.empty());
  CHECK(e->reason.empty());
  CHECK(e->count == 1);
  CHECK(e->source.empty());
  CHECK_FALSE(e->first_seen.has_value());
  CHECK_FALSE(e->last_seen.has_value());
}

TEST_CASE("event: times no answer's Timestamp can carry are unreadable, as malformed ones are",
          "[event]") {
  // Each is a time absl's RFC 3339 reader accepts: found by events_fuzz.
  for (const char* time :
       {"infinite-past", "infinite-future", "10000-01-01T00:00:00Z", "0000-12-31T23:59:59Z"}) {
    INFO(time);
    auto e = ProjectEvent(Doc(std::string(R"({"firstTimestamp":")") + time +
                              R"(","lastTimestamp":")" + time + R"("})"));
    REQUIRE(e.ok());
    CHECK_FALSE(e->first_seen.has_value());
    CHECK_FALSE(e->last_seen.has_value());
  }
  auto edge = ProjectEvent(Doc(R"({"firstTimestamp":"0001-01-01T00:00:00Z",
    "lastTimestamp":"9999-12-31T23:59:59Z"})"));
  REQUIRE(edge.ok());
  CHECK(edge->first_seen == absl::FromUnixSeconds(-62135596800));
  CHECK(edge->last_seen == absl::FromUnixSeconds(253402300799));
}

TEST_CASE("event: oldest first, ties broken by last time then name", "[event]") {
  auto at = [](int s) { return absl::FromUnixSeconds(s); };
  std::vector<Event> events(4);
  events[0].name = "c";
  events[0].first_seen = at(20);
  events[0].last_seen = at(30);
  events[1].name = "b";
  events[1].first_seen = at(20);
  events[1].last_seen = at(30);
  events[2].name = "a";
  events[2].first_seen = at(20);
  events[2].last_seen = at(25);
  events[3].name = "z";  // no time: first
  SortOldestFirst(events);
  CHECK(events[0].name == "z");
  CHECK(events[1].name == "a");
  CHECK(events[2].name == "b");
  CHECK(events[3].name == "c");
}

}  // namespace
}  // namespace kje::k8s
