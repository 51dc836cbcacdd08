// Discovery (/api, /apis, resource lists) and OpenAPI documents, from the registered types.

#include <algorithm>

#include "kubesim/server/api.h"
#include "kubesim/server/api_request.h"

namespace kubesim {
namespace {

namespace json = boost::json;
using api_internal::JsonResponse;
using api_internal::kAllVerbs;
using api_internal::NotFoundPath;

json::object ResourceEntry(const ResourceType& t, const std::string& name,
                           const std::vector<std::string>& verbs, bool with_names) {
  json::array jv;
  for (const auto& v : verbs) jv.push_back(json::value(v));
  json::object e{{"name", name},
                 {"singularName", with_names ? t.singular : std::string()},
                 {"namespaced", t.namespaced},
                 {"kind", t.kind},
                 {"verbs", std::move(jv)}};
  if (with_names && !t.short_names.empty()) {
    json::array sn;
    for (const auto& s : t.short_names) sn.push_back(json::value(s));
    e["shortNames"] = std::move(sn);
  }
  if (with_names && !t.categories.empty()) {
    json::array c;
    for (const auto& s : t.categories) c.push_back(json::value(s));
    e["categories"] = std::move(c);
  }
  return e;
}

// Version names in the order Kubernetes prefers them: GA > beta > alpha, newer first.
int VersionRank(const std::string& v) {
  int major = 0;
  size_t i = 1;
  while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
    major = major * 10 + (v[i++] - '0');
  }
  std::string rest = v.substr(i);
  int stability = rest.empty() ? 3 : rest.rfind("beta", 0) == 0 ? 2 : 1;
  int minor = 0;
  for (char c : rest) {
    if (std::isdigit(static_cast<unsigned char>(c))) minor = minor * 10 + (c - '0');
  }
  return stability * 1000000 + major * 1000 + minor;
}

json::object OpenApiOperation(const ResourceType& t, const std::string& action, bool with_body) {
  json::array params;
  auto param = [&](const char* name) {
    params.push_back(
        json::object{{"name", name},
                     {"in", "query"},
                     {"schema", json::object{{"type", "string"}, {"uniqueItems", true}}}});
  };
  if (action == "patch" || action == "put" || action == "post") {
    param("dryRun");
    param("fieldManager");
    param("fieldValidation");
  }
  if (action == "patch") param("force");
  json::object op{
      {"operationId", action + t.kind},
      {"x-kubernetes-action", action},
      {"x-kubernetes-group-version-kind",
       json::object{{"group", t.group}, {"version", t.version}, {"kind", t.kind}}},
      {"parameters", std::move(params)},
      {"responses", json::object{{"200", json::object{{"description", "OK"}}},
                                 {"401", json::object{{"description", "Unauthorized"}}}}}};
  if (with_body) {
    json::object schema{{"type", "object"}};
    json::object content;
    if (action == "patch") {
      // No strategic merge for anything here: kubectl then computes JSON merge patches for
      // custom resources, as it does against a real API server.
      for (const char* mt : {"application/json-patch+json", "application/merge-patch+json",
                             "application/apply-patch+yaml"}) {
        content[mt] = json::object{{"schema", schema}};
      }
    } else {
      content["application/json"] = json::object{{"schema", schema}};
    }
    op["requestBody"] = json::object{{"content", std::move(content)}, {"required", true}};
  }
  return op;
}

}  // namespace

std::map<std::string, std::vector<std::string>> Api::GroupVersions() const {
  std::map<std::string, std::vector<std::string>> out;
  for (const ResourceType& t : store_.Types()) {
    auto& versions = out[t.group];
    if (std::find(versions.begin(), versions.end(), t.version) == versions.end()) {
      versions.push_back(t.version);
    }
  }
  out["apiextensions.k8s.io"] = {"v1"};
  std::lock_guard<std::mutex> lock(crd_mu_);
  for (auto& [group, versions] : out) {
    std::sort(versions.begin(), versions.end(), [](const std::string& a, const std::string& b) {
      return VersionRank(a) > VersionRank(b);
    });
    auto it = preferred_versions_.find(group);
    if (it != preferred_versions_.end()) {
      auto pos = std::find(versions.begin(), versions.end(), it->second);
      if (pos != versions.end()) std::rotate(versions.begin(), pos, pos + 1);
    }
  }
  return out;
}

HttpResponse Api::CoreVersions() const {
  return JsonResponse(200, json::object{{"kind", "APIVersions"},
                                        {"versions", json::array{"v1"}},
                                        {"serverAddressByClientCIDRs", json::array{}}});
}

HttpResponse Api::GroupList() const {
  json::array groups;
  for (const auto& [group, versions] : GroupVersions()) {
    if (group.empty()) continue;
    json::array vs;
    for (const auto& v : versions) {
      vs.push_back(json::object{{"groupVersion", group + "/" + v}, {"version", v}});
    }
    groups.push_back(
        json::object{{"name", group}, {"versions", vs}, {"preferredVersion", vs.front()}});
  }
  return JsonResponse(
      200,
      json::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}});
}

HttpResponse Api::Group(const std::string& group) const {
  auto all = GroupVersions();
  auto it = all.find(group);
  if (group.empty() || it == all.end()) return ErrorResponse(NotFoundPath());
  json::array vs;
  for (const auto& v : it->second) {
    vs.push_back(json::object{{"groupVersion", group + "/" + v}, {"version", v}});
  }
  return JsonResponse(200, json::object{{"kind", "APIGroup"},
                                        {"apiVersion", "v1"},
                                        {"name", group},
                                        {"versions", vs},
                                        {"preferredVersion", vs.front()}});
}

