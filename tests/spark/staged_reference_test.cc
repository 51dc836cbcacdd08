// Staged references: their format, the name and digest checks, the rewrite into the store's URIs
// that the operator-neutral resolution does (on both operators' builders), and the scan the sweep
// keeps objects by.

#include "spark/staged_reference.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "spark/operators.h"
#include "spark/resolved_job.h"

namespace kje::spark {
namespace {

const std::string kHex(64, 'a');
const std::string kOtherHex = std::string(63, 'b') + "0";

TEST_CASE("staged names: plain file names pass; slashes, dots and odd bytes are refused",
          "[staged]") {
  for (const char* good : {"etl.jar", "job_1.py", "deps-2.0.zip", "A"}) {
    CAPTURE(good);
    CHECK(CheckStagedName(good).ok());
  }
  for (const char* bad :
       {"", ".", "..", "../etl.jar", "a/b.jar", "a\\b.jar", ".hidden", "a b.py", "x;rm", "tab\t"}) {
    CAPTURE(bad);
    absl::Status s = CheckStagedName(bad);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  }
  CHECK(CheckStagedName(std::string(kMaxStagedNameBytes, 'a')).ok());
  CHECK(!CheckStagedName(std::string(kMaxStagedNameBytes + 1, 'a')).ok());
  CHECK(IsSha256Hex(kHex));
  CHECK(!IsSha256Hex(std::string(64, 'A')));
  CHECK(!IsSha256Hex(std::string(63, 'a')));
}

TEST_CASE("staged references: a key's reference parses back to it; malformed ones name themselves",
          "[staged]") {
  StagedKey key{kHex, "etl.jar"};
  CHECK(key.Reference() == "staged:sha256:" + kHex + "/etl.jar");
  CHECK(key.ObjectPath() == "sha256/" + kHex + "/etl.jar");
  auto parsed = ParseStagedReference(key.Reference());
  REQUIRE(parsed.ok());
  CHECK(*parsed == key);
  for (std::string bad :
       {std::string("staged:md5:abc/x.jar"), "staged:sha256:" + kHex,
        "staged:sha256:" + kHex + "/../x.jar", std::string("staged:sha256:xyz/x.jar")}) {
    CAPTURE(bad);
    auto r = ParseStagedReference(bad);
    REQUIRE(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(r.status().message()).find("staged:") != std::string::npos);
  }
}

SparkTemplate WithReferences() {
  SparkTemplate t;
  t.name = "etl";
  t.executable = StagedKey{kHex, "main.py"}.Reference();
  t.jars = {"s3a://bucket/lib.jar", StagedKey{kOtherHex, "dep.jar"}.Reference()};
  t.files = {StagedKey{kHex, "main.py"}.Reference()};
  return t;
}

TEST_CASE("staged references: listed once each; rewritten to their URIs, or refused by name",
          "[staged]") {
  SparkTemplate t = WithReferences();
  std::vector<std::string> refs = StagedReferencesOf(t);
  REQUIRE(refs.size() == 2);
  CHECK(refs[0] == t.executable);
  CHECK(refs[1] == t.jars[1]);

  t.staged_uris = {{refs[0], "local:///stage/sha256/" + kHex + "/main.py"},
                   {refs[1], "https://s3/b/sha256/" + kOtherHex + "/dep.jar?X-Amz-Signature=1"}};
  auto rewritten = WithStagedUris(t, "\"etl\"");
  REQUIRE(rewritten.ok());
  CHECK(rewritten->executable == "local:///stage/sha256/" + kHex + "/main.py");
  CHECK(rewritten->jars[0] == "s3a://bucket/lib.jar");
  CHECK(rewritten->jars[1] == t.staged_uris[refs[1]]);
  CHECK(rewritten->files[0] == rewritten->executable);

  t.staged_uris.erase(refs[1]);
  auto missing = WithStagedUris(t, "\"etl\"");
  REQUIRE(missing.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(missing.status().message()).find(refs[1]) != std::string::npos);
}

TEST_CASE("staged references: both operators' applications carry the URIs and the store's conf",
          "[staged]") {
  for (const char* op : {"apache", "kubeflow"}) {
    CAPTURE(op);
    BuilderOptions options;
    options.image = "apache/spark:3.5.6";
    options.spark_version = "3.5.6";
    auto backend = NewOperatorBackend(op, OperatorOptions{});
    REQUIRE(backend.ok());
    SparkTemplate t = WithReferences();
    // Not looked up: the reference stays unknown and the job is refused, naming it.
    auto refused = (*backend)->Build("7", "m", t, options);
    REQUIRE(refused.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(refused.status().message()).find(t.executable) != std::string::npos);

    for (const std::string& ref : StagedReferencesOf(t)) {
      t.staged_uris[ref] = "local:///stage/" + ParseStagedReference(ref)->ObjectPath();
    }
    t.staged_conf = {
        {"spark.kubernetes.driver.volumes.persistentVolumeClaim.s.mount.path", "/stage"}};
    auto built = (*backend)->Build("7", "m", t, options);
    REQUIRE(built.ok());
    CHECK(built->json.find("staged:") == std::string::npos);
    CHECK(built->json.find("local:///stage/sha256/" + kHex + "/main.py") != std::string::npos);
    CHECK(built->json.find("persistentVolumeClaim.s.mount.path") != std::string::npos);
    std::vector<std::string> kept = StagedObjectPathsIn(built->json);
    CHECK(kept == std::vector<std::string>{"sha256/" + kHex + "/main.py",
                                           "sha256/" + kOtherHex + "/dep.jar"});
  }
}

TEST_CASE("staged paths in a text: each distinct path once, nothing that only looks alike",
          "[staged]") {
  std::string text = "x sha256/" + kHex + "/a.jar?sig y \"sha256/" + kHex + "/a.jar\" sha256/" +
                     std::string(64, 'g') + "/b.jar sha256/" + kHex + "/.hidden sha256/" +
                     kOtherHex + "/c.py";
  CHECK(StagedObjectPathsIn(text) ==
        std::vector<std::string>{"sha256/" + kHex + "/a.jar", "sha256/" + kOtherHex + "/c.py"});
}

}  // namespace
}  // namespace kje::spark
