#include "app/serve.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace kje::app {
namespace {

TEST_CASE("serve args: flags map onto configuration keys", "[serve]") {
  auto a =
      ParseServeArgs({"--config", "c.yaml", "--listen=127.0.0.1:0", "--set", "namespace=jobs",
                      "--set=spark.conf.spark.x=a=b", "--log-level", "debug", "--log-format=json"});
  REQUIRE(a.ok());
  CHECK(a->sources.yaml_path == "c.yaml");
  using Flags = std::vector<std::pair<std::string, std::string>>;
  CHECK(a->sources.flags == Flags{{"server.listen", "127.0.0.1:0"},
                                  {"namespace", "jobs"},
                                  {"spark.conf.spark.x", "a=b"},
                                  {"server.logLevel", "debug"},
                                  {"server.logFormat", "json"}});
  CHECK_FALSE(a->help);
}

TEST_CASE("serve args: mistakes are named", "[serve]") {
  CHECK(std::string(ParseServeArgs({"--port", "1"}).status().message()) == "unknown flag --port");
  CHECK(std::string(ParseServeArgs({"--config"}).status().message()) == "--config needs a value");
  CHECK(std::string(ParseServeArgs({"--set", "novalue"}).status().message()) ==
        "--set needs KEY=VALUE, got \"novalue\"");
  CHECK(std::string(ParseServeArgs({"extra"}).status().message()) ==
        "unexpected argument \"extra\"");
  CHECK(ParseServeArgs({"--help"})->help);
  CHECK(ParseServeArgs({"--check-config"})->check_config);
  CHECK_FALSE(ParseServeArgs({})->check_config);
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path =
      std::filesystem::temp_directory_path() / (name + "_" + std::to_string(getpid()));
  std::ofstream(path) << text;
  return path;
}

k8s::Environment NoEnvironment() {
  k8s::Environment env;
  env.getenv = [](const std::string&) { return std::nullopt; };
  env.service_account_dir = "/nonexistent";
  return env;
}

TEST_CASE("serve --check-config: what would run, without the network or a secret", "[serve]") {
  const std::string token = WriteTemp("kje_check_token", "s3cret-caller-token\n");
  const std::string api_token = WriteTemp("kje_check_api_token", "s3cret-api-token\n");
  server::ConfigSources sources;
  sources.yaml_path = WriteTemp("kje_check_config", absl::StrCat(R"(operator: kubeflow
masterUrl: https://10.0.0.1:6443
tokenFile: )",
                                                                 api_token, R"(
namespace: spark-jobs
spark: {image: apache/spark:4.0.0, sparkVersion: 4.0.0}
server:
  tokenFile: )",
                                                                 token, R"(
  allowedNamespaces: [spark-jobs, etl]
)"));
  absl::StatusOr<std::string> checked = CheckConfiguration(sources, NoEnvironment());
  REQUIRE(checked.ok());
  CHECK(absl::StrContains(*checked, "operator         kubeflow\n"));
  CHECK(absl::StrContains(*checked, "kubernetes       https://10.0.0.1:6443 (masterUrl)\n"));
  CHECK(absl::StrContains(*checked, "namespace        spark-jobs (allowed: spark-jobs, etl)\n"));
  CHECK(absl::StrContains(*checked, "callers          bearer token (server.tokenFile)\n"));
  CHECK_FALSE(absl::StrContains(*checked, "s3cret"));

  // A typo in a key: the configuration's own error, with its suggestion.
  server::ConfigSources typo = sources;
  typo.flags.emplace_back("spark.imag", "x");
  absl::StatusOr<std::string> refused = CheckConfiguration(typo, NoEnvironment());
  CHECK(absl::IsInvalidArgument(refused.status()));
  CHECK(absl::StrContains(refused.status().message(), "spark.image"));
  // A callers' token file that went missing: refused before anything would listen.
  std::filesystem::remove(token);
  CHECK(absl::IsInvalidArgument(CheckConfiguration(sources, NoEnvironment()).status()));
  // An API server token file that went missing: the connection can't be used.
  std::filesystem::remove(api_token);
  absl::StatusOr<std::string> no_connection = CheckConfiguration(sources, NoEnvironment());
  CHECK_FALSE(no_connection.ok());
  std::filesystem::remove(*sources.yaml_path);
}

}  // namespace
}  // namespace kje::app
