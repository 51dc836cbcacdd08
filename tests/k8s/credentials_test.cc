#include "k8s/credentials.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <mutex>
#include <vector>

#include "base/log.h"
#include "tests/k8s/test_util.h"

namespace kje::k8s {
namespace {

using testing::TempDir;

class FakeClock final : public Clock {
 public:
  absl::Time Now() const override { return now_; }
  void Advance(absl::Duration d) { now_ += d; }
  void Set(absl::Time t) { now_ = t; }

 private:
  absl::Time now_ = absl::FromUnixSeconds(1'700'000'000);
};

// Captures log lines for the duration of a test.
class LogCapture {
 public:
  LogCapture() {
    log::SetSinkForTesting([this](std::string_view line) {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.emplace_back(line);
    });
  }
  ~LogCapture() { log::SetSinkForTesting(nullptr); }
  int Count(std::string_view needle) {
    std::lock_guard<std::mutex> lock(mu_);
    int n = 0;
    for (const auto& l : lines_) n += l.find(needle) != std::string::npos;
    return n;
  }
  bool Contains(std::string_view needle) { return Count(needle) > 0; }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

TEST_CASE("A missing or empty token file at start is a clear error") {
  TempDir dir;
  auto missing = TokenFileCredentialProvider::Create(dir.File("token"));
  REQUIRE_FALSE(missing.ok());
  CHECK(std::string(missing.status().message()).find("does not exist") != std::string::npos);
  dir.Write("token", "  \n");
  auto empty = TokenFileCredentialProvider::Create(dir.File("token"));
  REQUIRE_FALSE(empty.ok());
  CHECK(std::string(empty.status().message()).find("is empty") != std::string::npos);
}

TEST_CASE("The token file is re-read when it changes") {
  TempDir dir;
  dir.Write("token", "first\n");
  FakeClock clock;
  auto provider = TokenFileCredentialProvider::Create(dir.File("token"), "", "", clock);
  REQUIRE(provider.ok());
  CHECK((*provider)->Get()->bearer_token == "first");
  // Looked at on a timer, not per request: until the next look, the token stays.
  dir.Write("token", "second-token");
  CHECK((*provider)->Get()->bearer_token == "first");
  // A different size is a different file version even within one mtime tick.
  clock.Advance(absl::Seconds(1));
  CHECK((*provider)->Get()->bearer_token == "second-token");
  // Atomic replacement (new inode), as kubelet does for projected tokens.
  dir.Write("token.new", "third");
  std::filesystem::rename(dir.File("token.new"), dir.File("token"));
  clock.Advance(absl::Seconds(1));
  CHECK((*provider)->Get()->bearer_token == "third");
}

TEST_CASE("An emptied or removed token file keeps the last token and warns once") {
  TempDir dir;
  dir.Write("token", "good");
  FakeClock clock;
  auto provider = TokenFileCredentialProvider::Create(dir.File("token"), "", "", clock);
  REQUIRE(provider.ok());
  LogCapture logs;
  dir.Write("token", "");
  clock.Advance(absl::Seconds(1));
  CHECK((*provider)->Get()->bearer_token == "good");
  clock.Advance(absl::Seconds(1));
  CHECK((*provider)->Get()->bearer_token == "good");
  CHECK(logs.Count("keeping the last token") == 1);
  std::filesystem::remove(dir.File("token"));
  clock.Advance(absl::Seconds(1));
  CHECK((*provider)->Get()->bearer_token == "good");
  clock.Advance(absl::Seconds(1));
  CHECK((*provider)->Get()->bearer_token == "good");
  CHECK(logs.Count("keeping the last token") == 2);
  CHECK_FALSE(logs.Contains("good"));  // the token never reaches a log
  dir.Write("token", "fresh");
  clock.Advance(absl::Seconds(1));
  CHECK((*provider)->Get()->bearer_token == "fresh");
}

TEST_CASE("Invalidate forces a re-read of an unchanged-looking file") {
  TempDir dir;
  dir.Write("token", "aaaa");
  auto provider = TokenFileCredentialProvider::Create(dir.File("token"));
  REQUIRE(provider.ok());
  CHECK((*provider)->Get()->bearer_token == "aaaa");
  // Same size; restore the old mtime so stat cannot tell the difference.
  auto mtime = std::filesystem::last_write_time(dir.File("token"));
  dir.Write("token", "bbbb");
  std::filesystem::last_write_time(dir.File("token"), mtime);
  CHECK((*provider)->Get()->bearer_token == "aaaa");
  (*provider)->Invalidate();
  CHECK((*provider)->Get()->bearer_token == "bbbb");
}

// An exec plugin: counts its runs in a file and prints what $PLUGIN_OUTPUT names.
std::string WritePlugin(const TempDir& dir) {
  return dir.Write(
      "plugin.sh",
      "#!/bin/sh\n"
      "echo run >> \"$RUNS_FILE\"\n"
      "case \"$KUBERNETES_EXEC_INFO\" in *'\"interactive\":false'*) ;; *) exit 9;; esac\n"
      "cat \"$PLUGIN_OUTPUT\"\n",
      0755);
}

ExecConfig PluginConfig(const TempDir& dir, const std::string& api_version) {
  ExecConfig config;
  config.api_version = api_version;
  config.command = WritePlugin(dir);
  config.env = {{"RUNS_FILE", dir.File("runs")}, {"PLUGIN_OUTPUT", dir.File("out.json")}};
  return config;
}

std::string Credential(const std::string& api_version, const std::string& status) {
  return R"({"apiVersion":")" + api_version + R"(","kind":"ExecCredential","status":)" + status +
         "}";
}

TEST_CASE("An exec plugin token is cached until shortly before it expires") {
  TempDir dir;
  FakeClock clock;
  const std::string v1 = "client.authentication.k8s.io/v1";
  dir.Write("out.json",
            Credential(v1, R"({"token":"tok-1","expirationTimestamp":")" +
                               absl::FormatTime(absl::RFC3339_full, clock.Now() + absl::Minutes(5),
                                                absl::UTCTimeZone()) +
                               R"("})"));
  ExecCredentialProvider provider(PluginConfig(dir, v1), clock);
  auto first = provider.Get();
  REQUIRE(first.ok());
  CHECK(first->bearer_token == "tok-1");
  CHECK(provider.Get()->bearer_token == "tok-1");
  CHECK(provider.runs() == 1);
  clock.Advance(absl::Minutes(4));
  CHECK(provider.Get()->bearer_token == "tok-1");
  CHECK(provider.runs() == 1);
  dir.Write("out.json", Credential(v1, R"({"token":"tok-2"})"));
  clock.Advance(absl::Seconds(55));  // within the refresh margin of the expiry
  CHECK(provider.Get()->bearer_token == "tok-2");
  CHECK(provider.runs() == 2);
  // No expiry: cached until a 401 invalidates it.
  clock.Advance(absl::Hours(100));
  CHECK(provider.Get()->bearer_token == "tok-2");
  CHECK(provider.runs() == 2);
  dir.Write("out.json", Credential(v1, R"({"token":"tok-3"})"));
  provider.Invalidate();
  CHECK(provider.Get()->bearer_token == "tok-3");
  CHECK(provider.runs() == 3);
}

TEST_CASE("An exec plugin can return a client certificate (v1beta1)") {
  TempDir dir;
  FakeClock clock;
  const std::string v1beta1 = "client.authentication.k8s.io/v1beta1";
  dir.Write("out.json",
            Credential(v1beta1, R"({"clientCertificateData":"CERT","clientKeyData":"KEY"})"));
  ExecCredentialProvider provider(PluginConfig(dir, v1beta1), clock);
  auto creds = provider.Get();
  REQUIRE(creds.ok());
  CHECK(creds->client_cert_pem == "CERT");
  CHECK(creds->client_key_pem == "KEY");
  CHECK(creds->bearer_token.empty());
}

TEST_CASE("Exec plugin failures are reported without their output") {
  TempDir dir;
  FakeClock clock;
  const std::string v1 = "client.authentication.k8s.io/v1";
  SECTION("wrong apiVersion") {
    dir.Write("out.json", Credential("client.authentication.k8s.io/v1beta1", R"({"token":"s3"})"));
    auto r = ExecCredentialProvider(PluginConfig(dir, v1), clock).Get();
    REQUIRE_FALSE(r.ok());
    CHECK(std::string(r.status().message()).find("apiVersion") != std::string::npos);
    CHECK(std::string(r.status().message()).find("s3") == std::string::npos);
  }
  SECTION("not JSON") {
    dir.Write("out.json", "token=secret");
    auto r = ExecCredentialProvider(PluginConfig(dir, v1), clock).Get();
    REQUIRE_FALSE(r.ok());
    CHECK(std::string(r.status().message()).find("secret") == std::string::npos);
  }
  SECTION("neither token nor certificate") {
    dir.Write("out.json", Credential(v1, "{}"));
    auto r = ExecCredentialProvider(PluginConfig(dir, v1), clock).Get();
    REQUIRE_FALSE(r.ok());
    CHECK(std::string(r.status().message()).find("neither") != std::string::npos);
  }
  SECTION("non-zero exit") {
    ExecConfig config = PluginConfig(dir, v1);
    config.command = dir.Write("fail.sh", "#!/bin/sh\nexit 3\n", 0755);
    config.install_hint = "install the helper";
    auto r = ExecCredentialProvider(config, clock).Get();
    REQUIRE_FALSE(r.ok());
    CHECK(std::string(r.status().message()).find("exit code 3") != std::string::npos);
    CHECK(std::string(r.status().message()).find("install the helper") != std::string::npos);
  }
  SECTION("missing command") {
    ExecConfig config = PluginConfig(dir, v1);
    config.command = "kje-no-such-plugin-anywhere";
    auto r = ExecCredentialProvider(config, clock).Get();
    REQUIRE_FALSE(r.ok());
    CHECK(std::string(r.status().message()).find("could not be started") != std::string::npos);
  }
  SECTION("a plugin that hangs is killed at its timeout") {
    ExecConfig config = PluginConfig(dir, v1);
    config.command = dir.Write("hang.sh", "#!/bin/sh\nexec sleep 30\n", 0755);
    config.timeout = absl::Milliseconds(300);
    absl::Time start = absl::Now();
    auto r = ExecCredentialProvider(config, clock).Get();
    CHECK(absl::IsDeadlineExceeded(r.status()));
    CHECK(absl::Now() - start < absl::Seconds(10));
  }
}

TEST_CASE("ExecCredential parsing checks the expiration timestamp") {
  const std::string v1 = "client.authentication.k8s.io/v1";
  auto ok = ParseExecCredential(
      Credential(v1, R"({"token":"t","expirationTimestamp":"2030-01-02T03:04:05Z"})"), v1);
  REQUIRE(ok.ok());
  CHECK(ok->expiration ==
        absl::FromCivil(absl::CivilSecond(2030, 1, 2, 3, 4, 5), absl::UTCTimeZone()));
  CHECK_FALSE(
      ParseExecCredential(Credential(v1, R"({"token":"t","expirationTimestamp":"tomorrow"})"), v1)
          .ok());
  CHECK_FALSE(ParseExecCredential(Credential(v1, R"({"clientCertificateData":"c"})"), v1).ok());
}

TEST_CASE("An exec plugin's over-long apiVersion is quoted bounded") {
  const std::string v1 = "client.authentication.k8s.io/v1";
  auto parsed =
      ParseExecCredential(Credential(std::string(8999, 'v') + "\\n", R"({"token":"t"})"), v1);
  REQUIRE_FALSE(parsed.ok());
  std::string message(parsed.status().message());
  INFO(message.substr(0, 200));
  CHECK(message.size() < 1024);
  CHECK(message.find("(9000 bytes), expected \"client.authentication.k8s.io/v1\"") !=
        std::string::npos);
  CHECK(message.find('\n') == std::string::npos);
}

}  // namespace
}  // namespace kje::k8s
