#include "kubesim/server/api_request.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>

#include "kubesim/schema/schema.h"
#include "kubesim/server/protobuf.h"

namespace kubesim::api_internal {

namespace json = boost::json;

extern const std::vector<std::string> kAllVerbs = {"create", "delete", "deletecollection", "get",
                                                   "list",   "patch",  "update",           "watch"};

std::string Get(const std::map<std::string, std::string>& q, const std::string& key) {
  auto it = q.find(key);
  return it == q.end() ? std::string() : it->second;
}

bool IsTrue(const std::string& v) { return v == "true" || v == "1" || v == "True"; }

bool ParseInt(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

std::string MediaType(std::string_view content_type) {
  std::string_view t = content_type.substr(0, content_type.find(';'));
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  std::string out(t);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

HttpResponse JsonResponse(int status, const json::value& body) {
  HttpResponse r;
  r.status = status;
  r.body = json::serialize(body);
  return r;
}

HttpResponse JsonResponse(int status, const json::object& body) {
  HttpResponse r;
  r.status = status;
  r.body = json::serialize(body);
  return r;
}

ApiError NotFoundPath() {
  return MakeError(404, "NotFound", "the server could not find the requested resource");
}

ApiError BadRequest(std::string message) {
  return MakeError(400, "BadRequest", std::move(message));
}

// Objects nest deeper than Boost.JSON's default limit of 32 (CRDs with their schemas do).
json::value ParseJson(std::string_view text, json::error_code& ec) {
  json::parse_options options;
  options.max_depth = 1000;
  return json::parse(text, ec, {}, options);
}

// Parses a request body as JSON, or YAML when the client says so.
bool ParseBody(const HttpRequest& request, json::object* out, ApiError* error) {
  std::string media = MediaType(request.content_type);
  json::value v;
  if (media == "application/yaml" || media == "application/x-yaml") {
    try {
      v = YamlToJson(YAML::Load(request.body));
    } catch (const std::exception& e) {
      *error = BadRequest(std::string("error decoding YAML: ") + e.what());
      return false;
    }
  } else if (media == "application/vnd.kubernetes.protobuf") {
    std::string message;
    json::object obj;
    if (!DecodeKubernetesProtobuf(request.body, &obj, &message)) {
      *error = MakeError(415, "UnsupportedMediaType", message);
      return false;
    }
    v = std::move(obj);
  } else if (media.empty() || media == "application/json" || media == "*/*") {
    json::error_code ec;
    v = ParseJson(request.body, ec);
    if (ec) {
      *error = BadRequest("error decoding JSON: " + ec.message());
      return false;
    }
  } else {
    *error = MakeError(415, "UnsupportedMediaType",
                       "the body of the request was in an unknown format - accepted media types "
                       "include: application/json, application/yaml");
    return false;
  }
  if (!v.is_object()) {
    *error = BadRequest("the request body must be a JSON object");
    return false;
  }
  *out = std::move(v.as_object());
  return true;
}

std::string MetaString(const json::object& obj, std::string_view key) {
  const json::value* m = obj.if_contains("metadata");
  if (m == nullptr || !m->is_object()) return "";
  const json::value* v = m->as_object().if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : "";
}

// The checks the API server's REST handler makes before the object reaches storage.
bool CheckBodyIdentity(const ResourceType& type, const std::string& ns, const std::string& name,
                       const json::object& obj, ApiError* error) {
  if (const auto* av = obj.if_contains("apiVersion");
      av != nullptr && av->is_string() && av->as_string() != type.api_version()) {
    *error = BadRequest("the API version in the data (" + std::string(av->as_string()) +
                        ") does not match the expected API version (" + type.api_version() + ")");
    return false;
  }
  if (const auto* k = obj.if_contains("kind");
      k != nullptr && k->is_string() && !k->as_string().empty() && k->as_string() != type.kind) {
    *error = BadRequest("the kind in the data (" + std::string(k->as_string()) +
                        ") does not match the expected kind (" + type.kind + ")");
    return false;
  }
  std::string body_ns = MetaString(obj, "namespace");
  if (type.namespaced && !body_ns.empty() && body_ns != ns) {
    *error = BadRequest(
        "the namespace of the provided object does not match the namespace sent on the request");
    return false;
  }
  std::string body_name = MetaString(obj, "name");
  if (!name.empty() && !body_name.empty() && body_name != name) {
    *error = BadRequest("the name of the object (" + body_name +
                        ") does not match the name on the URL (" + name + ")");
    return false;
  }
  return true;
}

bool ParseWriteOptions(const std::map<std::string, std::string>& q, WriteOptions* wo,
                       ApiError* error) {
  std::string dry = Get(q, "dryRun");
  if (!dry.empty() && dry != "All") {
    *error = BadRequest("Invalid dryRun value: " + dry + " (only All is supported)");
    return false;
  }
  wo->dry_run = dry == "All";
  std::string fv = Get(q, "fieldValidation");
  if (!fv.empty() && fv != "Ignore" && fv != "Warn" && fv != "Strict") {
    *error = BadRequest("fieldValidation must be one of \"Ignore\", \"Warn\", or \"Strict\"");
    return false;
  }
  wo->strict_fields = fv == "Strict";
  wo->field_manager = Get(q, "fieldManager");
  return true;
}

bool ParseListOptions(const std::map<std::string, std::string>& q, ListOptions* lo,
                      ApiError* error) {
  lo->label_selector = Get(q, "labelSelector");
  lo->field_selector = Get(q, "fieldSelector");
  lo->continue_token = Get(q, "continue");
  lo->resource_version = Get(q, "resourceVersion");
  lo->resource_version_match = Get(q, "resourceVersionMatch");
  std::string limit = Get(q, "limit");
  if (!limit.empty() && (!ParseInt(limit, &lo->limit) || lo->limit < 0)) {
    *error = BadRequest("invalid limit: " + limit);
    return false;
  }
  const std::string& m = lo->resource_version_match;
  if (!m.empty() && m != "NotOlderThan" && m != "Exact") {
    *error = BadRequest("resourceVersionMatch: Unsupported value: \"" + m + "\"");
    return false;
  }
  return true;
}

bool ParseDeleteOptions(const HttpRequest& request, const std::map<std::string, std::string>& q,
                        DeleteOptions* d, ApiError* error) {
  d->propagation_policy = Get(q, "propagationPolicy");
  std::string grace = Get(q, "gracePeriodSeconds");
  if (!grace.empty()) {
    int64_t g = 0;
    if (!ParseInt(grace, &g)) {
      *error = BadRequest("invalid gracePeriodSeconds: " + grace);
      return false;
    }
    d->grace_period_seconds = g;
  }
  std::string dry = Get(q, "dryRun");
  if (!dry.empty() && dry != "All") {
    *error = BadRequest("Invalid dryRun value: " + dry);
    return false;
  }
  d->dry_run = dry == "All";
  if (!request.body.empty()) {
    json::error_code ec;
    json::value v = ParseJson(request.body, ec);
    if (ec || !v.is_object()) {
      *error = BadRequest("error decoding DeleteOptions");
      return false;
    }
    const json::object& o = v.as_object();
    if (const auto* p = o.if_contains("propagationPolicy"); p != nullptr && p->is_string()) {
      d->propagation_policy = std::string(p->as_string());
    }
    if (const auto* od = o.if_contains("orphanDependents"); od != nullptr && od->is_bool()) {
      if (d->propagation_policy.empty()) {
        d->propagation_policy = od->as_bool() ? "Orphan" : "Background";
      }
    }
    if (const auto* g = o.if_contains("gracePeriodSeconds"); g != nullptr && g->is_int64()) {
      d->grace_period_seconds = g->as_int64();
    }
    if (const auto* pre = o.if_contains("preconditions"); pre != nullptr && pre->is_object()) {
      const auto& po = pre->as_object();
      if (const auto* u = po.if_contains("uid"); u != nullptr && u->is_string()) {
        d->precondition_uid = std::string(u->as_string());
      }
      if (const auto* rv = po.if_contains("resourceVersion"); rv != nullptr && rv->is_string()) {
        d->precondition_resource_version = std::string(rv->as_string());
      }
    }
    if (const auto* dr = o.if_contains("dryRun"); dr != nullptr && dr->is_array()) {
      for (const auto& x : dr->as_array()) {
        if (x.is_string() && x.as_string() == "All") {
          d->dry_run = true;
        } else {
          *error = BadRequest("Invalid dryRun value in DeleteOptions");
          return false;
        }
      }
    }
  }
  const std::string& p = d->propagation_policy;
  if (!p.empty() && p != "Background" && p != "Foreground" && p != "Orphan") {
    *error = MakeError(422, "Invalid",
                       "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported "
                       "value: \"" +
                           p +
                           "\": supported values: \"Foreground\", \"Background\", "
                           "\"Orphan\"");
    return false;
  }
  return true;
}

}  // namespace kubesim::api_internal
