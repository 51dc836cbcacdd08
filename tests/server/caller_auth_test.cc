#include "server/caller_auth.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

namespace kje::server {
namespace {

// Writes through a new file and a rename, as a Secret volume update does, so the change is seen
// even within the same second (the size or the inode's time changes).
void WriteToken(const std::string& path, const std::string& token) {
  std::string tmp = path + ".tmp";
  std::ofstream(tmp) << token;
  std::filesystem::rename(tmp, path);
}

TEST_CASE("caller auth: only the exact bearer token passes", "[auth]") {
  std::string path =
      std::filesystem::temp_directory_path() / ("kje_auth_" + std::to_string(getpid()));
  WriteToken(path, "s3cret\n");
  FakeClock clock;
  auto auth = TokenAuthenticator::FromFile(path, clock);
  REQUIRE(auth.ok());
  CHECK((*auth)->Check("Bearer s3cret").ok());
  for (const char* bad : {"", "Bearer", "Bearer ", "bearer s3cret", "Bearer s3cre",
                          "Bearer s3cretx", "Basic s3cret", "s3cret"}) {
    CAPTURE(bad);
    absl::Status s = (*auth)->Check(bad);
    CHECK(absl::IsUnauthenticated(s));
    CHECK(std::string(s.message()).find("s3cret") == std::string::npos);
  }

  // Rotation: the file is looked at on a timer, not per request. Until the next look the old
  // token still works; a caller that already has the new one gets it looked at sooner.
  WriteToken(path, "rotated-token");
  CHECK((*auth)->Check("Bearer s3cret").ok());
  CHECK(absl::IsUnauthenticated((*auth)->Check("Bearer rotated-token")));
  clock.Advance(absl::Milliseconds(100));
  CHECK((*auth)->Check("Bearer rotated-token").ok());
  CHECK(absl::IsUnauthenticated((*auth)->Check("Bearer s3cret")));

  // And on the regular timer, without any mismatch.
  WriteToken(path, "third-token!");
  clock.Advance(absl::Seconds(1));
  CHECK(absl::IsUnauthenticated((*auth)->Check("Bearer rotated-token")));
  CHECK((*auth)->Check("Bearer third-token!").ok());

  // Emptied or removed later: the last token stays in force.
  WriteToken(path, "");
  clock.Advance(absl::Seconds(1));
  CHECK((*auth)->Check("Bearer third-token!").ok());
  std::filesystem::remove(path);
  clock.Advance(absl::Seconds(1));
  CHECK((*auth)->Check("Bearer third-token!").ok());
}

TEST_CASE("caller auth: a missing or empty file at start is an error", "[auth]") {
  auto missing = TokenAuthenticator::FromFile("/nonexistent/token");
  REQUIRE_FALSE(missing.ok());
  CHECK(std::string(missing.status().message()) ==
        "server.tokenFile: missing or empty token file: /nonexistent/token");
  std::string path =
      std::filesystem::temp_directory_path() / ("kje_auth_e_" + std::to_string(getpid()));
  WriteToken(path, "  \n");
  CHECK_FALSE(TokenAuthenticator::FromFile(path).ok());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kje::server
