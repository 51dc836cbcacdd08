// The simulated spark-submit's dependency fetch under the Kubeflow operator, through the store
// and the controller's real I/O: a dependency missing from the host path fails the driver with
// Spark's exception, and the application FAILED; one present lets it run.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "kubesim/kubeflow/controller.h"
#include "tests/kubesim/kubeflow/store_fixture.h"

namespace kubesim::kubeflow {
namespace {

namespace json = boost::json;

TEST_CASE_METHOD(Fixture, "a dependency missing on the host path fails the driver",
                 "[kubeflow][controller][fetch]") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kubesim-kf-fetch-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "here.jar") << "jar";
  const bool present = GENERATE(false, true);
  CAPTURE(present);
  json::object app = Example();
  app["spec"].as_object()["deps"] = json::object{
      {"jars", json::array{"local://" + (dir / "here.jar").string(),
                           "local://" + (dir / (present ? "here.jar" : "gone.jar")).string()}}};
  REQUIRE(store->Create(app_type, "jobs", app, {}).ok());
  auto c = NewController(*store, app_type, {"jobs"}, Options{}, [this] { return now; });
  RunUntil(*c, [&] { return State() == "FAILED" || State() == "COMPLETED"; });
  auto log = store->ReadLog("jobs", "spark-pi-driver", {});
  REQUIRE(log.ok());
  if (present) {
    CHECK(State() == "COMPLETED");
    CHECK(log.value().find("Pi is roughly") != std::string::npos);
  } else {
    CHECK(State() == "FAILED");
    CHECK(log.value().find("Exception in thread \"main\" java.io.FileNotFoundException: " +
                           (dir / "gone.jar").string() + " (No such file or directory)") !=
          std::string::npos);
    CHECK(log.value().find("Pi is roughly") == std::string::npos);
    auto pod = store->Get(PodType(), "jobs", "spark-pi-driver");
    REQUIRE(pod.ok());
    const json::value& status = pod.value().at("status");
    CHECK(status.at("phase") == "Failed");
    CHECK(status.at("containerStatuses").at(0).at("state").at("terminated").at("exitCode") == 1);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kubesim::kubeflow
