#include "kubesim/store/object_util.h"

#include <algorithm>

namespace kubesim::store_internal {

namespace json = boost::json;

// ---- small helpers ------------------------------------------------------------------------

std::string QualifiedResource(const ResourceType& t) {
  return t.group.empty() ? t.plural : t.plural + "." + t.group;
}

std::string QualifiedKind(const ResourceType& t) {
  return t.group.empty() ? t.kind : t.kind + "." + t.group;
}

ApiError Error(int code, std::string reason, std::string message) {
  return ApiError{code, std::move(reason), std::move(message), {}};
}

ApiError BadRequest(std::string message) { return Error(400, "BadRequest", std::move(message)); }

json::object Details(const ResourceType& t, std::string_view name, const std::string& kind) {
  json::object d;
  d["name"] = name;
  if (!t.group.empty()) d["group"] = t.group;
  d["kind"] = kind;
  return d;
}

ApiError NotFound(const ResourceType& t, std::string_view name) {
  ApiError e =
      Error(404, "NotFound", QualifiedResource(t) + " \"" + std::string(name) + "\" not found");
  e.details = Details(t, name, t.plural);
  return e;
}

ApiError AlreadyExists(const ResourceType& t, std::string_view name) {
  ApiError e = Error(409, "AlreadyExists",
                     QualifiedResource(t) + " \"" + std::string(name) + "\" already exists");
  e.details = Details(t, name, t.plural);
  return e;
}

ApiError Conflict(const ResourceType& t, std::string_view name, const std::string& why) {
  ApiError e = Error(409, "Conflict",
                     "Operation cannot be fulfilled on " + QualifiedResource(t) + " \"" +
                         std::string(name) + "\": " + why);
  e.details = Details(t, name, t.plural);
  return e;
}

ApiError Invalid(const ResourceType& t, std::string_view name,
                 const std::vector<FieldCause>& causes) {
  std::string joined;
  json::array causes_json;
  for (const FieldCause& c : causes) {
    if (!joined.empty()) joined += ", ";
    joined += c.field.empty() ? c.message : c.field + ": " + c.message;
    causes_json.push_back(
        json::object{{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
  }
  if (causes.size() > 1) joined = "[" + joined + "]";
  ApiError e = Error(422, "Invalid",
                     QualifiedKind(t) + " \"" + std::string(name) + "\" is invalid: " + joined);
  e.details = Details(t, name, t.kind);
  e.details["causes"] = std::move(causes_json);
  return e;
}

ApiError Expired(std::string message) { return Error(410, "Expired", std::move(message)); }

json::object StatusObject(const ApiError& e) {
  json::object s{{"kind", "Status"},    {"apiVersion", "v1"},   {"metadata", json::object()},
                 {"status", "Failure"}, {"message", e.message}, {"code", e.code}};
  // An error the API server has no reason for (one from etcd) has none on the wire.
  if (!e.reason.empty()) s["reason"] = e.reason;
  if (!e.details.empty()) s["details"] = e.details;
  return s;
}

const json::object* GetObject(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_object() ? &it->value().get_object() : nullptr;
}

const json::object& Meta(const json::object& o) {
  static const json::object kEmpty;
  const json::object* m = GetObject(o, "metadata");
  return m != nullptr ? *m : kEmpty;
}

json::object& MutableMeta(json::object& o) {
  json::value& m = o["metadata"];
  if (!m.is_object()) m = json::object();
  return m.get_object();
}

std::string GetString(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_string() ? std::string(it->value().get_string()) : "";
}

bool Has(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && !it->value().is_null();
}

std::vector<std::string> StringList(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  auto it = o.find(key);
  if (it == o.end() || !it->value().is_array()) return out;
  for (const json::value& v : it->value().get_array()) {
    if (v.is_string()) out.emplace_back(v.get_string());
  }
  return out;
}

bool IsDeleting(const json::object& obj) { return Has(Meta(obj), "deletionTimestamp"); }

bool IsDns1123Label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  auto ok = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; };
  return std::all_of(s.begin(), s.end(), ok) && s.front() != '-' && s.back() != '-';
}

bool IsDns1123Subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    if (!IsDns1123Label(s.substr(start, dot == std::string_view::npos ? s.npos : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::optional<uint64_t> ParseRv(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

}  // namespace kubesim::store_internal
