#include "kubesim/store/core_types.h"

#include <set>
#include <string>

namespace kubesim {
namespace {

ResourceType Core(std::string plural, std::string singular, std::string kind,
                  std::vector<std::string> short_names, bool namespaced, bool status) {
  ResourceType t;
  t.group = "";
  t.version = "v1";
  t.plural = std::move(plural);
  t.singular = std::move(singular);
  t.kind = kind;
  t.list_kind = kind + "List";
  t.short_names = std::move(short_names);
  t.namespaced = namespaced;
  t.status_subresource = status;
  return t;
}

// The parts of pod validation a client can trip over: named containers with images, unique
// names. Field paths and messages as the API server writes them.
std::vector<FieldCause> ValidatePod(boost::json::object& obj, bool /*strict*/,
                                    std::vector<std::string>* /*unknown_fields*/) {
  std::vector<FieldCause> causes;
  auto spec_it = obj.find("spec");
  if (spec_it == obj.end() || !spec_it->value().is_object()) {
    causes.push_back({"FieldValueRequired", "Required value", "spec.containers"});
    return causes;
  }
  const boost::json::object& spec = spec_it->value().get_object();
  auto check_list = [&](const char* field, bool required) {
    auto it = spec.find(field);
    if (it == spec.end() || !it->value().is_array() || it->value().get_array().empty()) {
      if (required) {
        causes.push_back({"FieldValueRequired", "Required value", std::string("spec.") + field});
      }
      return;
    }
    std::set<std::string> seen;
    const boost::json::array& list = it->value().get_array();
    for (size_t i = 0; i < list.size(); ++i) {
      std::string path = std::string("spec.") + field + "[" + std::to_string(i) + "]";
      if (!list[i].is_object()) {
        causes.push_back({"FieldValueInvalid", "Invalid value: must be an object", path});
        continue;
      }
      const boost::json::object& c = list[i].get_object();
      auto name = c.find("name");
      if (name == c.end() || !name->value().is_string() || name->value().get_string().empty()) {
        causes.push_back({"FieldValueRequired", "Required value", path + ".name"});
      } else if (!seen.insert(std::string(name->value().get_string())).second) {
        causes.push_back({"FieldValueDuplicate",
                          "Duplicate value: \"" + std::string(name->value().get_string()) + "\"",
                          path + ".name"});
      }
      auto image = c.find("image");
      if (image == c.end() || !image->value().is_string() || image->value().get_string().empty()) {
        causes.push_back({"FieldValueRequired", "Required value", path + ".image"});
      }
    }
  };
  check_list("containers", true);
  check_list("initContainers", false);
  return causes;
}

}  // namespace

ResourceType NamespaceType() {
  return Core("namespaces", "namespace", "Namespace", {"ns"}, false, true);
}

ResourceType PodType() {
  ResourceType t = Core("pods", "pod", "Pod", {"po"}, true, true);
  t.categories = {"all"};
  t.validator = ValidatePod;
  return t;
}

std::vector<ResourceType> CoreTypes() {
  ResourceType services = Core("services", "service", "Service", {"svc"}, true, true);
  services.categories = {"all"};
  return {NamespaceType(),
          PodType(),
          Core("events", "event", "Event", {"ev"}, true, false),
          Core("secrets", "secret", "Secret", {}, true, false),
          Core("configmaps", "configmap", "ConfigMap", {"cm"}, true, false),
          Core("persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", {"pvc"},
               true, false),
          services,
          Core("serviceaccounts", "serviceaccount", "ServiceAccount", {"sa"}, true, false)};
}

}  // namespace kubesim
