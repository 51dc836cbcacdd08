#include "kubesim/rbac/rbac.h"

#include <algorithm>

namespace kubesim::rbac {
namespace {

namespace json = boost::json;

constexpr char kGroup[] = "rbac.authorization.k8s.io";

std::vector<std::string> Strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_array()) return out;
  for (const json::value& s : v->as_array()) {
    if (s.is_string()) out.emplace_back(s.as_string());
  }
  return out;
}

std::string String(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : "";
}

bool Contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool ResourceMatches(const std::vector<std::string>& resources, const Attributes& a) {
  std::string combined = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  for (const std::string& r : resources) {
    if (r == "*" || r == combined) return true;
    if (!a.subresource.empty() && r == "*/" + a.subresource) return true;
  }
  return false;
}

bool NonResourceMatches(const std::vector<std::string>& urls, const std::string& path) {
  for (const std::string& u : urls) {
    if (u == "*" || u == path) return true;
    if (!u.empty() && u.back() == '*' && path.starts_with(u.substr(0, u.size() - 1))) return true;
  }
  return false;
}

bool RuleAllows(const json::object& rule, const Attributes& a) {
  std::vector<std::string> verbs = Strings(rule, "verbs");
  if (!Contains(verbs, "*") && !Contains(verbs, a.verb)) return false;
  if (!a.resource_request) return NonResourceMatches(Strings(rule, "nonResourceURLs"), a.path);
  std::vector<std::string> groups = Strings(rule, "apiGroups");
  if (!Contains(groups, "*") && !Contains(groups, a.api_group)) return false;
  if (!ResourceMatches(Strings(rule, "resources"), a)) return false;
  // Names restrict a rule to those objects: a request without a name (a list, a create) is not
  // one of them.
  std::vector<std::string> names = Strings(rule, "resourceNames");
  return names.empty() || (!a.name.empty() && Contains(names, a.name));
}

bool RoleAllows(const json::object& role, const Attributes& a) {
  const json::value* rules = role.if_contains("rules");
  if (rules == nullptr || !rules->is_array()) return false;
  for (const json::value& r : rules->as_array()) {
    if (r.is_object() && RuleAllows(r.as_object(), a)) return true;
  }
  return false;
}

// A ServiceAccount subject of a RoleBinding without a namespace is in the binding's.
bool SubjectMatches(const json::object& subject, const UserInfo& user,
                    const std::string& binding_ns) {
  std::string kind = String(subject, "kind");
  std::string name = String(subject, "name");
  if (kind == "User") return user.name == name;
  if (kind == "Group") return Contains(user.groups, name);
  if (kind == "ServiceAccount") {
    std::string ns = String(subject, "namespace");
    if (ns.empty()) ns = binding_ns;
    return !ns.empty() && user.name == ServiceAccountUser(ns, name).name;
  }
  return false;
}

bool BindsUser(const json::object& binding, const UserInfo& user, const std::string& ns) {
  const json::value* subjects = binding.if_contains("subjects");
  if (subjects == nullptr || !subjects->is_array()) return false;
  for (const json::value& s : subjects->as_array()) {
    if (s.is_object() && SubjectMatches(s.as_object(), user, ns)) return true;
  }
  return false;
}

// Whether one of the bindings listed (a RoleBinding list of `ns`, or the ClusterRoleBindings
// with `ns` empty) binds the user to a role that allows the request.
bool AnyBindingAllows(const Store& store, const json::object& list, const std::string& ns,
                      const UserInfo& user, const Attributes& a) {
  const ResourceType* roles = store.FindType(kGroup, "v1", "roles");
  const ResourceType* cluster_roles = store.FindType(kGroup, "v1", "clusterroles");
  const json::value* items = list.if_contains("items");
  if (items == nullptr || !items->is_array()) return false;
  for (const json::value& item : items->as_array()) {
    if (!item.is_object() || !BindsUser(item.as_object(), user, ns)) continue;
    const json::value* ref = item.as_object().if_contains("roleRef");
    if (ref == nullptr || !ref->is_object()) continue;
    std::string kind = String(ref->as_object(), "kind");
    std::string name = String(ref->as_object(), "name");
    // A binding to a role that does not exist grants nothing (until the role is created).
    const ResourceType* type = kind == "ClusterRole"           ? cluster_roles
                               : kind == "Role" && !ns.empty() ? roles
                                                               : nullptr;
    if (type == nullptr) continue;
    auto role = store.Get(*type, kind == "Role" ? ns : "", name);
    if (role.ok() && RoleAllows(role.value(), a)) return true;
  }
  return false;
}

}  // namespace

UserInfo ServiceAccountUser(std::string_view ns, std::string_view name) {
  UserInfo u;
  u.name = "system:serviceaccount:" + std::string(ns) + ":" + std::string(name);
  u.groups = {"system:serviceaccounts", "system:serviceaccounts:" + std::string(ns),
              "system:authenticated"};
  return u;
}

bool Allowed(const Store& store, const UserInfo& user, const Attributes& a) {
  if (user.superuser) return true;
  if (const ResourceType* crb = store.FindType(kGroup, "v1", "clusterrolebindings")) {
    auto list = store.List(*crb, "", ListOptions{});
    if (list.ok() && AnyBindingAllows(store, list.value(), "", user, a)) return true;
  }
  if (a.resource_request && !a.ns.empty()) {
    if (const ResourceType* rb = store.FindType(kGroup, "v1", "rolebindings")) {
      auto list = store.List(*rb, a.ns, ListOptions{});
      if (list.ok() && AnyBindingAllows(store, list.value(), a.ns, user, a)) return true;
    }
  }
  return false;
}

ApiError Forbidden(const UserInfo& user, const Attributes& a) {
  ApiError e;
  e.code = 403;
  e.reason = "Forbidden";
  if (!a.resource_request) {
    e.message =
        "forbidden: User \"" + user.name + "\" cannot " + a.verb + " path \"" + a.path + "\"";
    return e;
  }
  std::string resource = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  std::string why =
      "User \"" + user.name + "\" cannot " + a.verb + " resource \"" + resource +
      "\" in API group \"" + a.api_group + "\"" +
      (a.ns.empty() ? std::string(" at the cluster scope") : " in the namespace \"" + a.ns + "\"");
  std::string qualified = a.api_group.empty() ? a.resource : a.resource + "." + a.api_group;
  e.message = a.name.empty() ? qualified + " is forbidden: " + why
                             : qualified + " \"" + a.name + "\" is forbidden: " + why;
  if (!a.name.empty()) e.details["name"] = a.name;
  if (!a.api_group.empty()) e.details["group"] = a.api_group;
  e.details["kind"] = a.resource;
  return e;
}

}  // namespace kubesim::rbac
