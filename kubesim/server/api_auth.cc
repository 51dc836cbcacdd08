// Who a request comes from and what RBAC judges it by; ServiceAccount tokens (TokenRequest).

#include <algorithm>
#include <cctype>

#include "kubesim/server/api.h"
#include "kubesim/server/api_request.h"

namespace kubesim {

namespace json = boost::json;
using api_internal::BadRequest;
using api_internal::Get;
using api_internal::IsTrue;
using api_internal::JsonResponse;
using api_internal::ParseBody;

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The API server's default audience for tokens without one of their own.
constexpr char kDefaultAudience[] = "https://kubernetes.default.svc.cluster.local";

}  // namespace

std::optional<rbac::UserInfo> Api::Authenticate(const HttpRequest& request) {
  if (request.client_cert_verified || tokens_.Check(request.authorization)) {
    rbac::UserInfo admin;
    admin.name = "kubesim-admin";
    admin.groups = {"system:masters", "system:authenticated"};
    admin.superuser = true;
    return admin;
  }
  std::string_view auth = request.authorization;
  constexpr std::string_view kBearer = "bearer ";
  if (auth.size() <= kBearer.size() ||
      Lower(std::string(auth.substr(0, kBearer.size()))) != kBearer) {
    return std::nullopt;
  }
  return sa_tokens_.Authenticate(auth.substr(kBearer.size()), store_);
}

rbac::Attributes Api::ResourceAttributes(const HttpRequest& request, const ApiPath& path,
                                         const Query& query) {
  rbac::Attributes a;
  a.api_group = path.group;
  a.resource = path.plural;
  a.subresource = path.subresource;
  a.name = path.name;
  a.ns = path.ns;
  bool watch = path.legacy_watch || IsTrue(Get(query, "watch"));
  const std::string& m = request.method;
  if (m == "GET" || m == "HEAD") {
    a.verb = watch ? "watch" : path.name.empty() ? "list" : "get";
  } else if (m == "POST") {
    a.verb = "create";
  } else if (m == "PUT") {
    a.verb = "update";
  } else if (m == "PATCH") {
    a.verb = "patch";
  } else if (m == "DELETE") {
    a.verb = path.name.empty() ? "deletecollection" : "delete";
  } else {
    a.verb = Lower(m);
  }
  // A list or watch of one object by name is about that object, so that rules with
  // resourceNames can allow it (as informers of a single object need).
  if ((a.verb == "list" || a.verb == "watch") && a.name.empty()) {
    std::string selector = Get(query, "fieldSelector");
    for (std::string_view prefix : {"metadata.name==", "metadata.name="}) {
      if (selector.starts_with(prefix) && selector.find(',') == std::string::npos) {
        a.name = selector.substr(prefix.size());
        break;
      }
    }
  }
  // A namespace is in itself: a RoleBinding in `x` can grant `get` of namespace `x`.
  if (a.api_group.empty() && a.resource == "namespaces" && !a.name.empty()) a.ns = a.name;
  return a;
}

HttpResponse Api::HandleTokenRequest(const HttpRequest& request, const ApiPath& path,
                                     const ResourceType& type) {
  auto sa = store_.Get(type, path.ns, path.name);
  if (!sa.ok()) return ErrorResponse(sa.error());
  int64_t seconds = 3600;
  json::array audiences{kDefaultAudience};
  if (!request.body.empty()) {
    json::object body;
    ApiError error;
    if (!ParseBody(request, &body, &error)) return ErrorResponse(error);
    const json::value* spec = body.if_contains("spec");
    if (spec != nullptr && spec->is_object()) {
      const json::object& s = spec->as_object();
      if (const json::value* e = s.if_contains("expirationSeconds");
          e != nullptr && !e->is_null()) {
        if (!e->is_int64()) {
          return ErrorResponse(BadRequest("spec.expirationSeconds: not an integer"));
        }
        seconds = e->as_int64();
        std::string why;
        if (seconds < 600) why = "may not specify a duration less than 10 minutes";
        if (seconds > (int64_t{1} << 32)) {
          why = "may not specify a duration larger than 2^32 seconds";
        }
        if (!why.empty()) {
          ApiError invalid =
              MakeError(422, "Invalid",
                        "TokenRequest.authentication.k8s.io \"" + path.name +
                            "\" is invalid: spec.expirationSeconds: Invalid value: " +
                            std::to_string(seconds) + ": " + why);
          invalid.details = json::object{
              {"name", path.name},
              {"group", "authentication.k8s.io"},
              {"kind", "TokenRequest"},
              {"causes", json::array{json::object{
                             {"reason", "FieldValueInvalid"},
                             {"message", "Invalid value: " + std::to_string(seconds) + ": " + why},
                             {"field", "spec.expirationSeconds"}}}}};
          return ErrorResponse(invalid);
        }
      }
      if (const json::value* aud = s.if_contains("audiences");
          aud != nullptr && aud->is_array() && !aud->as_array().empty()) {
        audiences = aud->as_array();
      }
    }
  }
  const json::value* uid = sa.value().at("metadata").as_object().if_contains("uid");
  int64_t now = now_ms_();
  int64_t expires = now + seconds * 1000;
  std::string token = sa_tokens_.Issue(
      path.ns, path.name, uid != nullptr && uid->is_string() ? uid->as_string() : "", expires);
  if (token.empty()) {
    return ErrorResponse(MakeError(500, "InternalError", "no randomness for a token"));
  }
  stats_.Record("create", "serviceaccounts", 201);
  return JsonResponse(
      201,
      json::object{{"kind", "TokenRequest"},
                   {"apiVersion", "authentication.k8s.io/v1"},
                   {"metadata", json::object{{"name", path.name},
                                             {"namespace", path.ns},
                                             {"creationTimestamp", Rfc3339Seconds(now)}}},
                   {"spec", json::object{{"audiences", std::move(audiences)},
                                         {"expirationSeconds", seconds},
                                         {"boundObjectRef", nullptr}}},
                   {"status", json::object{{"token", token},
                                           {"expirationTimestamp", Rfc3339Seconds(expires)}}}});
}

}  // namespace kubesim
