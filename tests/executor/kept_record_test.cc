#include "executor/kept_record.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "rapidjson/document.h"

namespace kje::executor {
namespace {

KeptRecord Sample() {
  KeptRecord r;
  r.pod_name = "job-1-driver";
  r.pod_uid = "uid-9";
  r.stamped_lines = {"2026-12-06T10:00:00Z first", "2026-12-06T10:00:00Z second",
                     "2026-12-06T10:00:01.5Z third line"};
  r.exit_code = 3;
  r.termination_message = "Exception in thread main";
  k8s::Event e;
  e.name = "ev1";
  e.object_kind = "Pod";
  e.object_name = "job-1-driver";
  e.reason = "Failed";
  e.type = "Warning";
  e.message = "the driver failed";
  e.count = 2;
  e.first_seen = absl::FromUnixMillis(1000);
  e.last_seen = absl::FromUnixMillis(2000);
  r.events = {e};
  return r;
}

RecordOwner Owner(bool secret) {
  return RecordOwner{"spark", "job-1", "app-uid", "spark.apache.org/v1", "SparkApplication",
                     "j1",    secret};
}

TEST_CASE("a kept record reads back as it was written, as a ConfigMap or a Secret",
          "[kept_record]") {
  for (bool secret : {false, true}) {
    const std::string json = KeptRecordJson(Owner(secret), Sample());
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    REQUIRE_FALSE(doc.HasParseError());
    CHECK(std::string(doc["kind"].GetString()) == (secret ? "Secret" : "ConfigMap"));
    CHECK(std::string(doc["metadata"]["name"].GetString()) == "job-1-kept");
    const auto& owner = doc["metadata"]["ownerReferences"][0];
    CHECK(std::string(owner["uid"].GetString()) == "app-uid");
    CHECK(std::string(owner["kind"].GetString()) == "SparkApplication");
    // A Secret's data is base64: the log's text doesn't show in it.
    CHECK((json.find("second") == std::string::npos) == secret);
    auto back = ParseKeptRecord(doc);
    REQUIRE(back.ok());
    CHECK(back->pod_name == "job-1-driver");
    CHECK(back->pod_uid == "uid-9");
    CHECK(back->stamped_lines == Sample().stamped_lines);
    CHECK(back->exit_code == 3);
    CHECK(back->termination_message == "Exception in thread main");
    REQUIRE(back->events.size() == 1);
    CHECK(back->events[0].reason == "Failed");
    CHECK(back->events[0].count == 2);
    CHECK(back->events[0].last_seen == absl::FromUnixMillis(2000));
    CHECK(back->not_kept == NotKept::kNo);
  }
}

TEST_CASE("a record without a log says why", "[kept_record]") {
  KeptRecord r;
  r.not_kept = NotKept::kPodGone;
  rapidjson::Document doc;
  doc.Parse(KeptRecordJson(Owner(false), r).c_str());
  auto back = ParseKeptRecord(doc);
  REQUIRE(back.ok());
  CHECK(back->not_kept == NotKept::kPodGone);
  CHECK(back->stamped_lines.empty());
  CHECK_FALSE(back->exit_code.has_value());
  CHECK_FALSE(NotKeptNote(NotKept::kPodGone).empty());
  for (NotKept why : {NotKept::kPodGone, NotKept::kLogUnreadable, NotKept::kNoDriver}) {
    CHECK(NotKeptFromCode(NotKeptCode(why)) == why);
  }
  CHECK(NotKeptFromCode("whatever") == NotKept::kNo);
}

TEST_CASE("an object that isn't a record is refused", "[kept_record]") {
  for (const char* text :
       {R"([])", R"({"kind":"ConfigMap"})", R"({"kind":"ConfigMap","data":{"record":"{nope"}})",
        R"({"kind":"Secret","data":{"record":"***"}})"}) {
    rapidjson::Document doc;
    doc.Parse(text);
    CHECK_FALSE(ParseKeptRecord(doc).ok());
  }
}

TEST_CASE("a record written by someone else is read as outside text", "[kept_record]") {
  // A Secret holds any bytes; anyone who may write Secrets in the namespace may write this one.
  std::string meta =
      std::string(R"({"pod":"p\u00e9","exitCode":4294967297,"terminationMessage":")") +
      std::string(5000, 'x') + R"("})";
  std::string log = "2026-12-06T10:00:00Z caf\xC3 bad\n";
  std::string events =
      R"([{"name":"e","count":-3,"first":9223372036854775807,"last":-9223372036854775807},)"
      R"({"name":"f","first":1000}])";
  std::string text = R"({"kind":"Secret","data":{"record":")" + absl::Base64Escape(meta) +
                     R"(","log":")" + absl::Base64Escape(log) + R"(","events":")" +
                     absl::Base64Escape(events) + R"("}})";
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  auto record = ParseKeptRecord(doc);
  REQUIRE(record.ok());
  CHECK(record->pod_name == "p\xC3\xA9");
  CHECK_FALSE(record->exit_code.has_value());  // past int32: no exit code, not a wrapped one
  CHECK(record->termination_message == std::string(kMaxTerminationMessageBytes, 'x'));
  REQUIRE(record->stamped_lines.size() == 1);
  CHECK(record->stamped_lines[0] == "2026-12-06T10:00:00Z caf\xEF\xBF\xBD bad");
  REQUIRE(record->events.size() == 2);
  CHECK(record->events[0].count == 1);
  CHECK_FALSE(record->events[0].first_seen.has_value());  // beyond a Timestamp's range
  CHECK_FALSE(record->events[0].last_seen.has_value());
  CHECK(record->events[1].first_seen == absl::FromUnixMillis(1000));
}

