// Loading CustomResourceDefinitions (apiextensions.k8s.io/v1) from YAML files or JSON.

#include "kubesim/schema/crd.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

namespace kubesim {
namespace {

namespace json = boost::json;

std::string StringAt(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

const json::object* ObjectAt(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

bool BoolAt(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_bool() && v->as_bool();
}

std::vector<std::string> Strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_array()) return out;
  for (const auto& item : v->as_array()) {
    if (item.is_string()) out.emplace_back(item.as_string());
  }
  return out;
}

bool IsDnsLabel(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-')) {
      return false;
    }
  }
  return s.front() != '-' && s.back() != '-';
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

std::unique_ptr<Crd> CrdFromJson(const json::object& crd, std::string* error) {
  std::string local_error;
  std::string* err = error != nullptr ? error : &local_error;
  const json::object* metadata = ObjectAt(crd, "metadata");
  const json::object* spec = ObjectAt(crd, "spec");
  if (spec == nullptr) {
    *err = "CustomResourceDefinition has no spec";
    return nullptr;
  }
  auto out = std::make_unique<Crd>();
  out->object = crd;
  out->name = metadata != nullptr ? StringAt(*metadata, "name") : "";
  out->group = StringAt(*spec, "group");
  const json::object* names = ObjectAt(*spec, "names");
  if (names == nullptr) {
    *err = "CustomResourceDefinition " + out->name + ": spec.names is required";
    return nullptr;
  }
  out->kind = StringAt(*names, "kind");
  out->plural = StringAt(*names, "plural");
  out->singular = StringAt(*names, "singular");
  out->list_kind = StringAt(*names, "listKind");
  out->short_names = Strings(*names, "shortNames");
  out->categories = Strings(*names, "categories");
  if (out->kind.empty() || out->plural.empty()) {
    *err = "CustomResourceDefinition " + out->name + ": spec.names.kind and plural are required";
    return nullptr;
  }
  // The API server defaults these two.
  if (out->singular.empty()) out->singular = Lower(out->kind);
  if (out->list_kind.empty()) out->list_kind = out->kind + "List";
  if (out->group.empty() || out->group.find('.') == std::string::npos) {
    *err = "CustomResourceDefinition " + out->name +
           ": spec.group must be a DNS subdomain with at least one dot";
    return nullptr;
  }
  if (!IsDnsLabel(out->plural)) {
    *err = "CustomResourceDefinition " + out->name + ": spec.names.plural must be a DNS label";
    return nullptr;
  }
  if (out->name != out->plural + "." + out->group) {
    *err = "CustomResourceDefinition " + out->name + ": metadata.name must be spec.names.plural" +
           " + \".\" + spec.group (\"" + out->plural + "." + out->group + "\")";
    return nullptr;
  }
  std::string scope = StringAt(*spec, "scope");
  if (scope == "Namespaced" || scope.empty()) {
    out->namespaced = true;
  } else if (scope == "Cluster") {
    out->namespaced = false;
  } else {
    *err = "CustomResourceDefinition " + out->name + ": unsupported scope \"" + scope + "\"";
    return nullptr;
  }

  const json::value* versions = spec->if_contains("versions");
  if (versions == nullptr || !versions->is_array() || versions->as_array().empty()) {
    *err = "CustomResourceDefinition " + out->name + ": spec.versions must not be empty";
    return nullptr;
  }
  int storage_versions = 0;
  for (const auto& item : versions->as_array()) {
    if (!item.is_object()) {
      *err = "CustomResourceDefinition " + out->name + ": a version must be an object";
      return nullptr;
    }
    const json::object& v = item.as_object();
    CrdVersion version;
    version.name = StringAt(v, "name");
    if (version.name.empty()) {
      *err = "CustomResourceDefinition " + out->name + ": a version has no name";
      return nullptr;
    }
    version.served = BoolAt(v, "served");
    version.storage = BoolAt(v, "storage");
    if (version.storage) ++storage_versions;
    if (const json::object* sub = ObjectAt(v, "subresources")) {
      version.status_subresource = sub->contains("status");
    }
    if (const json::object* schema = ObjectAt(v, "schema")) {
      if (const json::value* open_api = schema->if_contains("openAPIV3Schema")) {
        std::string schema_error;
        auto compiled = Schema::Compile(*open_api, &schema_error);
        if (!compiled) {
          *err = "CustomResourceDefinition " + out->name + " version " + version.name + ": " +
                 schema_error;
          return nullptr;
        }
        version.schema = std::move(compiled);
      }
    }
    if (const json::value* cols = v.if_contains("additionalPrinterColumns");
        cols != nullptr && cols->is_array()) {
      version.additional_printer_columns = cols->as_array();
    }
    out->versions.push_back(std::move(version));
  }
  if (storage_versions != 1) {
    *err = "CustomResourceDefinition " + out->name +
           ": exactly one version must be the storage version";
    return nullptr;
  }
  return out;
}

std::vector<Crd> LoadCrdFile(const std::string& path, std::string* error) {
  std::string local_error;
  std::string* err = error != nullptr ? error : &local_error;
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAllFromFile(path);
  } catch (const std::exception& e) {
    *err = path + ": " + e.what();
    return {};
  }
  std::vector<Crd> out;
  for (const auto& doc : docs) {
    if (!doc.IsMap()) continue;  // empty documents between separators
    json::value v = YamlToJson(doc);
    const json::object& o = v.as_object();
    if (StringAt(o, "kind") != "CustomResourceDefinition") continue;
    std::string crd_error;
    auto crd = CrdFromJson(o, &crd_error);
    if (!crd) {
      *err = path + ": " + crd_error;
      return {};
    }
    out.push_back(std::move(*crd));
  }
  return out;
}

std::vector<Crd> LoadCrdDir(const std::string& dir, std::string* error) {
  std::string local_error;
  std::string* err = error != nullptr ? error : &local_error;
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file()) continue;
    std::string ext = entry.path().extension().string();
    if (ext == ".yaml" || ext == ".yml") files.push_back(entry.path().string());
  }
  if (ec) {
    *err = dir + ": " + ec.message();
    return {};
  }
  std::sort(files.begin(), files.end());
  std::vector<Crd> out;
  for (const auto& file : files) {
    std::string file_error;
    std::vector<Crd> crds = LoadCrdFile(file, &file_error);
    if (!file_error.empty()) {
      *err = file_error;
      return {};
    }
    for (auto& crd : crds) out.push_back(std::move(crd));
  }
  return out;
}

}  // namespace kubesim
