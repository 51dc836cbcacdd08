// `submit --dry-run` against the fake server: the request says dry run, the answer's application
// is printed as YAML (or JSON), and nothing is uploaded.

#include "cli/dry_run.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "cli/exit_codes.h"
#include "tests/cli/fake_job_executor.h"
#include "tests/cli/run_cli.h"

namespace kje::cli {
namespace {

using testing::FakeServer;
using testing::Result;
using testing::RunCli;
using testing::WriteFile;
namespace pb = jobexecutor::v1;

constexpr char kId[] = "default/sparkapp/default/gravitino-job-1001";
constexpr char kApplication[] =
    R"({"apiVersion":"spark.apache.org/v1","kind":"SparkApplication","metadata":{"name":)"
    R"("gravitino-job-1001","namespace":"default","uid":"u-1"},"spec":{"mainClass":"Pi",)"
    R"("sparkConf":{"spark.dynamicAllocation.enabled":"true","spark.executor.instances":"2"}}})";

std::vector<std::string> Args(FakeServer& server, std::vector<std::string> more) {
  std::vector<std::string> args = {
      "submit",       "--job-id",         "1001",     "--metalake",    "lake", "--name", "pi",
      "--executable", "local:///app.jar", "--server", server.address()};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST_CASE("submit --dry-run prints the server's application as YAML, creating nothing") {
  FakeServer server;
  server.service().submit_response.set_execution_id(kId);
  server.service().submit_response.set_application(kApplication);
  Result r = RunCli(Args(server, {"--dry-run"}));
  CHECK(r.code == kExitOk);
  auto rec = server.service().recorded();
  REQUIRE(rec.submits.size() == 1);
  CHECK(rec.submits[0].dry_run());
  CHECK(rec.submits[0].job_id() == "1001");
  // kubectl's `--dry-run=server -o yaml`: the object, block style, keys sorted.
  CHECK(r.out.rfind("apiVersion: spark.apache.org/v1\nkind: SparkApplication\nmetadata:\n", 0) ==
        0);
  YAML::Node app = YAML::Load(r.out);
  CHECK(app["metadata"]["name"].as<std::string>() == "gravitino-job-1001");
  // A string that reads like a boolean stays a string.
  CHECK(app["spec"]["sparkConf"]["spark.dynamicAllocation.enabled"].Tag() == "!");
  CHECK(r.err == std::string("nothing created (server dry run): ") + kId + "\n");
}

TEST_CASE("submit --dry-run -o json prints the application's JSON") {
  FakeServer server;
  server.service().submit_response.set_execution_id(kId);
  server.service().submit_response.set_application(kApplication);
  server.service().submit_response.set_adopted(true);
  Result r = RunCli(Args(server, {"--dry-run", "-o", "json"}));
  CHECK(r.code == kExitOk);
  CHECK(r.out.rfind("{\n  \"apiVersion\": \"spark.apache.org/v1\",\n", 0) == 0);
  CHECK(r.out.find("\"spark.dynamicAllocation.enabled\": \"true\"") != std::string::npos);
  CHECK(r.err.find("already has this application (the same template): a submit would adopt it") !=
        std::string::npos);
}

TEST_CASE("submit --dry-run: the server's refusal is the exit code; old servers are caught") {
  FakeServer server;
  SECTION("ALREADY_EXISTS") {
    server.service().submit_status = {grpc::StatusCode::ALREADY_EXISTS, "differs in class_name"};
    Result r = RunCli(Args(server, {"--dry-run"}));
    CHECK(r.code == kExitError);
    CHECK(r.out.empty());
    CHECK(r.err.find("submit --dry-run: ALREADY_EXISTS: differs in class_name") !=
          std::string::npos);
  }
  SECTION("INVALID_ARGUMENT") {
    server.service().submit_status = {grpc::StatusCode::INVALID_ARGUMENT, "bad conf"};
    CHECK(RunCli(Args(server, {"--dry-run"})).code == kExitError);
  }
  SECTION("a server that doesn't know the field answers no application") {
    server.service().submit_response.set_execution_id(kId);
    Result r = RunCli(Args(server, {"--dry-run"}));
    CHECK(r.code == kExitError);
    CHECK(r.out.empty());
    CHECK(r.err.find("doesn't know dry runs") != std::string::npos);
  }
}

TEST_CASE("submit --dry-run uploads nothing: local files are a usage error") {
  FakeServer server;
  std::string jar = WriteFile("dry_run_test_app.jar", "PK");
  Result r = RunCli({"submit", "--job-id", "1001", "--metalake", "lake", "--name", "pi",
                     "--executable", jar, "--dry-run", "--server", server.address()});
  std::remove(jar.c_str());
  CHECK(r.code == kExitUsage);
  CHECK(r.err.find("--dry-run uploads nothing") != std::string::npos);
  CHECK(r.err.find("dry_run_test_app.jar") != std::string::npos);
  auto rec = server.service().recorded();
  CHECK(rec.submits.empty());
}

TEST_CASE("submit without --dry-run asks for no dry run") {
  FakeServer server;
  server.service().submit_response.set_execution_id(kId);
  Result r = RunCli(Args(server, {}));
  CHECK(r.code == kExitOk);
  auto rec = server.service().recorded();
  REQUIRE(rec.submits.size() == 1);
  CHECK_FALSE(rec.submits[0].dry_run());
  CHECK(r.out == std::string(kId) + "\n");
}

}  // namespace
}  // namespace kje::cli