TEST_CASE("output from a record is its tail without stamps, within the caps", "[kept_record]") {
  KeptRecord r = Sample();
  auto all = KeptTail(r, 10, 1000);
  CHECK(all.lines == std::vector<std::string>{"first", "second", "third line"});
  CHECK_FALSE(all.truncated);
  auto two = KeptTail(r, 2, 1000);
  CHECK(two.lines == std::vector<std::string>{"second", "third line"});
  CHECK(two.truncated);
  // "third line\n" is 11 bytes: a 17-byte cap holds it and not "second\n" too.
  auto bytes = KeptTail(r, 10, 17);
  CHECK(bytes.lines == std::vector<std::string>{"third line"});
  CHECK(bytes.truncated);
  auto exact = KeptTail(r, 10, 18);
  CHECK(exact.lines == std::vector<std::string>{"second", "third line"});
  r.truncated = true;  // the record itself lost older lines
  CHECK(KeptTail(r, 10, 1000).truncated);
}

TEST_CASE("the last events are kept, oldest first", "[kept_record]") {
  std::vector<k8s::Event> events;
  for (int i = 5; i >= 1; --i) {
    k8s::Event e;
    e.name = "e" + std::to_string(i);
    e.first_seen = absl::FromUnixSeconds(i);
    events.push_back(e);
  }
  bool truncated = false;
  auto last = LastEvents(events, 2, &truncated);
  CHECK(truncated);
  REQUIRE(last.size() == 2);
  CHECK(last[0].name == "e4");
  CHECK(last[1].name == "e5");
  LastEvents(events, 5, &truncated);
  CHECK_FALSE(truncated);
}

TEST_CASE("a termination message keeps its last bytes on a character", "[kept_record]") {
  CHECK(CapTerminationMessage("short") == "short");
  std::string long_text = std::string(3000, 'a') + "\xC3\xA9" + std::string(2047, 'b');
  std::string capped = CapTerminationMessage(long_text);
  CHECK(capped.size() <= kMaxTerminationMessageBytes);
  CHECK(capped == std::string(2047, 'b'));  // the cut fell inside "é": it starts after it
}

}  // namespace
}  // namespace kje::executor