HttpResponse Api::ResourceList(const std::string& group, const std::string& version) const {
  json::array resources;
  if (group == "apiextensions.k8s.io" && version == "v1") {
    ResourceType crd;
    crd.singular = "customresourcedefinition";
    crd.kind = "CustomResourceDefinition";
    crd.short_names = {"crd", "crds"};
    crd.categories = {"api-extensions"};
    crd.namespaced = false;
    resources.push_back(ResourceEntry(crd, "customresourcedefinitions", kAllVerbs, true));
    resources.push_back(
        ResourceEntry(crd, "customresourcedefinitions/status", {"get", "patch", "update"}, false));
  } else {
    std::vector<ResourceType> types;
    for (const ResourceType& t : store_.Types()) {
      if (t.group == group && t.version == version) types.push_back(t);
    }
    if (types.empty()) return ErrorResponse(NotFoundPath());
    std::sort(types.begin(), types.end(),
              [](const ResourceType& a, const ResourceType& b) { return a.plural < b.plural; });
    for (const ResourceType& t : types) {
      std::vector<std::string> verbs = kAllVerbs;
      if (group.empty() && t.plural == "namespaces") {
        verbs.erase(std::find(verbs.begin(), verbs.end(), "deletecollection"));
      }
      resources.push_back(ResourceEntry(t, t.plural, verbs, true));
      if (group.empty() && t.plural == "pods") {
        resources.push_back(ResourceEntry(t, "pods/log", {"get"}, false));
        // Listed with the API server's connect verbs; kubesim's proxy serves GET (pod_proxy.h).
        resources.push_back(
            ResourceEntry(t, "pods/proxy", {"create", "delete", "get", "patch", "update"}, false));
      }
      if (t.status_subresource) {
        resources.push_back(
            ResourceEntry(t, t.plural + "/status", {"get", "patch", "update"}, false));
      }
    }
  }
  return JsonResponse(
      200, json::object{{"kind", "APIResourceList"},
                        {"apiVersion", "v1"},
                        {"groupVersion", group.empty() ? version : group + "/" + version},
                        {"resources", std::move(resources)}});
}

HttpResponse Api::OpenApiV2(const HttpRequest& request) const {
  HttpResponse r;
  if (request.accept.find("protobuf") != std::string::npos) {
    // An empty protobuf message is a valid, empty openapi_v2.Document: clients that load it
    // find no schemas and fall back to their generic behaviour (JSON merge patches for custom
    // resources), which is also what they do for CRDs without published schemas.
    // The API server labels it application/octet-stream: the media type clients ask for has an
    // '@', which Go's mime parser rejects, so kubectl up to 1.2x fails on a response carrying it
    // ("mime: unexpected content after media subtype").
    r.content_type = "application/octet-stream";
    return r;
  }
  r.body = json::serialize(json::object{
      {"swagger", "2.0"},
      {"info", json::object{{"title", "Kubernetes"}, {"version", options_.git_version}}},
      {"paths", json::object{}}});
  return r;
}

HttpResponse Api::OpenApiV3Root() const {
  json::object paths;
  for (const auto& [group, versions] : GroupVersions()) {
    for (const auto& v : versions) {
      std::string key = group.empty() ? "api/" + v : "apis/" + group + "/" + v;
      // The hash lets clients cache documents; it changes with the set of served types.
      std::string doc = OpenApiV3Doc(group, v).body;
      paths[key] = json::object{
          {"serverRelativeURL",
           "/openapi/v3/" + key + "?hash=" + std::to_string(std::hash<std::string>{}(doc))}};
    }
  }
  return JsonResponse(200, json::object{{"paths", std::move(paths)}});
}

HttpResponse Api::OpenApiV3Doc(const std::string& group, const std::string& version) const {
  std::vector<ResourceType> types;
  if (group == "apiextensions.k8s.io" && version == "v1") {
    ResourceType crd;
    crd.group = group;
    crd.version = version;
    crd.plural = "customresourcedefinitions";
    crd.kind = "CustomResourceDefinition";
    crd.namespaced = false;
    types.push_back(crd);
  } else {
    for (const ResourceType& t : store_.Types()) {
      if (t.group == group && t.version == version) types.push_back(t);
    }
  }
  if (types.empty()) return ErrorResponse(NotFoundPath());
  std::string prefix = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  json::object paths;
  for (const ResourceType& t : types) {
    std::string collection = prefix + (t.namespaced ? "/namespaces/{namespace}/" : "/") + t.plural;
    paths[collection] = json::object{{"get", OpenApiOperation(t, "list", false)},
                                     {"post", OpenApiOperation(t, "post", true)},
                                     {"delete", OpenApiOperation(t, "deletecollection", false)}};
    paths[collection + "/{name}"] = json::object{{"get", OpenApiOperation(t, "get", false)},
                                                 {"put", OpenApiOperation(t, "put", true)},
                                                 {"patch", OpenApiOperation(t, "patch", true)},
                                                 {"delete", OpenApiOperation(t, "delete", false)}};
  }
  return JsonResponse(200, json::object{{"openapi", "3.0.0"},
                                        {"info", json::object{{"title", "Kubernetes"},
                                                              {"version", options_.git_version}}},
                                        {"paths", std::move(paths)},
                                        {"components", json::object{{"schemas", json::object{}}}}});
}

}  // namespace kubesim
