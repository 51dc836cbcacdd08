// openAPIV3Schema validation of custom resources, following what the API server does for a
// structural schema, in its order: prune unknown fields (or report them when strict), drop nulls
// of non-nullable fields, apply defaults, then validate. Messages and reasons mirror the API
// server's field errors so clients see what a real cluster would tell them.

#include "kubesim/schema/schema.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace kubesim {
namespace {

namespace json = boost::json;

struct Node {
  std::string type;  // "" (any), object, array, string, integer, number, boolean
  std::string format;
  bool nullable = false;
  bool preserve_unknown = false;
  bool int_or_string = false;
  bool embedded_resource = false;
  std::map<std::string, std::unique_ptr<Node>> properties;
  std::unique_ptr<Node> additional;  // additionalProperties as a schema
  bool additional_any = false;       // additionalProperties: true
  std::unique_ptr<Node> items;
  std::vector<std::string> required;
  std::vector<json::value> enum_values;
  std::optional<double> minimum;
  std::optional<double> maximum;
  bool exclusive_minimum = false;
  bool exclusive_maximum = false;
  std::optional<int64_t> min_length;
  std::optional<int64_t> max_length;
  std::optional<int64_t> min_items;
  std::optional<int64_t> max_items;
  std::optional<int64_t> min_properties;
  std::optional<int64_t> max_properties;
  std::string pattern_text;
  std::optional<std::regex> pattern;
  std::optional<json::value> default_value;
  std::vector<std::unique_ptr<Node>> any_of;
  std::vector<std::unique_ptr<Node>> all_of;
  std::vector<std::unique_ptr<Node>> one_of;
  std::unique_ptr<Node> not_schema;
  std::string list_type;  // atomic, set, map
  std::vector<std::string> list_map_keys;
};

bool ReadInt(const json::value& v, int64_t* out) {
  if (v.is_int64()) {
    *out = v.as_int64();
    return true;
  }
  if (v.is_uint64() && v.as_uint64() <= static_cast<uint64_t>(INT64_MAX)) {
    *out = static_cast<int64_t>(v.as_uint64());
    return true;
  }
  if (v.is_double() && std::floor(v.as_double()) == v.as_double()) {
    *out = static_cast<int64_t>(v.as_double());
    return true;
  }
  return false;
}

bool ReadDouble(const json::value& v, double* out) {
  if (v.is_int64()) {
    *out = static_cast<double>(v.as_int64());
  } else if (v.is_uint64()) {
    *out = static_cast<double>(v.as_uint64());
  } else if (v.is_double()) {
    *out = v.as_double();
  } else {
    return false;
  }
  return true;
}

std::unique_ptr<Node> CompileNode(const json::value& v, const std::string& where,
                                  std::string* error);

bool CompileList(const json::object& o, const char* key, const std::string& where,
                 std::vector<std::unique_ptr<Node>>* out, std::string* error) {
  const json::value* list = o.if_contains(key);
  if (list == nullptr) return true;
  if (!list->is_array()) {
    *error = where + "." + key + " must be an array";
    return false;
  }
  int i = 0;
  for (const auto& item : list->as_array()) {
    auto n = CompileNode(item, where + "." + key + "[" + std::to_string(i++) + "]", error);
    if (!n) return false;
    out->push_back(std::move(n));
  }
  return true;
}

std::unique_ptr<Node> CompileNode(const json::value& v, const std::string& where,
                                  std::string* error) {
  if (!v.is_object()) {
    *error = where + " must be an object";
    return nullptr;
  }
  const json::object& o = v.as_object();
  auto n = std::make_unique<Node>();
  if (o.contains("$ref")) {
    *error = where + ": $ref is not allowed in a CRD schema";
    return nullptr;
  }
  if (const json::value* t = o.if_contains("type")) {
    if (!t->is_string()) {
      *error = where + ".type must be a string";
      return nullptr;
    }
    n->type = std::string(t->as_string());
    static const std::set<std::string> kTypes = {"object",  "array",  "string",
                                                 "integer", "number", "boolean"};
    if (!kTypes.contains(n->type)) {
      *error = where + ".type: unsupported type \"" + n->type + "\"";
      return nullptr;
    }
  }
  auto flag = [&](const char* key) {
    const json::value* f = o.if_contains(key);
    return f != nullptr && f->is_bool() && f->as_bool();
  };
  auto str = [&](const char* key) {
    const json::value* f = o.if_contains(key);
    return f != nullptr && f->is_string() ? std::string(f->as_string()) : std::string();
  };
  auto integer = [&](const char* key) -> std::optional<int64_t> {
    const json::value* f = o.if_contains(key);
    int64_t i = 0;
    if (f != nullptr && ReadInt(*f, &i)) return i;
    return std::nullopt;
  };
  auto number = [&](const char* key) -> std::optional<double> {
    const json::value* f = o.if_contains(key);
    double d = 0;
    if (f != nullptr && ReadDouble(*f, &d)) return d;
    return std::nullopt;
  };
  n->format = str("format");
  n->nullable = flag("nullable");
  n->preserve_unknown = flag("x-kubernetes-preserve-unknown-fields");
  n->int_or_string = flag("x-kubernetes-int-or-string");
  n->embedded_resource = flag("x-kubernetes-embedded-resource");
  n->exclusive_minimum = flag("exclusiveMinimum");
  n->exclusive_maximum = flag("exclusiveMaximum");
  n->minimum = number("minimum");
  n->maximum = number("maximum");
  n->min_length = integer("minLength");
  n->max_length = integer("maxLength");
  n->min_items = integer("minItems");
  n->max_items = integer("maxItems");
  n->min_properties = integer("minProperties");
  n->max_properties = integer("maxProperties");
  n->list_type = str("x-kubernetes-list-type");
  if (const json::value* keys = o.if_contains("x-kubernetes-list-map-keys");
      keys != nullptr && keys->is_array()) {
    for (const auto& k : keys->as_array()) {
      if (k.is_string()) n->list_map_keys.emplace_back(k.as_string());
    }
  }
  n->pattern_text = str("pattern");
  if (!n->pattern_text.empty()) {
    try {
      n->pattern.emplace(n->pattern_text, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error&) {
      // A Go RE2 pattern std::regex can't compile is skipped rather than failing the CRD.
    }
  }
  if (const json::value* d = o.if_contains("default")) n->default_value = *d;
  if (const json::value* e = o.if_contains("enum")) {
    if (!e->is_array()) {
      *error = where + ".enum must be an array";
      return nullptr;
    }
    for (const auto& item : e->as_array()) n->enum_values.push_back(item);
  }
  if (const json::value* r = o.if_contains("required")) {
    if (!r->is_array()) {
      *error = where + ".required must be an array";
      return nullptr;
    }
    for (const auto& item : r->as_array()) {
      if (item.is_string()) n->required.emplace_back(item.as_string());
    }
  }
  if (const json::value* p = o.if_contains("properties")) {
    if (!p->is_object()) {
      *error = where + ".properties must be an object";
      return nullptr;
    }
    for (const auto& kv : p->as_object()) {
      std::string key(kv.key());
      auto child = CompileNode(kv.value(), where + ".properties[" + key + "]", error);
      if (!child) return nullptr;
      n->properties.emplace(std::move(key), std::move(child));
    }
  }
  if (const json::value* a = o.if_contains("additionalProperties")) {
    if (a->is_bool()) {
      n->additional_any = a->as_bool();
    } else {
      n->additional = CompileNode(*a, where + ".additionalProperties", error);
      if (!n->additional) return nullptr;
    }
  }
  if (const json::value* i = o.if_contains("items")) {
    if (!i->is_object()) {
      *error = where + ".items must be a single schema";
      return nullptr;
    }
    n->items = CompileNode(*i, where + ".items", error);
    if (!n->items) return nullptr;
  }
  if (!CompileList(o, "anyOf", where, &n->any_of, error) ||
      !CompileList(o, "allOf", where, &n->all_of, error) ||
      !CompileList(o, "oneOf", where, &n->one_of, error)) {
    return nullptr;
  }
  if (const json::value* no = o.if_contains("not")) {
    n->not_schema = CompileNode(*no, where + ".not", error);
    if (!n->not_schema) return nullptr;
  }
  return n;
}

// ---- Rendering values the way the API server's field errors print them. ----

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// Shortest representation that reads back as the same double (Go's %v for float64).
std::string FormatDouble(double d) {
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  if (std::isnan(d)) return "NaN";
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  return buf;
}

std::string Render(const json::value& v) {
  switch (v.kind()) {
    case json::kind::string:
      return Quote(v.as_string());
    case json::kind::int64:
      return std::to_string(v.as_int64());
    case json::kind::uint64:
      return std::to_string(v.as_uint64());
    case json::kind::double_:
      return FormatDouble(v.as_double());
    case json::kind::bool_:
      return v.as_bool() ? "true" : "false";
    case json::kind::null:
      return "null";
    default:
      return json::serialize(v);
  }
}

std::string NumberText(double d) { return FormatDouble(d); }

// The JSON type name of a value, as the validator infers it. An integer beyond int64 decodes as
// a float in the API server, so it is a "number".
std::string TypeOf(const json::value& v) {
  switch (v.kind()) {
    case json::kind::object:
      return "object";
    case json::kind::array:
      return "array";
    case json::kind::string:
      return "string";
    case json::kind::bool_:
      return "boolean";
    case json::kind::int64:
      return "integer";
    case json::kind::uint64:
      return v.as_uint64() <= static_cast<uint64_t>(INT64_MAX) ? "integer" : "number";
    case json::kind::double_:
      return "number";
    case json::kind::null:
      return "null";
  }
  return "null";
}

// A float that is a whole number within ±2^53 counts as an integer (as in JSON Schema).
bool IsJsonInteger(const json::value& v) {
  if (TypeOf(v) == "integer") return true;
  if (!v.is_double()) return false;
  double d = v.as_double();
  constexpr double kMax = 9007199254740992.0;  // 2^53
  return std::isfinite(d) && std::floor(d) == d && d >= -kMax && d <= kMax;
}

bool JsonEqual(const json::value& a, const json::value& b) {
  double da = 0;
  double db = 0;
  if (ReadDouble(a, &da) && ReadDouble(b, &db)) {
    if (a.kind() == b.kind()) return a == b;
    return da == db;
  }
  return a == b;
}

size_t RuneCount(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string Child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

struct Ctx {
  bool strict = false;
  std::vector<std::string>* unknown = nullptr;
  std::vector<FieldCause>* causes = nullptr;
};

void AddInvalid(Ctx& ctx, const std::string& path, const std::string& value,
                const std::string& detail) {
  ctx.causes->push_back({"FieldValueInvalid", "Invalid value: " + value + ": " + detail, path});
}

// `mutate`: prune, drop nulls and default (the main pass). Composition branches (anyOf, allOf,
// oneOf, not) only validate.
void Process(const Node& n, json::value& v, const std::string& path, bool root, bool mutate,
             Ctx& ctx);

// Validates `v` against `n` without changing it and returns the number of causes it produced.
size_t CheckOnly(const Node& n, const json::value& v, const std::string& path,
                 std::vector<FieldCause>* causes) {
  Ctx ctx;
  ctx.causes = causes;
  size_t before = causes->size();
  // Process only mutates when asked to; the cast keeps a single code path.
  Process(n, const_cast<json::value&>(v), path, false, false, ctx);
  return causes->size() - before;
}

void ProcessObject(const Node& n, json::object& obj, const std::string& path, bool root,
                   bool mutate, Ctx& ctx) {
  if (mutate) {
    std::vector<std::string> to_erase;
    for (auto& kv : obj) {
      std::string_view key = kv.key();
      bool meta_key = key == "apiVersion" || key == "kind" || key == "metadata";
      if ((root || n.embedded_resource) && meta_key) continue;
      auto prop = n.properties.find(std::string(key));
      if (prop != n.properties.end()) {
        const Node& p = *prop->second;
        if (kv.value().is_null() && !p.nullable) {
          if (p.default_value) {
            kv.value() = *p.default_value;
          } else {
            to_erase.emplace_back(key);
          }
        }
        continue;
      }
      if (n.additional || n.additional_any || n.preserve_unknown) continue;
      if (ctx.strict) {
        if (ctx.unknown != nullptr) ctx.unknown->push_back(Child(path, key));
      } else {
        to_erase.emplace_back(key);
      }
    }
    for (const auto& key : to_erase) obj.erase(key);
    for (const auto& [key, p] : n.properties) {
      if (p->default_value && !obj.contains(key)) obj[key] = *p->default_value;
    }
  }
  for (const auto& name : n.required) {
    if (!obj.contains(name)) {
      ctx.causes->push_back({"FieldValueRequired", "Required value", Child(path, name)});
    }
  }
  if (n.max_properties && static_cast<int64_t>(obj.size()) > *n.max_properties) {
    ctx.causes->push_back({"FieldValueTooMany",
                           "Too many: " + std::to_string(obj.size()) + ": must have at most " +
                               std::to_string(*n.max_properties) + " items",
                           path});
  }
  if (n.min_properties && static_cast<int64_t>(obj.size()) < *n.min_properties) {
    AddInvalid(ctx, path, std::to_string(obj.size()),
               path + " in body should have at least " + std::to_string(*n.min_properties) +
                   " properties");
  }
  for (auto& kv : obj) {
    std::string_view key = kv.key();
    if ((root || n.embedded_resource) &&
        (key == "apiVersion" || key == "kind" || key == "metadata")) {
      continue;
    }
    auto prop = n.properties.find(std::string(key));
    const Node* child = nullptr;
    if (prop != n.properties.end()) {
      child = prop->second.get();
    } else if (n.additional) {
      child = n.additional.get();
    }
    if (child != nullptr) Process(*child, kv.value(), Child(path, key), false, mutate, ctx);
  }
}

void ProcessArray(const Node& n, json::array& arr, const std::string& path, bool mutate, Ctx& ctx) {
  if (n.max_items && static_cast<int64_t>(arr.size()) > *n.max_items) {
    ctx.causes->push_back({"FieldValueTooMany",
                           "Too many: " + std::to_string(arr.size()) + ": must have at most " +
                               std::to_string(*n.max_items) + " items",
                           path});
  }
  if (n.min_items && static_cast<int64_t>(arr.size()) < *n.min_items) {
    AddInvalid(ctx, path, std::to_string(arr.size()),
               path + " in body should have at least " + std::to_string(*n.min_items) + " items");
  }
  if (n.items) {
    for (size_t i = 0; i < arr.size(); ++i) {
      Process(*n.items, arr[i], Index(path, i), false, mutate, ctx);
    }
  }
  if (n.list_type == "set") {
    for (size_t i = 1; i < arr.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (arr[i] == arr[j]) {
          ctx.causes->push_back(
              {"FieldValueDuplicate", "Duplicate value: " + Render(arr[i]), Index(path, i)});
          break;
        }
      }
    }
  } else if (n.list_type == "map" && !n.list_map_keys.empty()) {
    auto key_of = [&](const json::value& item) {
      json::object key;
      if (item.is_object()) {
        for (const auto& k : n.list_map_keys) {
          if (const json::value* f = item.as_object().if_contains(k)) key[k] = *f;
        }
      }
      return key;
    };
    std::vector<json::object> keys;
    keys.reserve(arr.size());
    for (size_t i = 0; i < arr.size(); ++i) {
      json::object key = key_of(arr[i]);
      bool dup = false;
      for (const auto& k : keys) dup = dup || k == key;
      if (dup) {
        ctx.causes->push_back(
            {"FieldValueDuplicate", "Duplicate value: " + json::serialize(key), Index(path, i)});
      }
      keys.push_back(std::move(key));
    }
  }
}

void ProcessScalar(const Node& n, const json::value& v, const std::string& path, Ctx& ctx) {
  if (v.is_string()) {
    std::string_view s = v.as_string();
    size_t runes = RuneCount(s);
    if (n.max_length && static_cast<int64_t>(runes) > *n.max_length) {
      ctx.causes->push_back(
          {"FieldValueTooLong",
           "Too long: may not be more than " + std::to_string(*n.max_length) + " bytes", path});
    }
    if (n.min_length && static_cast<int64_t>(runes) < *n.min_length) {
      AddInvalid(
          ctx, path, Render(v),
          path + " in body should be at least " + std::to_string(*n.min_length) + " chars long");
    }
    if (n.pattern && !std::regex_search(s.begin(), s.end(), *n.pattern)) {
      AddInvalid(ctx, path, Render(v), path + " in body should match '" + n.pattern_text + "'");
    }
    return;
  }
  double d = 0;
  if (!v.is_bool() && ReadDouble(v, &d)) {
    if (n.minimum) {
      bool bad = n.exclusive_minimum ? d <= *n.minimum : d < *n.minimum;
      if (bad) {
        AddInvalid(ctx, path, Render(v),
                   path + " in body should be greater than " +
                       (n.exclusive_minimum ? "" : "or equal to ") + NumberText(*n.minimum));
      }
    }
    if (n.maximum) {
      bool bad = n.exclusive_maximum ? d >= *n.maximum : d > *n.maximum;
      if (bad) {
        AddInvalid(ctx, path, Render(v),
                   path + " in body should be less than " +
                       (n.exclusive_maximum ? "" : "or equal to ") + NumberText(*n.maximum));
      }
    }
  }
}

void Process(const Node& n, json::value& v, const std::string& path, bool root, bool mutate,
             Ctx& ctx) {
  if (v.is_null()) {
    if (n.nullable || n.type.empty()) return;
    ctx.causes->push_back(
        {"FieldValueTypeInvalid",
         "Invalid value: \"null\": " + path + " in body must be of type " + n.type + ": \"null\"",
         path});
    return;
  }
  std::string actual = TypeOf(v);
  bool type_ok = true;
  if (!n.type.empty()) {
    if (n.type == "integer") {
      type_ok = IsJsonInteger(v);
    } else if (n.type == "number") {
      type_ok = actual == "integer" || actual == "number";
    } else {
      type_ok = n.type == actual;
    }
  } else if (n.int_or_string) {
    type_ok = actual == "string" || IsJsonInteger(v);
    if (!type_ok && n.any_of.empty()) {
      ctx.causes->push_back(
          {"FieldValueInvalid",
           "Invalid value: \"\": \"" + path + "\" must validate at least one schema (anyOf)",
           path});
      ctx.causes->push_back({"FieldValueTypeInvalid",
                             "Invalid value: \"" + actual + "\": " + path +
                                 " in body must be of type integer: \"" + actual + "\"",
                             path});
      return;
    }
    type_ok = true;  // the anyOf branches below report the details
  }
  if (!type_ok) {
    ctx.causes->push_back({"FieldValueTypeInvalid",
                           "Invalid value: \"" + actual + "\": " + path +
                               " in body must be of type " + n.type + ": \"" + actual + "\"",
                           path});
    return;
  }
  if (!n.enum_values.empty()) {
    bool found = false;
    for (const auto& e : n.enum_values) found = found || JsonEqual(e, v);
    if (!found) {
      std::string supported;
      for (const auto& e : n.enum_values) {
        if (!supported.empty()) supported += ", ";
        supported += e.is_string() ? Quote(e.as_string()) : json::serialize(e);
      }
      ctx.causes->push_back({"FieldValueNotSupported",
                             "Unsupported value: " + Render(v) + ": supported values: " + supported,
                             path});
    }
  }
  if (v.is_object()) {
    ProcessObject(n, v.as_object(), path, root, mutate, ctx);
  } else if (v.is_array()) {
    ProcessArray(n, v.as_array(), path, mutate, ctx);
  } else {
    ProcessScalar(n, v, path, ctx);
  }

  if (!n.all_of.empty()) {
    for (const auto& branch : n.all_of) CheckOnly(*branch, v, path, ctx.causes);
  }
  if (!n.any_of.empty()) {
    std::vector<FieldCause> best;
    bool ok = false;
    for (const auto& branch : n.any_of) {
      std::vector<FieldCause> causes;
      if (CheckOnly(*branch, v, path, &causes) == 0) {
        ok = true;
        break;
      }
      if (best.empty()) best = std::move(causes);
    }
    if (!ok) {
      ctx.causes->push_back(
          {"FieldValueInvalid",
           "Invalid value: \"\": \"" + path + "\" must validate at least one schema (anyOf)",
           path});
      ctx.causes->insert(ctx.causes->end(), best.begin(), best.end());
    }
  }
  if (!n.one_of.empty()) {
    int passed = 0;
    for (const auto& branch : n.one_of) {
      std::vector<FieldCause> causes;
      if (CheckOnly(*branch, v, path, &causes) == 0) ++passed;
    }
    if (passed != 1) {
      ctx.causes->push_back({"FieldValueInvalid",
                             "Invalid value: \"\": \"" + path +
                                 (passed == 0 ? "\" must validate one and only one schema (oneOf)"
                                              : "\" must validate one and only one schema "
                                                "(oneOf). Found more than one valid schema"),
                             path});
    }
  }
  if (n.not_schema) {
    std::vector<FieldCause> causes;
    if (CheckOnly(*n.not_schema, v, path, &causes) == 0) {
      ctx.causes->push_back(
          {"FieldValueInvalid",
           "Invalid value: \"\": \"" + path + "\" must not validate the schema (not)", path});
    }
  }
}

class CompiledSchema : public Schema {
 public:
  explicit CompiledSchema(std::unique_ptr<Node> root) : root_(std::move(root)) {}

  std::vector<FieldCause> Validate(json::object& obj, bool strict,
                                   std::vector<std::string>* unknown_fields) const override {
    std::vector<FieldCause> causes;
    Ctx ctx;
    ctx.strict = strict;
    ctx.unknown = unknown_fields;
    ctx.causes = &causes;
    ProcessObject(*root_, obj, "", /*root=*/true, /*mutate=*/true, ctx);
    return causes;
  }

 private:
  std::unique_ptr<Node> root_;
};

}  // namespace

std::unique_ptr<Schema> Schema::Compile(const json::value& open_api_v3_schema, std::string* error) {
  std::string local_error;
  std::string* err = error != nullptr ? error : &local_error;
  if (!open_api_v3_schema.is_object()) {
    *err = "openAPIV3Schema must be an object";
    return nullptr;
  }
  auto root = CompileNode(open_api_v3_schema, "openAPIV3Schema", err);
  if (!root) return nullptr;
  if (!root->type.empty() && root->type != "object") {
    *err = "openAPIV3Schema.type must be object";
    return nullptr;
  }
  return std::make_unique<CompiledSchema>(std::move(root));
}

}  // namespace kubesim
