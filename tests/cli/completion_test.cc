#include "cli/completion.h"

#include <stdio.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/exit_codes.h"
#include "tests/cli/run_cli.h"

namespace kje::cli {
namespace {

using testing::Result;
using testing::RunCli;

// What bash completes for `line` (the words typed, the last one being completed) with the
// CLI's own script loaded: the script runs in a real bash, as a user's shell would run it.
std::vector<std::string> Complete(const std::string& script, const std::vector<std::string>& line) {
  std::string dir = (std::filesystem::temp_directory_path() / "kje-completion-XXXXXX").string();
  REQUIRE(mkdtemp(dir.data()) != nullptr);
  {
    std::ofstream(dir + "/script.bash") << script;
    std::ofstream(dir + "/a-file.crt") << "x";
  }
  std::string words;
  for (const std::string& w : line) words += " \"" + w + "\"";
  const std::string command = "cd " + dir + " && bash -c 'source script.bash; COMP_WORDS=(" +
                              "k8s-job-executor" + words +
                              "); COMP_CWORD=${#COMP_WORDS[@]}; COMP_CWORD=$((COMP_CWORD - 1)); " +
                              "_k8s_job_executor; printf \"%s\\n\" \"${COMPREPLY[@]}\"'";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::vector<std::string> out;
  char buffer[512];
  while (fgets(buffer, sizeof(buffer), pipe) != nullptr) {
    std::string l(buffer);
    if (!l.empty() && l.back() == '\n') l.pop_back();
    if (!l.empty()) out.push_back(l);
  }
  REQUIRE(pclose(pipe) == 0);
  std::filesystem::remove_all(dir);
  return out;
}

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST_CASE("completion: bash completes commands, verbs, flags and values from the tables") {
  Result r = RunCli({"completion", "bash"});
  REQUIRE(r.code == kExitOk);
  const std::string& script = r.out;

  auto commands = Complete(script, {"s"});
  CHECK(Has(commands, "submit"));
  CHECK(Has(commands, "status"));
  CHECK(Has(commands, "schedule"));
  CHECK(Has(commands, "serve"));
  CHECK_FALSE(Has(commands, "logs"));

  CHECK(Complete(script, {"schedule", "r"}) == std::vector<std::string>{"resume", "run"});
  auto status_flags = Complete(script, {"status", "--"});
  CHECK(Has(status_flags, "--namespace"));  // a job may be named in a namespace
  CHECK(Has(status_flags, "--tls-ca"));
  CHECK(Has(status_flags, "--context"));
  CHECK_FALSE(Has(status_flags, "--cron"));
  CHECK(Has(Complete(script, {"schedule", "create", "--c"}), "--cron"));
  auto logs_flags = Complete(script, {"logs", "--"});
  for (const char* flag : {"--executor", "--since", "--timestamps", "--previous"}) {
    CHECK(Has(logs_flags, flag));
  }
  CHECK(Complete(script, {"list", "-o", ""}) ==
        std::vector<std::string>{"table", "wide", "json", "yaml", "name"});
  CHECK(Complete(script, {"status", "--tls-ca", "a-"}) == std::vector<std::string>{"a-file.crt"});
  CHECK(Complete(script, {"completion", "z"}) == std::vector<std::string>{"zsh"});
}

TEST_CASE(
    "completion: zsh loads the same function through bashcompinit; other shells are "
    "refused") {
  Result zsh = RunCli({"completion", "zsh"});
  CHECK(zsh.code == kExitOk);
  CHECK(zsh.out.find("autoload -U +X bashcompinit && bashcompinit\n") != std::string::npos);
  CHECK(zsh.out.find("complete -F _k8s_job_executor k8s-job-executor") != std::string::npos);
  Result fish = RunCli({"completion", "fish"});
  CHECK(fish.code == kExitUsage);
  CHECK(fish.err.find("the shell must be bash or zsh, got \"fish\"") != std::string::npos);
}

}  // namespace
}  // namespace kje::cli
