// The kubelet's termination message: the log's tail with FallbackToLogsOnError on a failure,
// nothing otherwise.

#include "kubesim/sim/termination_message.h"

#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <string>

namespace kubesim::sim {
namespace {

namespace json = boost::json;

std::string Lines(int from, int to) {
  std::string out;
  for (int i = from; i <= to; ++i) out += "line " + std::to_string(i) + "\n";
  return out;
}

json::object Spec(std::string_view policy) {
  json::object c{{"name", "spark-kubernetes-driver"}, {"image", "spark:4"}};
  if (!policy.empty()) c["terminationMessagePolicy"] = policy;
  return json::object{{"containers", json::array{c, json::object{{"name", "sidecar"}}}}};
}

json::object Status(int64_t driver_exit, int64_t sidecar_exit) {
  auto terminated = [](std::string_view name, int64_t code) {
    return json::object{
        {"name", name},
        {"state",
         json::object{{"terminated", json::object{{"exitCode", code},
                                                  {"reason", code ? "Error" : "Completed"}}}}}};
  };
  return json::object{
      {"phase", "Failed"},
      {"containerStatuses", json::array{terminated("spark-kubernetes-driver", driver_exit),
                                        terminated("sidecar", sidecar_exit)}}};
}

const json::object& Terminated(const json::object& status, size_t i) {
  return status.at("containerStatuses").as_array()[i].at("state").at("terminated").as_object();
}

TEST_CASE("termination message: the last 80 lines of the log", "[kubelet]") {
  CHECK(TerminationLogTail("") == "");
  CHECK(TerminationLogTail("only\n") == "only\n");
  CHECK(TerminationLogTail("no newline") == "no newline");
  CHECK(TerminationLogTail(Lines(1, 80)) == Lines(1, 80));
  CHECK(TerminationLogTail(Lines(1, 200)) == Lines(121, 200));
  // A last line without its newline is one of the 80.
  CHECK(TerminationLogTail(Lines(1, 100) + "tail") == Lines(22, 100) + "tail");
  // Empty lines count as lines.
  CHECK(TerminationLogTail(std::string(100, '\n')) == std::string(80, '\n'));
}

TEST_CASE("termination message: at most the last 2048 bytes of those lines", "[kubelet]") {
  const std::string long_line(3000, 'x');
  const std::string tail = TerminationLogTail("first\n" + long_line + "\nlast words\n");
  CHECK(tail.size() == kTerminationLogBytes);
  CHECK(tail.ends_with("x\nlast words\n"));
  // A character cut at the front: each byte left of it reads as U+FFFD.
  const std::string euro = "\xE2\x82\xAC";  // 3 bytes
  std::string log = euro + std::string(kTerminationLogBytes - 2, 'y');
  const std::string cut = TerminationLogTail(log);
  CHECK(cut.starts_with("\xEF\xBF\xBD\xEF\xBF\xBDy"));
  CHECK(cut.size() == 2 * 3 + kTerminationLogBytes - 2);
}

TEST_CASE("termination message: FallbackToLogsOnError fills a failed container's message",
          "[kubelet]") {
  json::object status = Status(1, 2);
  int reads = 0;
  auto read_log = [&](std::string_view container) {
    ++reads;
    return container == "spark-kubernetes-driver" ? Lines(1, 100) : std::string("sidecar\n");
  };
  REQUIRE(NeedsTerminationMessage(status));
  FillTerminationMessages(Spec("FallbackToLogsOnError"), read_log, &status);
  CHECK(Terminated(status, 0).at("message").as_string() == Lines(21, 100));
  CHECK(Terminated(status, 0).at("exitCode").as_int64() == 1);
  // The sidecar's policy is File (its default): no file was written, so no message.
  CHECK_FALSE(Terminated(status, 1).contains("message"));
  CHECK(reads == 1);
}

TEST_CASE("termination message: none for a success, for File, for an empty log", "[kubelet]") {
  auto read_log = [](std::string_view) { return Lines(1, 3); };
  json::object success = Status(0, 0);
  CHECK_FALSE(NeedsTerminationMessage(success));
  FillTerminationMessages(Spec("FallbackToLogsOnError"), read_log, &success);
  CHECK_FALSE(Terminated(success, 0).contains("message"));

  for (std::string_view policy : {"File", ""}) {
    json::object failed = Status(1, 0);
    FillTerminationMessages(Spec(policy), read_log, &failed);
    CHECK_FALSE(Terminated(failed, 0).contains("message"));
  }

  json::object silent = Status(137, 0);
  FillTerminationMessages(
      Spec("FallbackToLogsOnError"), [](std::string_view) { return std::string(); }, &silent);
  CHECK_FALSE(Terminated(silent, 0).contains("message"));
}

TEST_CASE("termination message: a message already there is kept", "[kubelet]") {
  json::object status = Status(1, 0);
  status["containerStatuses"]
      .as_array()[0]
      .as_object()["state"]
      .as_object()["terminated"]
      .as_object()["message"] = "from the file";
  CHECK_FALSE(NeedsTerminationMessage(status));
  FillTerminationMessages(
      Spec("FallbackToLogsOnError"), [](std::string_view) { return std::string("log\n"); },
      &status);
  CHECK(Terminated(status, 0).at("message").as_string() == "from the file");
  // A running container has nothing to explain.
  json::object running{
      {"containerStatuses",
       json::array{json::object{{"name", "spark-kubernetes-driver"},
                                {"state", json::object{{"running", json::object{}}}}}}}};
  CHECK_FALSE(NeedsTerminationMessage(running));
}

}  // namespace
}  // namespace kubesim::sim
