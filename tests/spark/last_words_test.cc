// The driver's last words: the template that asks for them, the line that says why, and a failed
// job's message.

#include "spark/last_words.h"

#include <catch2/catch.hpp>
#include <string>

#include "rapidjson/document.h"
#include "spark/app_projection.h"

namespace kje::spark {
namespace {

rapidjson::Document Parse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

std::string SparkPolicy(const rapidjson::Document& doc) {
  const auto& c = doc["spec"]["containers"][0];
  return c.HasMember("terminationMessagePolicy") ? c["terminationMessagePolicy"].GetString() : "";
}

TEST_CASE("last words: the driver's template asks the kubelet for them", "[last_words]") {
  auto empty = Parse(WithTerminationFallback(""));
  CHECK(std::string(empty["spec"]["containers"][0]["name"].GetString()) ==
        "spark-kubernetes-driver");
  CHECK(SparkPolicy(empty) == "FallbackToLogsOnError");
  CHECK(empty["spec"]["containers"].Size() == 1);

  // A template's own content stays; the policy goes on Spark's container (the first), not on a
  // sidecar.
  auto custom = Parse(WithTerminationFallback(
      R"({"metadata":{"labels":{"team":"a"}},"spec":{"containers":[{"name":"spark-kubernetes-driver",
          "env":[{"name":"A","value":"1"}]},{"name":"side","image":"busybox"}]}})"));
  CHECK(SparkPolicy(custom) == "FallbackToLogsOnError");
  CHECK(std::string(custom["metadata"]["labels"]["team"].GetString()) == "a");
  CHECK(custom["spec"]["containers"][0]["env"].Size() == 1);
  CHECK_FALSE(custom["spec"]["containers"][1].HasMember("terminationMessagePolicy"));

  // The user's own choice wins.
  auto own = Parse(WithTerminationFallback(
      R"({"spec":{"containers":[{"name":"spark-kubernetes-driver","terminationMessagePolicy":"File"}]}})"));
  CHECK(SparkPolicy(own) == "File");
}

TEST_CASE("last words: the line that says why, not the shutdown's chatter", "[last_words]") {
  const std::string java =
      "26/05/12 10:00:02 INFO DAGScheduler: Job 0 failed: reduce at SparkPi.scala:38\n"
      "Exception in thread \"main\" org.apache.spark.SparkException: Job aborted\n"
      "\tat org.apache.spark.SparkContext.runJob(SparkContext.scala:2470)\n"
      "Caused by: java.lang.RuntimeException: boom\n"
      "\tat org.apache.spark.examples.SparkPi$.main(SparkPi.scala:34)\n"
      "\t... 3 more\n"
      "26/05/12 10:00:02 INFO SparkContext: SparkContext is stopping with exitCode 1.\n"
      "26/05/12 10:00:02 INFO ShutdownHookManager: Shutdown hook called\n";
  CHECK(LastWords(java) == "Caused by: java.lang.RuntimeException: boom");
  const std::string python =
      "Traceback (most recent call last):\n"
      "  File \"/opt/job.py\", line 3, in <module>\n"
      "    raise ValueError('bad input')\n"
      "ValueError: bad input\n\n";
  CHECK(LastWords(python) == "ValueError: bad input");
  // An ERROR line is a complaint.
  CHECK(LastWords("26/05/12 10:00:02 ERROR Main: cannot read s3a://b/x\n"
                  "26/05/12 10:00:03 INFO ShutdownHookManager: Shutdown hook called\n") ==
        "26/05/12 10:00:02 ERROR Main: cannot read s3a://b/x");
  // Nothing but chatter: its last line.
  CHECK(LastWords("26/05/12 10:00:02 INFO A: one\n26/05/12 10:00:03 INFO B: two\n") ==
        "26/05/12 10:00:03 INFO B: two");
  CHECK(LastWords("") == "");
  CHECK(LastWords(" \n\t\n") == "");
  // Long words keep their end, on a character boundary.
  const std::string long_line = "x\xE2\x82\xAC" + std::string(kMaxLastWordsBytes, 'y') + "end";
  const std::string words = LastWords(long_line);
  CHECK(words.size() <= kMaxLastWordsBytes);
  CHECK(words.ends_with("yend"));
  CHECK((static_cast<unsigned char>(words.front()) & 0xC0) != 0x80);
}

TEST_CASE("last words: a failed job's message ends with the exit code and them", "[last_words]") {
  CHECK(WithLastWords("Driver failed", JobStatus::kFailed, "boom: bad input", 1) ==
        "Driver failed; driver exit code 1: boom: bad input");
  CHECK(WithLastWords("", JobStatus::kFailed, "boom", std::nullopt) == "driver: boom");
  CHECK(WithLastWords("", JobStatus::kFailed, "boom", 137) == "driver exit code 137: boom");
  // Said already, or not failed, or nothing said: unchanged.
  CHECK(WithLastWords("boom happened", JobStatus::kFailed, "boom", 1) == "boom happened");
  CHECK(WithLastWords("done", JobStatus::kSucceeded, "bye", 0) == "done");
  CHECK(WithLastWords("failed", JobStatus::kFailed, "  ", 1) == "failed");
  // Bounded whatever it is given.
  const std::string long_words(2000, 'x');
  CHECK(WithLastWords("m", JobStatus::kFailed, long_words, 1).size() ==
        std::string("m; driver exit code 1: ").size() + kMaxLastWordsBytes);
}

TEST_CASE("last words: kept on the application, read back masked and bounded", "[last_words]") {
  auto project = [](const std::string& words) {
    rapidjson::Document app;
    app.SetObject();
    auto& alloc = app.GetAllocator();
    rapidjson::Value annotations(rapidjson::kObjectType);
    annotations.AddMember(rapidjson::Value(std::string(kAnnotationLastWords).c_str(), alloc),
                          rapidjson::Value(words.c_str(), alloc), alloc);
    rapidjson::Value metadata(rapidjson::kObjectType);
    metadata.AddMember("name", "gravitino-job-1", alloc);
    metadata.AddMember("namespace", "spark-jobs", alloc);
    metadata.AddMember("annotations", annotations, alloc);
    app.AddMember("metadata", metadata, alloc);
    auto fields = ProjectMetadata(app);
    REQUIRE(fields.ok());
    return AppProjection(*fields).ToFields().last_words;
  };
  CHECK(project("Caused by: java.lang.RuntimeException: boom") ==
        "Caused by: java.lang.RuntimeException: boom");
  // Anyone may edit an annotation: a secret in it is masked, a long one cut.
  CHECK(project("failed with --password=hunter2") == "failed with --password=******");
  CHECK(project(std::string(4000, 'z')).size() <= kMaxLastWordsBytes + 3);
}

}  // namespace
}  // namespace kje::spark
