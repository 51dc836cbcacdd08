// The RBAC types and what the API server's validation of them checks.

#include <set>

#include "kubesim/rbac/rbac.h"

namespace kubesim::rbac {
namespace {

namespace json = boost::json;

constexpr char kGroup[] = "rbac.authorization.k8s.io";

ResourceType Rbac(std::string plural, std::string singular, const std::string& kind,
                  bool namespaced) {
  ResourceType t;
  t.group = kGroup;
  t.version = "v1";
  t.plural = std::move(plural);
  t.singular = std::move(singular);
  t.kind = kind;
  t.list_kind = kind + "List";
  t.namespaced = namespaced;
  return t;
}

// A field that must be absent or an array of strings; returns the strings.
std::vector<std::string> StringArray(const json::object& o, const char* key,
                                     const std::string& path, std::vector<FieldCause>* causes) {
  std::vector<std::string> out;
  const json::value* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array()) {
    causes->push_back(
        {"FieldValueTypeInvalid", "Invalid value: must be an array of strings", path + "." + key});
    return out;
  }
  for (const json::value& s : v->as_array()) {
    if (!s.is_string()) {
      causes->push_back({"FieldValueTypeInvalid", "Invalid value: must be an array of strings",
                         path + "." + key});
      return {};
    }
    out.emplace_back(s.as_string());
  }
  return out;
}

std::string Quoted(const std::vector<std::string>& v) {
  std::string s = "[]string{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
  return s + "}";
}

std::vector<FieldCause> ValidateRules(json::object& obj, bool namespaced) {
  std::vector<FieldCause> causes;
  const json::value* rules = obj.if_contains("rules");
  if (rules == nullptr || rules->is_null()) return causes;
  if (!rules->is_array()) {
    causes.push_back({"FieldValueTypeInvalid", "Invalid value: must be an array", "rules"});
    return causes;
  }
  const json::array& list = rules->as_array();
  for (size_t i = 0; i < list.size(); ++i) {
    std::string path = "rules[" + std::to_string(i) + "]";
    if (!list[i].is_object()) {
      causes.push_back({"FieldValueTypeInvalid", "Invalid value: must be an object", path});
      continue;
    }
    const json::object& rule = list[i].as_object();
    if (StringArray(rule, "verbs", path, &causes).empty()) {
      causes.push_back({"FieldValueRequired",
                        "Required value: verbs must contain at least one value", path + ".verbs"});
    }
    std::vector<std::string> urls = StringArray(rule, "nonResourceURLs", path, &causes);
    std::vector<std::string> groups = StringArray(rule, "apiGroups", path, &causes);
    std::vector<std::string> resources = StringArray(rule, "resources", path, &causes);
    StringArray(rule, "resourceNames", path, &causes);
    if (!urls.empty()) {
      if (namespaced) {
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: " + Quoted(urls) +
                              ": namespaced rules cannot apply to non-resource URLs",
                          path + ".nonResourceURLs"});
      } else if (!groups.empty() || !resources.empty()) {
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: " + Quoted(urls) +
                              ": rules cannot apply to both regular resources and non-resource "
                              "URLs",
                          path + ".nonResourceURLs"});
      }
      continue;
    }
    if (groups.empty()) {
      causes.push_back({"FieldValueRequired",
                        "Required value: resource rules must supply at least one api group",
                        path + ".apiGroups"});
    }
    if (resources.empty()) {
      causes.push_back({"FieldValueRequired",
                        "Required value: resource rules must supply at least one resource",
                        path + ".resources"});
    }
  }
  return causes;
}

std::string Str(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : "";
}

