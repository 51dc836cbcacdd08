// One upload's rules over a real store (a volume in a temporary directory): content addressing,
// the bounds, the name and checksum checks, and that nothing of a refused file is left.

#include "staging/upload_session.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "staging/sha256.h"
#include "staging/volume_store.h"

namespace kje::staging {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  TempDir() {
    path = fs::temp_directory_path() /
           ("kje-staging-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path path;
  static inline int counter = 0;
};

std::string Read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Files in the store, temporary ones included.
int FilesUnder(const fs::path& root) {
  int n = 0;
  if (!fs::exists(root)) return 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) n += e.is_regular_file();
  return n;
}

const absl::Time kFar = absl::InfiniteFuture();

TEST_CASE(
    "upload: files stored under their digest, answered in order; the same bytes again "
    "store nothing",
    "[staging]") {
  TempDir dir;
  VolumeStore store({dir.path.string(), "claim", "/stage"});
  const std::string jar(100000, 'j');
  const std::string py = "print('hi')\n";
  {
    UploadSession s(store, UploadLimits{}, kFar);
    REQUIRE(s.OnHeader("etl.jar", jar.size(), Sha256Hex(jar)).ok());
    // In uneven chunks, as a stream delivers them.
    REQUIRE(s.OnData(std::string_view(jar).substr(0, 1)).ok());
    REQUIRE(s.OnData(std::string_view(jar).substr(1, 65535)).ok());
    REQUIRE(s.OnData(std::string_view(jar).substr(65536)).ok());
    REQUIRE(s.OnHeader("main.py", py.size(), Sha256Hex(py)).ok());
    REQUIRE(s.OnData(py).ok());
    REQUIRE(s.OnHeader("empty.txt", 0, Sha256Hex("")).ok());
    auto done = s.Finish();
    REQUIRE(done.ok());
    REQUIRE(done->size() == 3);
    CHECK((*done)[0].key.name == "etl.jar");
    CHECK((*done)[0].reference == "staged:sha256:" + Sha256Hex(jar) + "/etl.jar");
    CHECK(!(*done)[0].already_stored);
    CHECK((*done)[1].size == static_cast<int64_t>(py.size()));
    CHECK(Read(dir.path / "sha256" / Sha256Hex(jar) / "etl.jar") == jar);
    CHECK(Read(dir.path / "sha256" / Sha256Hex(py) / "main.py") == py);
  }
  CHECK(FilesUnder(dir.path) == 3);
  // A retry, or another replica over the same volume: already stored, nothing written.
  VolumeStore other({dir.path.string(), "claim", "/stage"});
  UploadSession again(other, UploadLimits{}, kFar);
  REQUIRE(again.OnHeader("etl.jar", jar.size(), Sha256Hex(jar)).ok());
  REQUIRE(again.OnData(jar).ok());
  auto done = again.Finish();
  REQUIRE(done.ok());
  CHECK((*done)[0].already_stored);
  CHECK(FilesUnder(dir.path) == 3);
}

TEST_CASE("upload: a checksum mismatch is refused and leaves nothing", "[staging]") {
  TempDir dir;
  VolumeStore store({dir.path.string(), "claim", "/stage"});
  UploadSession s(store, UploadLimits{}, kFar);
  REQUIRE(s.OnHeader("etl.jar", 4, Sha256Hex("good")).ok());
  absl::Status st = s.OnData("evil");
  REQUIRE(st.code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(st.message()).find("checksum mismatch") != std::string::npos);
  CHECK(FilesUnder(dir.path) == 0);
  CHECK(!s.Finish().ok());
}

TEST_CASE("upload: protocol errors are refused, each saying what was wrong", "[staging]") {
  TempDir dir;
  VolumeStore store({dir.path.string(), "claim", "/stage"});
  auto first_error = [&](auto steps) {
    UploadSession s(store, UploadLimits{}, kFar);
    absl::Status st = steps(s);
    return std::make_pair(st.code(), std::string(st.message()));
  };
  auto [code, msg] = first_error([](UploadSession& s) { return s.OnData("x"); });
  CHECK(code == absl::StatusCode::kInvalidArgument);
  CHECK(msg.find("before a header") != std::string::npos);

  std::tie(code, msg) =
      first_error([](UploadSession& s) { return s.OnHeader("../x.jar", 1, Sha256Hex("x")); });
  CHECK(code == absl::StatusCode::kInvalidArgument);
  CHECK(msg.find("directory separator") != std::string::npos);

  std::tie(code, msg) = first_error([](UploadSession& s) {
    absl::Status h = s.OnHeader("a.jar", 5, Sha256Hex("abcde"));
    if (!h.ok()) return h;
    absl::Status d = s.OnData("ab");
    if (!d.ok()) return d;
    return s.Finish().status();
  });
  CHECK(code == absl::StatusCode::kInvalidArgument);
  CHECK(msg.find("short: 2 of its 5 bytes") != std::string::npos);

  std::tie(code, msg) = first_error([](UploadSession& s) {
    absl::Status h = s.OnHeader("a.jar", 5, Sha256Hex("abcde"));
    if (!h.ok()) return h;
    absl::Status d = s.OnData("ab");
    if (!d.ok()) return d;
    return s.OnHeader("b.jar", 1, Sha256Hex("b"));
  });
  CHECK(code == absl::StatusCode::kInvalidArgument);
  CHECK(msg.find("\"a.jar\" is short") != std::string::npos);

  std::tie(code, msg) = first_error([](UploadSession& s) {
    absl::Status h = s.OnHeader("a.jar", 2, Sha256Hex("ab"));
    if (!h.ok()) return h;
    return s.OnData("abc");
  });
  CHECK(code == absl::StatusCode::kInvalidArgument);
  CHECK(msg.find("longer than") != std::string::npos);

  std::tie(code, msg) = first_error([](UploadSession& s) { return s.OnHeader("a.jar", 1, "ABC"); });
  CHECK(code == absl::StatusCode::kInvalidArgument);
  CHECK(msg.find("64 lower-case hex") != std::string::npos);
  CHECK(FilesUnder(dir.path) == 0);
}

TEST_CASE("upload: the bounds per file, per call and on the files of a call hold", "[staging]") {
  TempDir dir;
  VolumeStore store({dir.path.string(), "claim", "/stage"});
  UploadLimits limits;
  limits.max_file_bytes = 10;
  limits.max_upload_bytes = 15;
  limits.max_files = 2;
  {
    UploadSession s(store, limits, kFar);
    absl::Status st = s.OnHeader("big.jar", 11, Sha256Hex(std::string(11, 'x')));
    CHECK(st.code() == absl::StatusCode::kResourceExhausted);
    CHECK(std::string(st.message()).find("staging.maxFileBytes") != std::string::npos);
  }
  {
    UploadSession s(store, limits, kFar);
    REQUIRE(s.OnHeader("a.jar", 10, Sha256Hex(std::string(10, 'x'))).ok());
    REQUIRE(s.OnData(std::string(10, 'x')).ok());
    absl::Status st = s.OnHeader("b.jar", 6, Sha256Hex(std::string(6, 'y')));
    CHECK(st.code() == absl::StatusCode::kResourceExhausted);
    CHECK(std::string(st.message()).find("staging.maxUploadBytes") != std::string::npos);
  }
  {
    UploadSession s(store, limits, kFar);
    for (const char* name : {"a", "b"}) {
      REQUIRE(s.OnHeader(name, 1, Sha256Hex(name)).ok());
      REQUIRE(s.OnData(name).ok());
    }
    absl::Status st = s.OnHeader("c", 1, Sha256Hex("c"));
    CHECK(st.code() == absl::StatusCode::kResourceExhausted);
    CHECK(std::string(st.message()).find("staging.maxFilesPerUpload") != std::string::npos);
  }
}

TEST_CASE("volume store: local:// URIs under the pods' mount, the mount's conf, list and delete",
          "[staging]") {
  TempDir dir;
  VolumeStore store({dir.path.string(), "shared-claim", "/stage"});
  spark::StagedKey key{Sha256Hex("x"), "x.py"};
  CHECK(*store.ClusterUri(key, absl::Now()) == "local:///stage/sha256/" + key.sha256 + "/x.py");
  bool claim = false;
  for (const auto& [k, v] : store.JobConf()) {
    if (k == "spark.kubernetes.driver.volumes.persistentVolumeClaim.kje-staging.options.claimName")
      claim = v == "shared-claim";
  }
  CHECK(claim);
  auto w = store.StartWrite(key, 1, kFar);
  REQUIRE(w.ok());
  REQUIRE((*w)->Append("x").ok());
  CHECK(!*store.Exists(key, kFar));  // not before Commit
  REQUIRE((*w)->Commit().ok());
  CHECK(*store.Exists(key, kFar));
  auto listed = store.List(kFar);
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 1);
  CHECK((*listed)[0].path == key.ObjectPath());
  CHECK(store.Delete("../etc/passwd", kFar).code() == absl::StatusCode::kInvalidArgument);
  REQUIRE(store.Delete(key.ObjectPath(), kFar).ok());
  REQUIRE(store.Delete(key.ObjectPath(), kFar).ok());  // gone already: fine
  CHECK(!*store.Exists(key, kFar));
}

