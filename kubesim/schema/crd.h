#pragma once

// CustomResourceDefinitions as kubesim serves them: loaded from YAML files (as shipped by the
// operators), each served version with its compiled openAPIV3Schema.

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "kubesim/schema/schema.h"

namespace kubesim {

struct CrdVersion {
  std::string name;  // e.g. "v1"
  bool served = false;
  bool storage = false;
  bool status_subresource = false;
  std::shared_ptr<const Schema> schema;  // null when the version has no schema
  boost::json::array additional_printer_columns;
};

struct Crd {
  std::string name;  // metadata.name, e.g. "sparkapplications.spark.apache.org"
  std::string group;
  std::string kind;
  std::string list_kind;
  std::string plural;
  std::string singular;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool namespaced = true;
  std::vector<CrdVersion> versions;
  boost::json::object object;  // the whole CRD as JSON (served under apiextensions.k8s.io/v1)
};

// Loads every CustomResourceDefinition document of a YAML file (multi-document files allowed;
// other kinds are skipped). On failure returns an empty vector and sets *error.
std::vector<Crd> LoadCrdFile(const std::string& path, std::string* error);

// Loads every *.yaml / *.yml file of a directory (not recursive), sorted by name.
std::vector<Crd> LoadCrdDir(const std::string& dir, std::string* error);

// Builds a Crd from its JSON form (e.g. a CRD created through the API).
std::unique_ptr<Crd> CrdFromJson(const boost::json::object& crd, std::string* error);

}  // namespace kubesim
