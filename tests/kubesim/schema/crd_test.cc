#include "kubesim/schema/crd.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace kubesim {
namespace {

const std::string kRoot = KUBESIM_CRD_ROOT;

const CrdVersion* FindVersion(const Crd& crd, const std::string& name) {
  for (const auto& v : crd.versions) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

TEST_CASE("The apache 0.9.0 SparkApplication CRD loads with its three versions", "[crd]") {
  std::string error;
  auto crds = LoadCrdFile(
      kRoot + "/apache-spark-operator/0.9.0/sparkapplications.spark.apache.org-v1.yaml", &error);
  INFO(error);
  REQUIRE(crds.size() == 1);
  const Crd& crd = crds[0];
  CHECK(crd.name == "sparkapplications.spark.apache.org");
  CHECK(crd.group == "spark.apache.org");
  CHECK(crd.kind == "SparkApplication");
  CHECK(crd.list_kind == "SparkApplicationList");  // defaulted: the file has no listKind
  CHECK(crd.plural == "sparkapplications");
  CHECK(crd.singular == "sparkapplication");
  CHECK(crd.short_names == std::vector<std::string>{"sparkapp"});
  CHECK(crd.namespaced);
  REQUIRE(crd.versions.size() == 3);
  for (const char* name : {"v1alpha1", "v1beta1", "v1"}) {
    const CrdVersion* v = FindVersion(crd, name);
    REQUIRE(v != nullptr);
    CHECK(v->served);
    CHECK(v->storage == (std::string(name) == "v1"));
    CHECK(v->status_subresource);
    CHECK(v->schema != nullptr);
    CHECK(v->additional_printer_columns.size() == 2);
  }
  CHECK(crd.object.at("kind").as_string() == "CustomResourceDefinition");
  // The v1 printer columns list Age first in 0.9.0.
  CHECK(FindVersion(crd, "v1")->additional_printer_columns[0].as_object().at("name").as_string() ==
        "Age");
}

TEST_CASE("The apache 1.0.0 CRD serves v1beta1 and v1 only", "[crd]") {
  std::string error;
  auto crds = LoadCrdDir(kRoot + "/apache-spark-operator/1.0.0", &error);
  INFO(error);
  REQUIRE(crds.size() == 2);
  // Sorted by file name: sparkapplications before sparkclusters.
  CHECK(crds[0].name == "sparkapplications.spark.apache.org");
  CHECK(crds[1].name == "sparkclusters.spark.apache.org");
  CHECK(crds[1].kind == "SparkCluster");
  REQUIRE(crds[0].versions.size() == 2);
  CHECK(FindVersion(crds[0], "v1alpha1") == nullptr);
  CHECK(FindVersion(crds[0], "v1")->storage);
  CHECK_FALSE(FindVersion(crds[0], "v1beta1")->storage);
}

TEST_CASE("The kubeflow CRDs load from a multi-document directory", "[crd]") {
  std::string error;
  auto crds = LoadCrdDir(kRoot + "/kubeflow-spark-operator/v2.5.2", &error);
  INFO(error);
  REQUIRE(crds.size() == 2);
  CHECK(crds[0].name == "scheduledsparkapplications.sparkoperator.k8s.io");
  CHECK(crds[1].name == "sparkapplications.sparkoperator.k8s.io");
  CHECK(crds[1].list_kind == "SparkApplicationList");
  const CrdVersion* v = FindVersion(crds[1], "v1beta2");
  REQUIRE(v != nullptr);
  CHECK(v->storage);
  CHECK(v->status_subresource);
}

class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    path_ = (std::filesystem::temp_directory_path() /
             ("kubesim_crd_test_" + std::to_string(reinterpret_cast<uintptr_t>(this)) + ".yaml"))
                .string();
    std::ofstream(path_) << content;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST_CASE("LoadCrdFile skips other kinds and reads several CRDs from one file", "[crd]") {
  TempFile file(R"(
apiVersion: v1
kind: ConfigMap
metadata: {name: x}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets, categories: [all]}
  versions:
  - {name: v2, served: false, storage: true}
)");
  std::string error;
  auto crds = LoadCrdFile(file.path(), &error);
  INFO(error);
  REQUIRE(crds.size() == 2);
  CHECK(crds[0].kind == "Widget");
  CHECK_FALSE(crds[0].namespaced);
  CHECK(crds[0].singular == "widget");
  CHECK_FALSE(crds[0].versions[0].status_subresource);
  CHECK(crds[1].categories == std::vector<std::string>{"all"});
  CHECK_FALSE(crds[1].versions[0].served);
  CHECK(crds[1].versions[0].schema == nullptr);
}

TEST_CASE("CrdFromJson rejects inconsistent definitions", "[crd]") {
  auto base = [] {
    return boost::json::parse(R"({
      "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
      "metadata": {"name": "widgets.example.com"},
      "spec": {"group": "example.com", "scope": "Namespaced",
               "names": {"kind": "Widget", "plural": "widgets"},
               "versions": [{"name": "v1", "served": true, "storage": true,
                             "schema": {"openAPIV3Schema": {"type": "object"}}}]}})")
        .as_object();
  };
  std::string error;
  REQUIRE(CrdFromJson(base(), &error) != nullptr);

  auto wrong_name = base();
  wrong_name["metadata"].as_object()["name"] = "gadgets.example.com";
  CHECK(CrdFromJson(wrong_name, &error) == nullptr);
  CHECK(error.find("metadata.name") != std::string::npos);

  auto two_storage = base();
  auto& versions = two_storage["spec"].as_object()["versions"].as_array();
  versions.push_back(versions[0]);
  versions[1].as_object()["name"] = "v2";
  CHECK(CrdFromJson(two_storage, &error) == nullptr);
  CHECK(error.find("storage") != std::string::npos);

  auto bad_schema = base();
  bad_schema["spec"].as_object()["versions"].as_array()[0].as_object()["schema"] =
      boost::json::parse(R"({"openAPIV3Schema": {"type": "object",
                             "properties": {"a": {"type": "strin"}}}})");
  CHECK(CrdFromJson(bad_schema, &error) == nullptr);
  CHECK(error.find("strin") != std::string::npos);

  auto bad_scope = base();
  bad_scope["spec"].as_object()["scope"] = "Galaxy";
  CHECK(CrdFromJson(bad_scope, &error) == nullptr);
}

TEST_CASE("LoadCrdFile reports a missing file", "[crd]") {
  std::string error;
  CHECK(LoadCrdFile("/nonexistent/crd.yaml", &error).empty());
  CHECK_FALSE(error.empty());
}

}  // namespace
}  // namespace kubesim
