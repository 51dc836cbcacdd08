#include "cli/flags.h"

#include <catch2/catch.hpp>

namespace kje::cli {
namespace {

const std::vector<FlagSpec> kSpecs = {
    {"server", 0, "HOST:PORT", false, "the server"},
    {"output", 'o', "FORMAT", false, "format"},
    {"conf", 0, "KEY=VALUE", true, "conf"},
    {"follow", 'f', "", false, "follow"},
};

TEST_CASE("long, short, inline and separate values, booleans and positionals") {
  auto parsed = ParseFlags(
      {"id-1", "--server", "h:1", "-o", "json", "--conf=a=b", "--conf", "c=d", "-f", "id-2"},
      kSpecs);
  REQUIRE(parsed.ok());
  CHECK(parsed->Get("server") == "h:1");
  CHECK(parsed->Get("output") == "json");
  CHECK(parsed->GetAll("conf") == std::vector<std::string>{"a=b", "c=d"});
  CHECK(parsed->Has("follow"));
  CHECK_FALSE(parsed->Has("missing"));
  CHECK(parsed->Get("missing") == std::nullopt);
  CHECK(parsed->positional() == std::vector<std::string>{"id-1", "id-2"});
}

TEST_CASE("a short flag takes its value attached, and -- ends the flags") {
  auto parsed = ParseFlags({"-ojson", "--", "--server", "-"}, kSpecs);
  REQUIRE(parsed.ok());
  CHECK(parsed->Get("output") == "json");
  CHECK_FALSE(parsed->Has("server"));
  CHECK(parsed->positional() == std::vector<std::string>{"--server", "-"});
}

TEST_CASE("bad command lines name the flag") {
  auto error = [](std::vector<std::string> args) {
    auto parsed = ParseFlags(args, kSpecs);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(parsed.status().message());
  };
  CHECK(error({"--nope"}) == "unknown flag --nope");
  CHECK(error({"-x"}) == "unknown flag -x");
  CHECK(error({"--server"}) == "--server needs a value (HOST:PORT)");
  CHECK(error({"--follow=yes"}) == "-f/--follow takes no value");
  CHECK(error({"-fx"}) == "-f/--follow takes no value");
  CHECK(error({"-o", "json", "--output=table"}) == "-o/--output given more than once");
}

TEST_CASE("the help lists every flag with its value and repeatability") {
  std::string help = FlagsHelp(kSpecs);
  CHECK(help.find("    --server HOST:PORT") != std::string::npos);
  CHECK(help.find("-o, --output FORMAT") != std::string::npos);
  CHECK(help.find("conf (repeatable)") != std::string::npos);
  CHECK(help.find("-f, --follow  ") != std::string::npos);
}

}  // namespace
}  // namespace kje::cli
