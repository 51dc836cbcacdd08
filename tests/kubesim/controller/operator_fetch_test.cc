// The simulated spark-submit's dependency fetch under the Apache operator, through the store and
// the controller's real I/O: a dependency missing from the host path fails the driver with
// Spark's exception, and the application fails; one present lets it run.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/kubesim/controller/operator_world.h"

namespace kubesim {
namespace {

TEST_CASE("operator: a dependency missing on the host path fails the driver",
          "[controller][operator][fetch]") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kubesim-op-fetch-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "here.py") << "print(1)";
  const bool present = GENERATE(false, true);
  CAPTURE(present);
  OperatorWorld w;
  w.Create("",
           json::object{{"spark.files", "local://" + (dir / "here.py").string() + ",local://" +
                                            (dir / (present ? "here.py" : "gone.py")).string()}});
  w.RunUntil(present ? "Succeeded" : "Failed");
  auto log = w.store->ReadLog("default", "pi-0-driver", {});
  REQUIRE(log.ok());
  if (present) {
    CHECK(log.value().find("Pi is roughly") != std::string::npos);
  } else {
    CHECK(log.value().find("Exception in thread \"main\" java.io.FileNotFoundException: " +
                           (dir / "gone.py").string() + " (No such file or directory)") !=
          std::string::npos);
    CHECK(log.value().find("Pi is roughly") == std::string::npos);
    auto pod = w.store->Get(PodType(), "default", "pi-0-driver");
    REQUIRE(pod.ok());
    const json::value& status = pod.value().at("status");
    CHECK(status.at("phase") == "Failed");
    CHECK(status.at("containerStatuses").at(0).at("state").at("terminated").at("exitCode") == 1);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kubesim