// Checks roleRef and subjects; defaults the apiGroup of User and Group subjects, as the API
// server's defaulting does.
std::vector<FieldCause> ValidateBinding(json::object& obj, bool namespaced) {
  std::vector<FieldCause> causes;
  json::value* ref = obj.if_contains("roleRef");
  if (ref == nullptr || !ref->is_object()) {
    causes.push_back({"FieldValueRequired", "Required value", "roleRef"});
  } else {
    const json::object& r = ref->as_object();
    std::string group = Str(r, "apiGroup");
    std::string kind = Str(r, "kind");
    if (group != kGroup) {
      causes.push_back(
          {"FieldValueNotSupported",
           "Unsupported value: \"" + group + "\": supported values: \"" + kGroup + "\"",
           "roleRef.apiGroup"});
    }
    if (namespaced && kind != "Role" && kind != "ClusterRole") {
      causes.push_back(
          {"FieldValueNotSupported",
           "Unsupported value: \"" + kind + "\": supported values: \"Role\", \"ClusterRole\"",
           "roleRef.kind"});
    } else if (!namespaced && kind != "ClusterRole") {
      causes.push_back({"FieldValueNotSupported",
                        "Unsupported value: \"" + kind + "\": supported values: \"ClusterRole\"",
                        "roleRef.kind"});
    }
    if (Str(r, "name").empty()) {
      causes.push_back({"FieldValueRequired", "Required value", "roleRef.name"});
    }
  }
  json::value* subjects = obj.if_contains("subjects");
  if (subjects == nullptr || subjects->is_null()) return causes;
  if (!subjects->is_array()) {
    causes.push_back({"FieldValueTypeInvalid", "Invalid value: must be an array", "subjects"});
    return causes;
  }
  json::array& list = subjects->as_array();
  for (size_t i = 0; i < list.size(); ++i) {
    std::string path = "subjects[" + std::to_string(i) + "]";
    if (!list[i].is_object()) {
      causes.push_back({"FieldValueTypeInvalid", "Invalid value: must be an object", path});
      continue;
    }
    json::object& s = list[i].as_object();
    std::string kind = Str(s, "kind");
    if (Str(s, "name").empty()) {
      causes.push_back({"FieldValueRequired", "Required value", path + ".name"});
    }
    if (kind == "ServiceAccount") {
      if (!Str(s, "apiGroup").empty()) {
        causes.push_back(
            {"FieldValueNotSupported",
             "Unsupported value: \"" + Str(s, "apiGroup") + "\": supported values: \"\"",
             path + ".apiGroup"});
      }
      if (!namespaced && Str(s, "namespace").empty()) {
        causes.push_back({"FieldValueRequired", "Required value", path + ".namespace"});
      }
    } else if (kind == "User" || kind == "Group") {
      if (Str(s, "apiGroup").empty()) s["apiGroup"] = kGroup;
      if (Str(s, "apiGroup") != kGroup) {
        causes.push_back({"FieldValueNotSupported",
                          "Unsupported value: \"" + Str(s, "apiGroup") +
                              "\": supported values: \"" + kGroup + "\"",
                          path + ".apiGroup"});
      }
    } else {
      causes.push_back({"FieldValueNotSupported",
                        "Unsupported value: \"" + kind +
                            "\": supported values: \"ServiceAccount\", \"User\", \"Group\"",
                        path + ".kind"});
    }
  }
  return causes;
}

json::object ClusterRole(const char* name, json::array rules) {
  return json::object{{"metadata", json::object{{"name", name},
                                                {"labels", json::object{{"kubernetes.io/"
                                                                         "bootstrapping",
                                                                         "rbac-defaults"}}}}},
                      {"rules", std::move(rules)}};
}

json::object ClusterRoleBinding(const char* name, const json::array& groups) {
  json::array subjects;
  for (const json::value& g : groups) {
    subjects.push_back(
        json::object{{"apiGroup", kGroup}, {"kind", "Group"}, {"name", g.as_string()}});
  }
  return json::object{
      {"metadata",
       json::object{{"name", name},
                    {"labels", json::object{{"kubernetes.io/bootstrapping", "rbac-defaults"}}}}},
      {"roleRef", json::object{{"apiGroup", kGroup}, {"kind", "ClusterRole"}, {"name", name}}},
      {"subjects", std::move(subjects)}};
}

}  // namespace

std::vector<ResourceType> Types() {
  ResourceType roles = Rbac("roles", "role", "Role", true);
  roles.validator = [](json::object& obj, bool, std::vector<std::string>*) {
    return ValidateRules(obj, true);
  };
  ResourceType cluster_roles = Rbac("clusterroles", "clusterrole", "ClusterRole", false);
  cluster_roles.validator = [](json::object& obj, bool, std::vector<std::string>*) {
    return ValidateRules(obj, false);
  };
  ResourceType bindings = Rbac("rolebindings", "rolebinding", "RoleBinding", true);
  bindings.validator = [](json::object& obj, bool, std::vector<std::string>*) {
    return ValidateBinding(obj, true);
  };
  ResourceType cluster_bindings =
      Rbac("clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false);
  cluster_bindings.validator = [](json::object& obj, bool, std::vector<std::string>*) {
    return ValidateBinding(obj, false);
  };
  return {roles, cluster_roles, bindings, cluster_bindings};
}

std::vector<std::pair<std::string, json::object>> BootstrapObjects() {
  json::array discovery_urls{"/api",     "/api/*",     "/apis",   "/apis/*",  "/healthz", "/livez",
                             "/openapi", "/openapi/*", "/readyz", "/version", "/version/"};
  json::array public_urls{"/healthz", "/livez", "/readyz", "/version", "/version/"};
  return {
      {"clusterroles",
       ClusterRole("cluster-admin", json::array{json::object{{"apiGroups", json::array{"*"}},
                                                             {"resources", json::array{"*"}},
                                                             {"verbs", json::array{"*"}}},
                                                json::object{{"nonResourceURLs", json::array{"*"}},
                                                             {"verbs", json::array{"*"}}}})},
      {"clusterrolebindings", ClusterRoleBinding("cluster-admin", json::array{"system:masters"})},
      {"clusterroles",
       ClusterRole("system:discovery", json::array{json::object{{"nonResourceURLs", discovery_urls},
                                                                {"verbs", json::array{"get"}}}})},
      {"clusterrolebindings",
       ClusterRoleBinding("system:discovery", json::array{"system:authenticated"})},
      {"clusterroles", ClusterRole("system:public-info-viewer",
                                   json::array{json::object{{"nonResourceURLs", public_urls},
                                                            {"verbs", json::array{"get"}}}})},
      {"clusterrolebindings",
       ClusterRoleBinding("system:public-info-viewer",
                          json::array{"system:authenticated", "system:unauthenticated"})},
  };
}

}  // namespace kubesim::rbac