TEST_CASE(
    "upload: a file found stored counts as uploaded now, so the sweep's grace period covers "
    "the Submit that follows",
    "[staging]") {
  TempDir dir;
  VolumeStore store({dir.path.string(), "claim", "/stage"});
  const std::string jar = "stored long ago";
  const spark::StagedKey key{Sha256Hex(jar), "old.jar"};
  auto w = store.StartWrite(key, jar.size(), kFar);
  REQUIRE(w.ok());
  REQUIRE((*w)->Append(jar).ok());
  REQUIRE((*w)->Commit().ok());
  // Written a day ago, and named by no application since.
  const fs::path file = dir.path / key.ObjectPath();
  const timespec old[2] = {{absl::ToTimeT(absl::Now() - absl::Hours(24)), 0},
                           {absl::ToTimeT(absl::Now() - absl::Hours(24)), 0}};
  REQUIRE(::utimensat(AT_FDCWD, file.c_str(), old, 0) == 0);
  auto modified = [&] {
    auto listed = store.List(kFar);
    REQUIRE(listed.ok());
    REQUIRE(listed->size() == 1);
    return (*listed)[0].modified;
  };
  REQUIRE(modified() < absl::Now() - absl::Hours(23));

  const absl::Time before = absl::FromTimeT(absl::ToTimeT(absl::Now()));
  UploadSession s(store, UploadLimits{}, kFar);
  REQUIRE(s.OnHeader("old.jar", jar.size(), Sha256Hex(jar)).ok());
  REQUIRE(s.OnData(jar).ok());
  auto files = s.Finish();
  REQUIRE(files.ok());
  CHECK((*files)[0].already_stored);
  CHECK(modified() >= before);
  CHECK(Read(file) == jar);

  // Refresh of a file the store doesn't hold: absent, and nothing created.
  const spark::StagedKey gone{Sha256Hex("never"), "never.jar"};
  auto refreshed = store.Refresh(gone, kFar);
  REQUIRE(refreshed.ok());
  CHECK_FALSE(*refreshed);
  CHECK(FilesUnder(dir.path) == 1);
}

TEST_CASE("sha256: the published digests", "[staging]") {
  CHECK(Sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace kje::staging
