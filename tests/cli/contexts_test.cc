#include "cli/contexts.h"

#include <stdlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "cli/exit_codes.h"
#include "tests/cli/fake_job_executor.h"
#include "tests/cli/run_cli.h"

namespace kje::cli {
namespace {

using testing::FakeServer;
using testing::Job;
using testing::Result;
using testing::RunCli;
using testing::WriteFile;
namespace pb = jobexecutor::v1;

std::string TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "kje-contexts-XXXXXX").string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

TEST_CASE("contexts: the file's paths resolve against its directory and $HOME") {
  const std::map<std::string, std::string> env = {{"HOME", "/home/ana"}};
  auto file = ParseContextsFile(R"(
current-context: prod
contexts:
  prod:
    server: kje.example.com:443
    tls-ca: certs/ca.crt
    tls-server-name: kje.example.com
    token-file: ~/.kje/prod.token
  local:
    server: 127.0.0.1:50051
    tls: false
)",
                                "/etc/kje/config", env);
  REQUIRE(file.ok());
  CHECK(file->current == "prod");
  REQUIRE(file->contexts.size() == 2);
  const ContextSettings& prod = file->contexts.at("prod");
  CHECK(prod.server == "kje.example.com:443");
  CHECK(prod.tls_ca == "/etc/kje/certs/ca.crt");
  CHECK(prod.token_file == "/home/ana/.kje/prod.token");
  CHECK(prod.tls_server_name == "kje.example.com");
  CHECK_FALSE(prod.tls.has_value());
  CHECK(file->contexts.at("local").tls == false);
  CHECK(ParseContextsFile("", "/c", env)->contexts.empty());
}

TEST_CASE("contexts: a malformed file names the file and the key") {
  const std::map<std::string, std::string> env;
  auto error = [&](const std::string& text) {
    auto file = ParseContextsFile(text, "/c", env);
    REQUIRE_FALSE(file.ok());
    return std::string(file.status().message());
  };
  CHECK(error("contexts: {a: {tls-cz: x}}") ==
        "/c: contexts.a.\"tls-cz\": unknown setting (expected one of: server, tls, tls-ca, "
        "tls-cert, tls-key, tls-server-name, token-file); did you mean tls-ca?");
  CHECK(error("current-contxt: a") ==
        "/c: \"current-contxt\": unknown key (expected current-context, contexts); did you mean "
        "current-context?");
  CHECK(error("current-context: b\ncontexts: {a: {server: x}}") ==
        "/c: current-context: names \"b\", which isn't in contexts");
  CHECK(error("contexts: {a: {tls: maybe}}") == "/c: contexts.a.tls: must be true or false");
  CHECK(error("contexts: {a: {server: [x]}}") == "/c: contexts.a.server: must be a string");
  CHECK(error("contexts: [a]") == "/c: contexts: must be a map of named contexts");
  CHECK(error("{").rfind("/c: not YAML: ", 0) == 0);
  // A context's name is the user's bytes: one that isn't plain is quoted, escaped.
  const std::string named = error("contexts: {\"a\\bb\": {tls: maybe}}");
  CHECK(named == "/c: contexts.\"a\\x08b\".tls: must be true or false");
}

TEST_CASE(
    "contexts: flags win over variables, variables over the context, the context over "
    "defaults") {
  FakeServer server;
  server.service().jobs["ok"] = Job("ok", pb::JobInfo::SUCCEEDED);
  const std::string dir = TempDir();
  WriteFile(dir + "/dev.token", "t0k-dev\n");
  WriteFile(dir + "/other.token", "t0k-other\n");
  const std::string config = WriteFile(dir + "/config",
                                       "current-context: dev\ncontexts:\n"
                                       "  dev: {server: \"" +
                                           server.address() +
                                           "\", token-file: dev.token}\n"
                                           "  gone: {server: \"127.0.0.1:1\"}\n");
  std::map<std::string, std::string> env = {{"K8S_JOB_EXECUTOR_CONFIG", config}};

  // The current context alone: its server and its token.
  Result r = RunCli({"status", "ok"}, RealClock::Get(), env);
  CHECK(r.code == kExitOk);
  CHECK(server.service().recorded().authorizations.back() == "Bearer t0k-dev");

  // A variable wins over the context.
  env["K8S_JOB_EXECUTOR_TOKEN_FILE"] = dir + "/other.token";
  CHECK(RunCli({"status", "ok"}, RealClock::Get(), env).code == kExitOk);
  CHECK(server.service().recorded().authorizations.back() == "Bearer t0k-other");

  // --context picks another one; --server still wins over it.
  CHECK(RunCli({"status", "ok", "--context", "gone", "--server", server.address()},
               RealClock::Get(), env)
            .code == kExitOk);
  env["K8S_JOB_EXECUTOR_CONTEXT"] = "gone";
  CHECK(RunCli({"status", "ok", "--server", server.address()}, RealClock::Get(), env).code ==
        kExitOk);

  // A context that isn't there is a configuration mistake, not an outage.
  Result unknown = RunCli({"status", "ok", "--context", "deb"}, RealClock::Get(), env);
  CHECK(unknown.code == kExitUsage);
  CHECK(unknown.err.find("context \"deb\" isn't in " + config +
                         " (it has: dev, gone); did you mean dev?") != std::string::npos);

  // `contexts` lists them, the one in use marked.
  env.erase("K8S_JOB_EXECUTOR_CONTEXT");
  Result list = RunCli({"contexts"}, RealClock::Get(), env);
  CHECK(list.code == kExitOk);
  CHECK(list.out.find("*        dev ") != std::string::npos);
  CHECK(list.out.find("gone") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("contexts: --context without a file says where the file was looked for") {
  Result r = RunCli({"status", "x", "--context", "prod"}, RealClock::Get(),
                    {{"HOME", "/nonexistent-home"}});
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("context \"prod\": there is no contexts file at "
                   "/nonexistent-home/.config/k8s-job-executor/config") != std::string::npos);
  CHECK(ConnectionEnvName("tls-server-name") == "K8S_JOB_EXECUTOR_TLS_SERVER_NAME");
  // The binary hands the CLI exactly these from its environment.
  const std::vector<std::string>& names = CliEnvironmentNames();
  for (const char* name :
       {"K8S_JOB_EXECUTOR_SERVER", "K8S_JOB_EXECUTOR_TLS", "K8S_JOB_EXECUTOR_TLS_CA",
        "K8S_JOB_EXECUTOR_TLS_CERT", "K8S_JOB_EXECUTOR_TLS_KEY", "K8S_JOB_EXECUTOR_TLS_SERVER_NAME",
        "K8S_JOB_EXECUTOR_TOKEN_FILE", "K8S_JOB_EXECUTOR_CONTEXT", "K8S_JOB_EXECUTOR_CONFIG",
        "HOME", "XDG_CONFIG_HOME"}) {
    CHECK(std::find(names.begin(), names.end(), name) != names.end());
  }
  CHECK(names.size() == 11);
  CHECK(ContextsPath({{"XDG_CONFIG_HOME", "/x"}, {"HOME", "/h"}}) == "/x/k8s-job-executor/config");
}

}  // namespace
}  // namespace kje::cli
