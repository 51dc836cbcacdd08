#include "kubesim/schema/crd_overlay.h"

#include <yaml-cpp/yaml.h>

#include <memory>

#include "kubesim/schema/schema.h"

namespace kubesim {
namespace {

namespace json = boost::json;

std::string Str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

// The pointer's tokens ("~1" is '/', "~0" is '~').
std::vector<std::string> Tokens(const std::string& pointer) {
  std::vector<std::string> out;
  size_t i = 1;
  while (i <= pointer.size()) {
    size_t end = pointer.find('/', i);
    if (end == std::string::npos) end = pointer.size();
    std::string token = pointer.substr(i, end - i);
    std::string unescaped;
    for (size_t k = 0; k < token.size(); ++k) {
      if (token[k] == '~' && k + 1 < token.size()) {
        unescaped += token[k + 1] == '1' ? '/' : '~';
        ++k;
      } else {
        unescaped += token[k];
      }
    }
    out.push_back(std::move(unescaped));
    i = end + 1;
  }
  return out;
}

bool Apply(json::object& schema, const json::object& op, std::string* error) {
  const std::string kind = Str(op, "op");
  const std::string path = Str(op, "path");
  const json::value* value = op.if_contains("value");
  if ((kind != "add" && kind != "append") || path.empty() || path[0] != '/' || value == nullptr) {
    *error = "an operation needs op add|append, a path starting with / and a value";
    return false;
  }
  std::vector<std::string> tokens = Tokens(path);
  json::value* at = nullptr;
  json::object* parent = &schema;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const bool last = i + 1 == tokens.size();
    if (last && kind == "add") {
      if (parent->contains(tokens[i])) {
        *error = path + ": already in the schema (an overlay only adds)";
        return false;
      }
      (*parent)[tokens[i]] = *value;
      return true;
    }
    at = parent->if_contains(tokens[i]);
    if (at == nullptr || (!last && !at->is_object())) {
      *error = path + ": no such object in the schema";
      return false;
    }
    if (!last) parent = &at->as_object();
  }
  if (at == nullptr || !at->is_array()) {
    *error = path + ": not an array in the schema";
    return false;
  }
  at->as_array().push_back(*value);
  return true;
}

}  // namespace

bool ApplyCrdOverlayFile(const std::string& path, std::vector<Crd>* crds, std::string* error) {
  json::value overlay;
  try {
    overlay = YamlToJson(YAML::LoadFile(path));
  } catch (const std::exception& e) {
    *error = path + ": " + e.what();
    return false;
  }
  if (!overlay.is_object()) {
    *error = path + ": not an overlay object";
    return false;
  }
  const json::object& o = overlay.as_object();
  const std::string crd_name = Str(o, "crd");
  const std::string version = Str(o, "version");
  const json::value* ops = o.if_contains("operations");
  if (crd_name.empty() || version.empty() || ops == nullptr || !ops->is_array()) {
    *error = path + ": needs crd, version and operations";
    return false;
  }
  for (Crd& crd : *crds) {
    if (crd.name != crd_name) continue;
    json::object object = crd.object;
    json::value* versions =
        object["spec"].is_object() ? object["spec"].as_object().if_contains("versions") : nullptr;
    if (versions == nullptr || !versions->is_array()) break;
    for (json::value& v : versions->as_array()) {
      if (!v.is_object() || Str(v.as_object(), "name") != version) continue;
      json::value* schema = nullptr;
      if (json::value* s = v.as_object().if_contains("schema"); s && s->is_object()) {
        schema = s->as_object().if_contains("openAPIV3Schema");
      }
      if (schema == nullptr || !schema->is_object()) {
        *error = path;
        *error += ": version ";
        *error += version;
        *error += " of ";
        *error += crd_name;
        *error += " has no schema";
        return false;
      }
      for (const json::value& op : ops->as_array()) {
        if (!op.is_object() || !Apply(schema->as_object(), op.as_object(), error)) {
          *error = path + ": " + (error->empty() ? "an operation isn't an object" : *error);
          return false;
        }
      }
      std::unique_ptr<Crd> rebuilt = CrdFromJson(object, error);
      if (!rebuilt) {
        *error = path + ": " + *error;
        return false;
      }
      crd = std::move(*rebuilt);
      return true;
    }
    *error = path;
    *error += ": ";
    *error += crd_name;
    *error += " serves no version ";
    *error += version;
    return false;
  }
  *error = path + ": no CRD " + crd_name + " is loaded";
  return false;
}

}  // namespace kubesim
