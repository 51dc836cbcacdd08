#include "k8s/watch_stream.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "k8s/errors.h"

namespace kje::k8s {
namespace {

std::string Event(const std::string& type, const std::string& rv) {
  return R"({"type":")" + type + R"(","object":{"metadata":{"name":"a","resourceVersion":")" + rv +
         R"("}}})";
}

struct Collected {
  std::vector<std::string> versions;
  WatchStreamDecoder::EventCallback callback() {
    return [this](const WatchEvent& e) { versions.push_back(e.resource_version); };
  }
};

TEST_CASE("Events split at every byte arrive whole and in order") {
  std::string body = Event("ADDED", "1") + "\n" + Event("MODIFIED", "2") + "\r\n\n  \n" +
                     Event("DELETED", "3") + "\n";
  for (size_t step = 1; step <= body.size(); ++step) {
    WatchStreamDecoder decoder("sparkapplications", 1 << 20);
    Collected got;
    for (size_t i = 0; i < body.size(); i += step) {
      REQUIRE(decoder.Feed(std::string_view(body).substr(i, step), got.callback()).ok());
    }
    CHECK(got.versions == std::vector<std::string>{"1", "2", "3"});
    CHECK(decoder.pending_bytes() == 0);
  }
}

TEST_CASE("An unfinished line waits for its line feed") {
  WatchStreamDecoder decoder("pods", 1 << 20);
  Collected got;
  std::string line = Event("ADDED", "7");
  REQUIRE(decoder.Feed(line, got.callback()).ok());
  CHECK(got.versions.empty());
  CHECK(decoder.pending_bytes() == line.size());
  REQUIRE(decoder.Feed("\n", got.callback()).ok());
  CHECK(got.versions == std::vector<std::string>{"7"});
}

TEST_CASE("A line longer than the limit is refused, a line of exactly the limit is not") {
  std::string line = Event("ADDED", "1");
  WatchStreamDecoder exact("pods", line.size());
  Collected got;
  REQUIRE(exact.Feed(line, got.callback()).ok());
  REQUIRE(exact.Feed("\n", got.callback()).ok());
  CHECK(got.versions.size() == 1);

  WatchStreamDecoder small("pods", line.size() - 1);
  absl::Status s = small.Feed(line, got.callback());
  CHECK(absl::IsResourceExhausted(s));
  CHECK(s.message() == "kubernetes: a watch event of pods is larger than " +
                           std::to_string(line.size() - 1) + " bytes");
}

TEST_CASE("A malformed line ends the stream after the events before it") {
  WatchStreamDecoder decoder("pods", 1 << 20);
  Collected got;
  absl::Status s = decoder.Feed(Event("ADDED", "1") + "\nnot json\n" + Event("ADDED", "2") + "\n",
                                got.callback());
  CHECK(absl::IsInternal(s));
  CHECK(got.versions == std::vector<std::string>{"1"});
}

TEST_CASE("An ERROR event becomes its status") {
  WatchStreamDecoder decoder("pods", 1 << 20);
  Collected got;
  absl::Status s = decoder.Feed(
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old"}})"
      "\n",
      got.callback());
  CHECK(IsK8sGone(s));
  CHECK(got.versions.empty());
}

TEST_CASE("Reset drops the unfinished line of a broken stream") {
  WatchStreamDecoder decoder("pods", 1 << 20);
  Collected got;
  REQUIRE(decoder.Feed(R"({"type":"ADDED","obj)", got.callback()).ok());
  decoder.Reset();
  CHECK(decoder.pending_bytes() == 0);
  REQUIRE(decoder.Feed(Event("ADDED", "5") + "\n", got.callback()).ok());
  CHECK(got.versions == std::vector<std::string>{"5"});
}

}  // namespace
}  // namespace kje::k8s
