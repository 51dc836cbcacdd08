#include "spark/object_meta.h"

#include <catch2/catch.hpp>
#include <string>

namespace kje::spark {
namespace {

std::string Written(const ObjectMeta& meta) {
  rapidjson::StringBuffer buffer;
  json::Writer w(buffer);
  w.StartObject();
  WriteObjectMeta(w, meta);
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

TEST_CASE("A job's resources carry our labels, its job id and its metalake") {
  const ObjectMeta meta = JobObjectMeta("gravitino-job-7", "team-a", "7", "ml");
  CHECK(Written(meta) ==
        R"({"metadata":{"name":"gravitino-job-7","namespace":"team-a","labels":{)"
        R"("app.kubernetes.io/managed-by":"gravitino","gravitino.apache.org/job-id":"7"},)"
        R"("annotations":{"gravitino.apache.org/metalake":"ml"}}})");
  // No metalake, no annotation; no labels, no labels object.
  const ObjectMeta bare = JobObjectMeta("s", "n", "7", "");
  CHECK(bare.annotations.empty());
  ObjectMeta plain;
  plain.name = "s";
  plain.namespace_ = "n";
  CHECK(Written(plain) == R"({"metadata":{"name":"s","namespace":"n"}})");
}

}  // namespace
}  // namespace kje::spark
