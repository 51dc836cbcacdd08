#include "kubesim/schema/crd_overlay.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace kubesim {
namespace {

const std::string kRoot = KUBESIM_CRD_ROOT;
const std::string kCrd10 =
    kRoot + "/apache-spark-operator/1.0.0/sparkapplications.spark.apache.org-v1.yaml";
const std::string kOverlay11 =
    kRoot + "/apache-spark-operator/1.1.0-overlay/sparkapplications-v1-overlay.yaml";

std::vector<Crd> Load10() {
  std::string error;
  std::vector<Crd> crds = LoadCrdFile(kCrd10, &error);
  REQUIRE(crds.size() == 1);
  return crds;
}

std::string WriteOverlay(const std::string& text) {
  // mkstemps: a name of our own, created at once (no window for another process to take it).
  std::string path = (std::filesystem::temp_directory_path() / "crd-overlay-XXXXXX.yaml").string();
  int fd = mkstemps(path.data(), 5);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

std::vector<std::string> Enum(const Crd& crd, const std::string& version) {
  for (const auto& v : crd.object.at("spec").at("versions").as_array()) {
    if (v.at("name").as_string() != version) continue;
    std::vector<std::string> out;
    for (const auto& e : v.at("schema")
                             .at("openAPIV3Schema")
                             .at("properties")
                             .at("status")
                             .at("properties")
                             .at("currentState")
                             .at("properties")
                             .at("currentStateSummary")
                             .at("enum")
                             .as_array()) {
      out.emplace_back(e.as_string());
    }
    return out;
  }
  return {};
}

TEST_CASE("The 1.1 overlay adds Suspended to v1 only - and rebuilds the schema", "[overlay]") {
  std::vector<Crd> crds = Load10();
  std::string error;
  REQUIRE(ApplyCrdOverlayFile(kOverlay11, &crds, &error));
  auto v1 = Enum(crds[0], "v1");
  CHECK(v1.size() == 19);
  CHECK(std::count(v1.begin(), v1.end(), "Suspended") == 1);
  CHECK(Enum(crds[0], "v1beta1").size() == 17);  // frozen, as upstream
  // The overlay is exactly what the README says: a second application adds nothing twice.
  CHECK_FALSE(ApplyCrdOverlayFile(kOverlay11, &crds, &error));
  CHECK_THAT(error, Catch::Contains("already in the schema"));
}

TEST_CASE("Overlays that don't fit are refused with the reason", "[overlay]") {
  std::string error;
  std::vector<Crd> crds = Load10();
  CHECK_FALSE(ApplyCrdOverlayFile(WriteOverlay("crd: nope.example.com\nversion: v1\n"
                                               "operations: []\n"),
                                  &crds, &error));
  CHECK_THAT(error, Catch::Contains("no CRD nope.example.com"));
  CHECK_FALSE(ApplyCrdOverlayFile(
      WriteOverlay("crd: sparkapplications.spark.apache.org\nversion: v9\noperations: []\n"), &crds,
      &error));
  CHECK_THAT(error, Catch::Contains("serves no version v9"));
  CHECK_FALSE(ApplyCrdOverlayFile(
      WriteOverlay("crd: sparkapplications.spark.apache.org\nversion: v1\noperations:\n"
                   "  - {op: append, path: /properties/nothing/enum, value: X}\n"),
      &crds, &error));
  CHECK_THAT(error, Catch::Contains("/properties/nothing/enum"));
  CHECK_FALSE(ApplyCrdOverlayFile(
      WriteOverlay("crd: sparkapplications.spark.apache.org\nversion: v1\noperations:\n"
                   "  - {op: replace, path: /properties, value: {}}\n"),
      &crds, &error));
  CHECK_FALSE(ApplyCrdOverlayFile("/nonexistent/overlay.yaml", &crds, &error));
  CHECK(Enum(crds[0], "v1").size() == 18);  // nothing half-applied
}

}  // namespace
}  // namespace kubesim
