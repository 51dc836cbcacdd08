#include "kubesim/server/api.h"

#include <algorithm>
#include <utility>

#include "kubesim/schema/schema.h"
#include "kubesim/server/api_request.h"
#include "kubesim/server/table.h"

namespace kubesim {
namespace {

namespace json = boost::json;
using api_internal::BadRequest;
using api_internal::Get;
using api_internal::IsTrue;
using api_internal::JsonResponse;
using api_internal::MediaType;
using api_internal::NotFoundPath;
using api_internal::ParseBody;
using api_internal::ParseJson;

void PrettyTo(const json::value& v, int indent, std::string* out) {
  auto pad = [&](int n) { out->append(static_cast<size_t>(n) * 2, ' '); };
  if (v.is_object()) {
    const auto& o = v.as_object();
    if (o.empty()) {
      out->append("{}");
      return;
    }
    out->append("{\n");
    size_t i = 0;
    for (const auto& kv : o) {
      pad(indent + 1);
      out->append(json::serialize(json::value(kv.key())));
      out->append(": ");
      PrettyTo(kv.value(), indent + 1, out);
      out->append(++i < o.size() ? ",\n" : "\n");
    }
    pad(indent);
    out->push_back('}');
  } else if (v.is_array()) {
    const auto& a = v.as_array();
    if (a.empty()) {
      out->append("[]");
      return;
    }
    out->append("[\n");
    for (size_t i = 0; i < a.size(); ++i) {
      pad(indent + 1);
      PrettyTo(a[i], indent + 1, out);
      out->append(i + 1 < a.size() ? ",\n" : "\n");
    }
    pad(indent);
    out->push_back(']');
  } else {
    out->append(json::serialize(v));
  }
}

}  // namespace

ApiError MakeError(int code, std::string reason, std::string message) {
  ApiError e;
  e.code = code;
  e.reason = std::move(reason);
  e.message = std::move(message);
  return e;
}

ApiError RequestEntityTooLarge(int64_t limit) {
  return MakeError(413, "RequestEntityTooLarge",
                   "Request entity too large: limit is " + std::to_string(limit));
}

json::object StatusObject(const ApiError& error) {
  json::object s{{"kind", "Status"},    {"apiVersion", "v1"},       {"metadata", json::object{}},
                 {"status", "Failure"}, {"message", error.message}, {"code", error.code}};
  // An error the API server has no reason for (one from etcd) has none on the wire.
  if (!error.reason.empty()) s["reason"] = error.reason;
  if (!error.details.empty()) s["details"] = error.details;
  return s;
}

HttpResponse ErrorResponse(const ApiError& error) {
  HttpResponse r = JsonResponse(error.code, StatusObject(error));
  if (const auto* ra = error.details.if_contains("retryAfterSeconds");
      ra != nullptr && ra->is_int64()) {
    r.headers.emplace_back("Retry-After", std::to_string(ra->as_int64()));
  }
  return r;
}

std::string PrettyJson(const json::value& value) {
  std::string out;
  PrettyTo(value, 0, &out);
  out.push_back('\n');
  return out;
}

std::vector<ResourceType> CrdTypes(const Crd& crd) {
  std::vector<ResourceType> out;
  for (const CrdVersion& v : crd.versions) {
    if (!v.served) continue;
    ResourceType t;
    t.group = crd.group;
    t.version = v.name;
    t.plural = crd.plural;
    t.singular = crd.singular;
    t.kind = crd.kind;
    t.list_kind = crd.list_kind.empty() ? crd.kind + "List" : crd.list_kind;
    t.short_names = crd.short_names;
    t.categories = crd.categories;
    t.namespaced = crd.namespaced;
    t.status_subresource = v.status_subresource;
    if (std::shared_ptr<const Schema> schema = v.schema) {
      t.validator = [schema](json::object& obj, bool strict,
                             std::vector<std::string>* unknown_fields) {
        return schema->Validate(obj, strict, unknown_fields);
      };
    }
    out.push_back(std::move(t));
  }
  return out;
}

Api::Api(Store& store, TokenFile& tokens, ApiOptions options, std::function<int64_t()> now_ms)
    : store_(store),
      tokens_(tokens),
      sa_tokens_(now_ms),
      options_(std::move(options)),
      now_ms_(std::move(now_ms)) {
  for (const ResourceType& t : rbac::Types()) store_.RegisterType(t);
  for (const auto& [plural, obj] : rbac::BootstrapObjects()) {
    if (const ResourceType* t = store_.FindType("rbac.authorization.k8s.io", "v1", plural)) {
      store_.Create(*t, "", obj, WriteOptions{});  // already there (a shared store): kept
    }
  }
}

void Api::AddCrd(const Crd& crd) {
  for (const ResourceType& t : CrdTypes(crd)) store_.RegisterType(t);
  std::lock_guard<std::mutex> lock(crd_mu_);
  std::string preferred;
  for (const CrdVersion& v : crd.versions) {
    if (v.served && (v.storage || preferred.empty())) preferred = v.name;
    if (v.served) {
      printer_columns_[crd.group + "/" + v.name + "/" + crd.plural] =
          std::make_shared<const json::array>(v.additional_printer_columns);
    }
  }
  if (!preferred.empty()) preferred_versions_[crd.group] = preferred;
  json::object obj = crd.object;
  obj["apiVersion"] = "apiextensions.k8s.io/v1";
  obj["kind"] = "CustomResourceDefinition";
  json::object& meta =
      obj["metadata"].is_object() ? obj["metadata"].as_object() : obj["metadata"].emplace_object();
  meta["name"] = crd.name;
  if (!meta.contains("uid")) {
    meta["uid"] = "crd-" + std::to_string(std::hash<std::string>{}(crd.name));
  }
  meta["resourceVersion"] = "1";
  meta["generation"] = 1;
  if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = Rfc3339Seconds(now_ms_());
  json::array stored;
  if (!preferred.empty()) stored.push_back(json::value(preferred));
  json::array short_names;
  for (const auto& s : crd.short_names) short_names.push_back(json::value(s));
  std::string now = Rfc3339Seconds(now_ms_());
  obj["status"] = json::object{
      {"acceptedNames", json::object{{"plural", crd.plural},
                                     {"singular", crd.singular},
                                     {"kind", crd.kind},
                                     {"listKind", crd.list_kind},
                                     {"shortNames", short_names}}},
      {"conditions", json::array{json::object{{"type", "NamesAccepted"},
                                              {"status", "True"},
                                              {"reason", "NoConflicts"},
                                              {"message", "no conflicts found"},
                                              {"lastTransitionTime", now}},
                                 json::object{{"type", "Established"},
                                              {"status", "True"},
                                              {"reason", "InitialNamesAccepted"},
                                              {"message", "the initial names have been accepted"},
                                              {"lastTransitionTime", now}}}},
      {"storedVersions", stored}};
  crd_objects_[crd.name] = std::move(obj);
}

HttpResponse Api::Handle(const HttpRequest& request, const std::function<void()>& notify) {
  std::string_view path;
  std::string_view query_text;
  SplitTarget(request.target, &path, &query_text);
  Query query;
  if (!ParseQuery(query_text, &query)) {
    return ErrorResponse(BadRequest("malformed query string"));
  }
  if (static_cast<int64_t>(request.body.size()) > options_.max_body_bytes) {
    return ErrorResponse(RequestEntityTooLarge(options_.max_body_bytes));
  }
  HttpResponse r = Dispatch(request, path, ParseApiPath(path), query, notify);
  if (IsTrue(Get(query, "pretty")) && !r.stream &&
      MediaType(r.content_type) == "application/json") {
    json::error_code ec;
    json::value v = ParseJson(r.body, ec);
    if (!ec) r.body = PrettyJson(v);
  }
  return r;
}

HttpResponse Api::Dispatch(const HttpRequest& request, std::string_view raw_path,
                           const ApiPath& path, const Query& query,
                           const std::function<void()>& notify) {
  using Kind = ApiPath::Kind;
  // Like the API server's system:public-info-viewer: version and health need no credentials.
  if (path.kind == Kind::kVersion || path.kind == Kind::kHealth) {
    if (request.method != "GET" && request.method != "HEAD") {
      return ErrorResponse(MakeError(405, "MethodNotAllowed", "method not allowed"));
    }
    if (path.kind == Kind::kHealth) {
      HttpResponse r;
      r.content_type = "text/plain; charset=utf-8";
      r.body = "ok";
      return r;
    }
    std::string minor = "32";
    if (size_t dot = options_.git_version.find('.'); dot != std::string::npos) {
      minor =
          options_.git_version.substr(dot + 1, options_.git_version.find('.', dot + 1) - dot - 1);
    }
    return JsonResponse(200, json::object{{"major", "1"},
                                          {"minor", minor},
                                          {"gitVersion", options_.git_version},
                                          {"gitCommit", "kubesim"},
                                          {"gitTreeState", "clean"},
                                          {"buildDate", "2026-01-01T00:00:00Z"},
                                          {"goVersion", "go1.23.0"},
                                          {"compiler", "gc"},
                                          {"platform", "linux/amd64"}});
  }
  std::optional<rbac::UserInfo> user = Authenticate(request);
  if (!user) return ErrorResponse(MakeError(401, "Unauthorized", "Unauthorized"));
  if (path.kind != Kind::kResource) {
    // Discovery, OpenAPI and kubesim's own endpoints are non-resource URLs to RBAC.
    rbac::Attributes a;
    a.resource_request = false;
    a.verb = request.method == "HEAD" ? "get" : request.method;
    std::transform(a.verb.begin(), a.verb.end(), a.verb.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    a.path = std::string(raw_path);
    if (!rbac::Allowed(store_, *user, a)) return ErrorResponse(rbac::Forbidden(*user, a));
  }
  bool is_get = request.method == "GET" || request.method == "HEAD";
  switch (path.kind) {
    case Kind::kCoreVersions:
    case Kind::kGroupList:
    case Kind::kGroup:
    case Kind::kResourceList:
    case Kind::kOpenApiV2:
    case Kind::kOpenApiV3Root:
    case Kind::kOpenApiV3Doc:
      if (!is_get) {
        return ErrorResponse(MakeError(405, "MethodNotAllowed",
                                       "the server does not allow this method on the requested "
                                       "resource"));
      }
      break;
    default:
      break;
  }
  switch (path.kind) {
    case Kind::kCoreVersions:
      return CoreVersions();
    case Kind::kGroupList:
      return GroupList();
    case Kind::kGroup:
      return Group(path.group);
    case Kind::kResourceList:
      return ResourceList(path.group, path.version);
    case Kind::kOpenApiV2:
      return OpenApiV2(request);
    case Kind::kOpenApiV3Root:
      return OpenApiV3Root();
    case Kind::kOpenApiV3Doc:
      return OpenApiV3Doc(path.group, path.version);
    case Kind::kKubesim:
      return HandleKubesim(request, path);
    case Kind::kResource:
      return HandleResource(request, path, query, *user, notify);
    default:
      return ErrorResponse(NotFoundPath());
  }
}

const boost::json::array* Api::PrinterColumns(const ResourceType& type) const {
  std::lock_guard<std::mutex> lock(crd_mu_);
  auto it = printer_columns_.find(type.group + "/" + type.version + "/" + type.plural);
  return it == printer_columns_.end() ? nullptr : it->second.get();
}

HttpResponse Api::HandleCrds(const HttpRequest& request, const ApiPath& path, const Query& query) {
  if (!path.ns.empty() || !path.subresource.empty()) return ErrorResponse(NotFoundPath());
  auto not_found = [&](const std::string& name) {
    ApiError e =
        MakeError(404, "NotFound",
                  "customresourcedefinitions.apiextensions.k8s.io \"" + name + "\" not found");
    e.details = json::object{
        {"name", name}, {"group", "apiextensions.k8s.io"}, {"kind", "customresourcedefinitions"}};
    return ErrorResponse(e);
  };
  bool table = AcceptsTable(request.accept);
  if (request.method == "GET" && path.name.empty()) {
    json::array items;
    {
      std::lock_guard<std::mutex> lock(crd_mu_);
      for (const auto& [name, obj] : crd_objects_) items.push_back(obj);
    }
    json::object meta{{"resourceVersion", "1"}};
    if (table) {
      std::vector<const json::object*> ptrs;
      for (const auto& i : items) ptrs.push_back(&i.as_object());
      return JsonResponse(200, RenderTable("apiextensions.k8s.io", "customresourcedefinitions",
                                           TableColumns("apiextensions.k8s.io",
                                                        "customresourcedefinitions", nullptr),
                                           ptrs, Get(query, "includeObject"), meta, now_ms_()));
    }
    return JsonResponse(200, json::object{{"kind", "CustomResourceDefinitionList"},
                                          {"apiVersion", "apiextensions.k8s.io/v1"},
                                          {"metadata", meta},
                                          {"items", std::move(items)}});
  }
  if (request.method == "GET") {
    std::lock_guard<std::mutex> lock(crd_mu_);
    auto it = crd_objects_.find(path.name);
    if (it == crd_objects_.end()) return not_found(path.name);
    return JsonResponse(200, it->second);
  }
  if (request.method == "POST" && path.name.empty()) {
    json::object obj;
    ApiError error;
    if (!ParseBody(request, &obj, &error)) return ErrorResponse(error);
    std::string message;
    std::unique_ptr<Crd> crd = CrdFromJson(obj, &message);
    if (!crd) {
      return ErrorResponse(MakeError(
          422, "Invalid", "CustomResourceDefinition.apiextensions.k8s.io is invalid: " + message));
    }
    {
      std::lock_guard<std::mutex> lock(crd_mu_);
      if (crd_objects_.count(crd->name) > 0) {
        ApiError e = MakeError(
            409, "AlreadyExists",
            "customresourcedefinitions.apiextensions.k8s.io \"" + crd->name + "\" already exists");
        e.details = json::object{{"name", crd->name},
                                 {"group", "apiextensions.k8s.io"},
                                 {"kind", "customresourcedefinitions"}};
        return ErrorResponse(e);
      }
    }
    AddCrd(*crd);
    std::lock_guard<std::mutex> lock(crd_mu_);
    return JsonResponse(201, crd_objects_[crd->name]);
  }
  return ErrorResponse(MakeError(405, "MethodNotAllowed",
                                 "kubesim serves CustomResourceDefinitions for get, list and "
                                 "create only"));
}

}  // namespace kubesim
