#pragma once

// Role-based access control as the API server's RBAC authorizer evaluates it: Roles and
// ClusterRoles (rbac.authorization.k8s.io/v1) are stored objects like any other, bound to
// users, groups and ServiceAccounts by RoleBindings (in their namespace only) and
// ClusterRoleBindings (everywhere). A request is allowed when one rule of one bound role covers
// its verb, API group, resource (or resource/subresource), name and namespace; there are no deny
// rules. No HTTP here: the server builds the Attributes of each request.

#include <boost/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kubesim/store/store.h"

namespace kubesim::rbac {

// Who makes a request.
struct UserInfo {
  std::string name;  // e.g. "system:serviceaccount:spark-jobs:executor"
  std::vector<std::string> groups;
  // In system:masters, as a cluster's admin credentials are: allowed everything, unchecked.
  bool superuser = false;
};

// What a request asks, as the API server's request info describes it.
struct Attributes {
  bool resource_request = true;
  // Resource requests: get, list, watch, create, update, patch, delete, deletecollection.
  // Others: the lowercased HTTP method (get, post, put, patch, delete).
  std::string verb;
  std::string api_group;  // "" for the core group
  std::string resource;   // the plural, e.g. "pods"
  std::string subresource;
  std::string name;  // "" for collections (and creates)
  std::string ns;    // "" for cluster-scoped requests and lists across namespaces
  std::string path;  // the URL path of a non-resource request
};

// The four RBAC types, with validation of their rules, roleRefs and subjects.
std::vector<ResourceType> Types();

// The roles every cluster starts with, as (plural, object): cluster-admin for system:masters,
// and system:discovery and system:public-info-viewer for every authenticated user, so a
// ServiceAccount can discover the API before any binding of its own.
std::vector<std::pair<std::string, boost::json::object>> BootstrapObjects();

// The identity of a ServiceAccount's tokens.
UserInfo ServiceAccountUser(std::string_view ns, std::string_view name);

// Whether a rule of a role bound to `user` allows `attributes` (always, for a superuser).
bool Allowed(const Store& store, const UserInfo& user, const Attributes& attributes);

// The 403 the API server answers a denied request with.
ApiError Forbidden(const UserInfo& user, const Attributes& attributes);

}  // namespace kubesim::rbac
