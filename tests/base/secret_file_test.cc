#include "base/secret_file.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace kje {
namespace {

std::string PathOf(const char* name) {
  return std::filesystem::temp_directory_path() /
         (std::string("kje_secret_") + name + "_" + std::to_string(getpid()));
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// As the kubelet rotates a mounted Secret: a new file renamed over the old one.
void Replace(const std::string& path, const std::string& text) {
  Write(path + ".new", text);
  std::filesystem::rename(path + ".new", path);
}

TEST_CASE("secret file: missing or empty at start is an error that names the file, not a value") {
  const std::string path = PathOf("start");
  std::filesystem::remove(path);
  absl::StatusOr<std::unique_ptr<SecretFile>> missing = SecretFile::Open(path, "token file");
  CHECK(absl::IsNotFound(missing.status()));
  CHECK(missing.status().message() == "token file " + path + " does not exist");
  Write(path, " \n");
  CHECK(absl::IsFailedPrecondition(SecretFile::Open(path, "token file").status()));
  Write(path, "  s3cret\n");
  absl::StatusOr<std::unique_ptr<SecretFile>> file = SecretFile::Open(path, "token file");
  REQUIRE(file.ok());
  CHECK((*file)->Value() == "s3cret");
  CHECK((*file)->Equals("s3cret"));
  CHECK_FALSE((*file)->Equals("s3cre"));
  CHECK_FALSE((*file)->Equals("s3cretx"));
  std::filesystem::remove(path);
}

TEST_CASE("secret file: a shorter interval brings the next look forward, never closer than it") {
  const std::string path = PathOf("interval");
  Write(path, "one");
  FakeClock clock;
  auto file = SecretFile::Open(path, "token file", clock, absl::Seconds(1));
  REQUIRE(file.ok());
  Write(path, "two!");
  (*file)->MaybeReload(absl::Milliseconds(100));  // no time has passed
  CHECK((*file)->Value() == "one");
  clock.Advance(absl::Milliseconds(99));
  (*file)->MaybeReload(absl::Milliseconds(100));
  CHECK((*file)->Value() == "one");
  clock.Advance(absl::Milliseconds(1));
  (*file)->MaybeReload();  // the regular look isn't due yet
  CHECK((*file)->Value() == "one");
  (*file)->MaybeReload(absl::Milliseconds(100));
  CHECK((*file)->Value() == "two!");
  std::filesystem::remove(path);
}

TEST_CASE("secret file: readers never wait for the look and always see a whole value", "[tsan]") {
  const std::string path = PathOf("threads");
  Write(path, "aaaa");
  FakeClock clock;
  auto file = SecretFile::Open(path, "token file", clock, absl::ZeroDuration());
  REQUIRE(file.ok());
  std::atomic<bool> stop{false};
  std::vector<std::thread> readers;
  std::atomic<int> torn{0};
  for (int i = 0; i < 4; ++i) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        (*file)->MaybeReload();
        const std::string value = (*file)->Value();
        if (value != "aaaa" && value != "bbbbbb") torn.fetch_add(1);
      }
    });
  }
  for (int round = 0; round < 200; ++round) {
    Replace(path, round % 2 == 0 ? "bbbbbb" : "aaaa");
    (*file)->Invalidate();
  }
  stop.store(true);
  for (std::thread& t : readers) t.join();
  CHECK(torn.load() == 0);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kje
