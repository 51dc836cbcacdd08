#include "kubesim/sim/s3_credentials.h"

#include <array>
#include <map>

#include "kubesim/sim/json_access.h"

namespace kubesim::sim {
namespace {

namespace json = boost::json;

constexpr std::array<const char*, 3> kNames = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                                               "AWS_SESSION_TOKEN"};

bool Wanted(std::string_view name) {
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

// A Secret's value for `key`: `data` (base64) or, as written, `stringData`.
std::optional<std::string> SecretValue(const json::object& secret, const std::string& key) {
  if (const json::object* data = ObjectAt(secret, "data")) {
    if (const json::value* v = data->if_contains(key); v && v->is_string()) {
      return DecodeBase64(v->get_string());
    }
  }
  if (const json::object* data = ObjectAt(secret, "stringData")) {
    if (const json::value* v = data->if_contains(key); v && v->is_string()) {
      return std::string(v->get_string());
    }
  }
  return std::nullopt;
}

std::optional<json::object> Secret(const ObjectLookup& lookup, const std::string& name) {
  if (!lookup || name.empty()) return std::nullopt;
  return lookup("secrets", name);
}

const json::object* FindContainer(const json::object& pod, std::string_view name) {
  const json::value* cs =
      ObjectAt(pod, "spec") ? ObjectAt(pod, "spec")->if_contains("containers") : nullptr;
  if (cs == nullptr || !cs->is_array()) return nullptr;
  for (const json::value& c : cs->get_array()) {
    if (c.is_object() && StringAt(c.get_object(), "name") == name) return &c.get_object();
  }
  return nullptr;
}

// The envFrom secretRefs' keys, later sources over earlier ones as the kubelet applies them.
void FromEnvFrom(const json::object& container, const ObjectLookup& lookup,
                 std::map<std::string, std::string>* out) {
  const json::value* list = container.if_contains("envFrom");
  if (list == nullptr || !list->is_array()) return;
  for (const json::value& e : list->get_array()) {
    if (!e.is_object()) continue;
    const json::object* ref = ObjectAt(e.get_object(), "secretRef");
    if (ref == nullptr) continue;
    std::optional<json::object> secret = Secret(lookup, StringAt(*ref, "name"));
    if (!secret) continue;
    const std::string prefix = StringAt(e.get_object(), "prefix");
    for (const char* name : kNames) {
      std::string_view n(name);
      if (!n.starts_with(prefix)) continue;
      if (auto v = SecretValue(*secret, std::string(n.substr(prefix.size())))) (*out)[name] = *v;
    }
  }
}

void FromEnv(const json::object& container, const ObjectLookup& lookup,
             std::map<std::string, std::string>* out) {
  const json::value* list = container.if_contains("env");
  if (list == nullptr || !list->is_array()) return;
  for (const json::value& e : list->get_array()) {
    if (!e.is_object()) continue;
    const json::object& entry = e.get_object();
    const std::string name = StringAt(entry, "name");
    if (!Wanted(name)) continue;
    if (const json::value* v = entry.if_contains("value"); v && v->is_string()) {
      (*out)[name] = std::string(v->get_string());
      continue;
    }
    const json::object* ref = ObjectAt(ObjectAt(entry, "valueFrom"), "secretKeyRef");
    if (ref == nullptr) continue;
    std::optional<json::object> secret = Secret(lookup, StringAt(*ref, "name"));
    std::optional<std::string> value =
        secret ? SecretValue(*secret, StringAt(*ref, "key")) : std::nullopt;
    if (value) {
      (*out)[name] = *value;
    } else {
      out->erase(name);
    }
  }
}

int Sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::optional<std::string> DecodeBase64(std::string_view in) {
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  if (in.size() % 4 == 1) return std::nullopt;
  std::string out;
  uint32_t bits = 0;
  int have = 0;
  for (char c : in) {
    const int v = Sextet(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    have += 6;
    if (have >= 8) {
      have -= 8;
      out.push_back(static_cast<char>((bits >> have) & 0xff));
    }
  }
  return out;
}

std::optional<S3Credentials> PodS3Credentials(const json::object& pod, std::string_view container,
                                              const ObjectLookup& lookup) {
  const json::object* c = FindContainer(pod, container);
  if (c == nullptr) return std::nullopt;
  std::map<std::string, std::string> env;
  FromEnvFrom(*c, lookup, &env);
  FromEnv(*c, lookup, &env);
  auto id = env.find("AWS_ACCESS_KEY_ID");
  auto secret = env.find("AWS_SECRET_ACCESS_KEY");
  if (id == env.end() || secret == env.end() || id->second.empty() || secret->second.empty()) {
    return std::nullopt;
  }
  S3Credentials out;
  out.access_key_id = id->second;
  out.secret_access_key = secret->second;
  if (auto token = env.find("AWS_SESSION_TOKEN"); token != env.end()) {
    out.session_token = token->second;
  }
  return out;
}

}  // namespace kubesim::sim
