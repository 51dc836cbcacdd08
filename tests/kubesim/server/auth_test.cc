#include "kubesim/server/auth.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

namespace kubesim {
namespace {

std::string TempPath() {
  char dir[] = "/tmp/kubesim-auth-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  return std::string(dir) + "/token";
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

TEST_CASE("A fixed token authenticates exactly its bearer", "[auth]") {
  TokenFile tokens("", "s3cret");
  CHECK(tokens.Check("Bearer s3cret"));
  CHECK(tokens.Check("bearer s3cret"));
  CHECK_FALSE(tokens.Check("Bearer s3cre"));
  CHECK_FALSE(tokens.Check("Bearer s3cret2"));
  CHECK_FALSE(tokens.Check("Basic s3cret"));
  CHECK_FALSE(tokens.Check(""));
  CHECK_FALSE(tokens.Check("Bearer "));
  CHECK(tokens.Current() == "s3cret");
}

TEST_CASE("The token file is re-read when it changes", "[auth]") {
  std::string path = TempPath();
  WriteText(path, "first-token\n");
  TokenFile tokens(path, "");
  CHECK(tokens.Check("Bearer first-token"));
  // A different size is a change even within the file system's timestamp granularity.
  WriteText(path, "second-token-longer\n");
  CHECK_FALSE(tokens.Check("Bearer first-token"));
  CHECK(tokens.Check("Bearer second-token-longer"));
  CHECK(tokens.Current() == "second-token-longer");
  // Same size, different content: detected through the modification time.
  struct timespec times[2] = {{0, UTIME_OMIT}, {1, 0}};
  WriteText(path, "third--token-longer\n");
  REQUIRE(utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
  CHECK(tokens.Check("Bearer third--token-longer"));
  // A removed file accepts nothing.
  std::remove(path.c_str());
  CHECK_FALSE(tokens.Check("Bearer third--token-longer"));
  WriteText(path, "fourth");
  CHECK(tokens.Check("Bearer fourth"));
  std::remove(path.c_str());
}

TEST_CASE("An empty token file accepts no token", "[auth]") {
  std::string path = TempPath();
  WriteText(path, "\n");
  TokenFile tokens(path, "");
  CHECK_FALSE(tokens.Check("Bearer "));
  CHECK_FALSE(tokens.Check("Bearer x"));
  std::remove(path.c_str());
}

TEST_CASE("ConstantTimeEquals compares whole strings", "[auth]") {
  CHECK(ConstantTimeEquals("abc", "abc"));
  CHECK_FALSE(ConstantTimeEquals("abc", "abd"));
  CHECK_FALSE(ConstantTimeEquals("abc", "ab"));
  CHECK_FALSE(ConstantTimeEquals("", "a"));
  CHECK(ConstantTimeEquals("", ""));
}

}  // namespace
}  // namespace kubesim
