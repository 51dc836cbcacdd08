#include "spark/pod_spec_rules.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "spark/json_util.h"
#include "spark/names.h"
#include "spark/pod_template.h"

namespace kje::spark {
namespace {

using rapidjson::Value;
using Keys = std::initializer_list<std::string_view>;

std::string Join(Keys keys) {
  std::string out;
  for (std::string_view k : keys) {
    if (!out.empty()) out += ", ";
    out += k;
  }
  return out;
}

absl::Status Bad(std::string_view path, std::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(ToAbsl(path), ": ", ToAbsl(problem)));
}

std::string At(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : absl::StrCat(ToAbsl(path), ".", ToAbsl(key));
}
std::string At(std::string_view path, size_t index) {
  return absl::StrCat(ToAbsl(path), "[", index, "]");
}

// What a JSON value is, for "must be an object, not an array".
std::string_view KindOf(const Value& v) {
  if (v.IsObject()) return "an object";
  if (v.IsArray()) return "an array";
  if (v.IsString()) return "a string";
  if (v.IsBool()) return "a boolean";
  if (v.IsNumber()) return "a number";
  return "null";
}

absl::Status Object(const Value& v, std::string_view path, Keys known) {
  if (!v.IsObject()) return Bad(path, absl::StrCat("must be an object, not ", ToAbsl(KindOf(v))));
  for (const auto& m : v.GetObject()) {
    std::string_view key = json::View(m.name);
    bool found = false;
    for (std::string_view k : known) found = found || k == key;
    if (!found) {
      return Bad(At(path, QuoteBounded(key, 64)),
                 absl::StrCat("isn't a supported field here (supported: ", Join(known), ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status Array(const Value& v, std::string_view path) {
  if (!v.IsArray()) return Bad(path, absl::StrCat("must be an array, not ", ToAbsl(KindOf(v))));
  return absl::OkStatus();
}

using TextRule = std::function<bool(std::string_view)>;

// A string member: absent is fine unless required; present, it must meet `rule` (`what` says
// what it must be).
absl::Status Text(const Value& object, std::string_view key, std::string_view path, bool required,
                  const TextRule& rule = nullptr, std::string_view what = "") {
  const Value* v = json::Member(object, key);
  const std::string where = At(path, key);
  if (v == nullptr) return required ? Bad(where, "is required") : absl::OkStatus();
  if (!v->IsString()) return Bad(where, absl::StrCat("must be a string, not ", ToAbsl(KindOf(*v))));
  std::string_view text = json::View(*v);
  if (required && text.empty()) return Bad(where, "is required");
  if (rule && !(text.empty() && !required) && !rule(text)) {
    return Bad(where, absl::StrCat("must be ", ToAbsl(what), ", not ", QuoteBounded(text, 64)));
  }
  return absl::OkStatus();
}

absl::Status OneOf(const Value& object, std::string_view key, std::string_view path, Keys allowed) {
  const Value* v = json::Member(object, key);
  if (v == nullptr) return absl::OkStatus();
  const std::string where = At(path, key);
  if (v->IsString()) {
    for (std::string_view a : allowed) {
      if (json::View(*v) == a) return absl::OkStatus();
    }
  }
  return Bad(where,
             absl::StrCat("must be one of ", Join(allowed),
                          v->IsString() ? absl::StrCat(", not ", QuoteBounded(json::View(*v), 64))
                                        : absl::StrCat(", not ", ToAbsl(KindOf(*v)))));
}

absl::Status Bool(const Value& object, std::string_view key, std::string_view path) {
  const Value* v = json::Member(object, key);
  if (v != nullptr && !v->IsBool()) return Bad(At(path, key), "must be true or false");
  return absl::OkStatus();
}

absl::Status Int(const Value& object, std::string_view key, std::string_view path, int64_t min,
                 int64_t max, bool required = false) {
  const Value* v = json::Member(object, key);
  if (v == nullptr) return required ? Bad(At(path, key), "is required") : absl::OkStatus();
  if (!v->IsInt64() || v->GetInt64() < min || v->GetInt64() > max) {
    return Bad(At(path, key), absl::StrCat("must be a whole number from ", min, " to ", max));
  }
  return absl::OkStatus();
}

absl::Status Strings(const Value& object, std::string_view key, std::string_view path,
                     const TextRule& rule = nullptr, std::string_view what = "") {
  const Value* v = json::Member(object, key);
  if (v == nullptr) return absl::OkStatus();
  const std::string where = At(path, key);
  RETURN_IF_ERROR(Array(*v, where));
  for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
    const Value& item = (*v)[i];
    if (!item.IsString()) return Bad(At(where, i), "must be a string");
    if (rule && !rule(json::View(item))) {
      return Bad(At(where, i), absl::StrCat("must be ", ToAbsl(what), ", not ",
                                            QuoteBounded(json::View(item), 64)));
    }
  }
  return absl::OkStatus();
}

// A map of strings whose keys and values meet the rules.
absl::Status StringMap(const Value& object, std::string_view key, std::string_view path,
                       const TextRule& key_rule, std::string_view key_what,
                       const TextRule& value_rule, std::string_view value_what) {
  const Value* v = json::Member(object, key);
  if (v == nullptr) return absl::OkStatus();
  const std::string where = At(path, key);
  if (!v->IsObject()) return Bad(where, "must be an object of strings");
  for (const auto& m : v->GetObject()) {
    std::string_view k = json::View(m.name);
    const std::string entry = At(where, QuoteBounded(k, 64));
    if (!key_rule(k)) return Bad(entry, absl::StrCat("the key must be ", ToAbsl(key_what)));
    if (!m.value.IsString()) return Bad(entry, "must be a string");
    if (value_rule && !value_rule(json::View(m.value))) {
      return Bad(entry, absl::StrCat("must be ", ToAbsl(value_what), ", not ",
                                     QuoteBounded(json::View(m.value), 64)));
    }
  }
  return absl::OkStatus();
}

bool DnsLabel(std::string_view s) { return IsDns1123Label(s); }
bool DnsSubdomain(std::string_view s) { return IsDns1123Subdomain(s); }
bool AbsolutePath(std::string_view s) { return s.starts_with('/') && !HasControlByte(s); }
bool RelativePath(std::string_view s) {
  if (s.starts_with('/') || HasControlByte(s)) return false;
  for (size_t start = 0; start <= s.size();) {
    size_t slash = s.find('/', start);
    if (slash == std::string_view::npos) slash = s.size();
    if (s.substr(start, slash - start) == "..") return false;
    start = slash + 1;
  }
  return true;
}
bool AnyText(std::string_view) { return true; }
bool Quantity(std::string_view s) { return IsQuantity(s); }

// An IANA service name, as a container port's name: at most 15 lowercase letters, digits and
// dashes, with a letter, no dash at either end nor two in a row.
bool PortName(std::string_view s) {
  if (s.empty() || s.size() > 15 || s.front() == '-' || s.back() == '-') return false;
  bool letter = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '-' && i > 0 && s[i - 1] == '-') return false;
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '-') return false;
    letter = letter || absl::ascii_islower(c);
  }
  return letter;
}

// Volumes Spark adds itself, which a template's can't be named as.
bool SparkVolumeName(std::string_view name) {
  return name.starts_with("spark-local-dir-") || name.starts_with("spark-conf-volume-") ||
         name == kSparkConfigMapVolume || name == kHadoopConfigMapVolume;
}

absl::Status KeyToPaths(const Value& source, std::string_view path) {
  const Value* items = json::Member(source, "items");
  if (items == nullptr) return absl::OkStatus();
  const std::string where = At(path, "items");
  RETURN_IF_ERROR(Array(*items, where));
  for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
    const std::string item = At(where, i);
    RETURN_IF_ERROR(Object((*items)[i], item, {"key", "path", "mode"}));
    RETURN_IF_ERROR(Text((*items)[i], "key", item, true));
    RETURN_IF_ERROR(
        Text((*items)[i], "path", item, true, RelativePath, "a relative path without '..'"));
    RETURN_IF_ERROR(Int((*items)[i], "mode", item, 0, 0777));
  }
  return absl::OkStatus();
}

absl::Status Volume(const Value& v, std::string_view path, std::set<std::string>& names) {
  RETURN_IF_ERROR(
      Object(v, path, {"name", "configMap", "secret", "persistentVolumeClaim", "emptyDir"}));
  RETURN_IF_ERROR(Text(v, "name", path, true, DnsLabel, "a DNS-1123 label"));
  std::string name(json::View(*json::Member(v, "name")));
  if (SparkVolumeName(name)) {
    return Bad(At(path, "name"), absl::StrCat(QuoteBounded(name),
                                              " is a name Spark or the "
                                              "service gives its own volumes: choose another"));
  }
  if (!names.insert(name).second) {
    return Bad(At(path, "name"), absl::StrCat(QuoteBounded(name), " names two volumes"));
  }
  int sources = 0;
  if (const Value* s = json::Member(v, "configMap")) {
    ++sources;
    const std::string where = At(path, "configMap");
    RETURN_IF_ERROR(Object(*s, where, {"name", "items", "defaultMode", "optional"}));
    RETURN_IF_ERROR(Text(*s, "name", where, true, DnsSubdomain, "a DNS-1123 subdomain"));
    RETURN_IF_ERROR(KeyToPaths(*s, where));
    RETURN_IF_ERROR(Int(*s, "defaultMode", where, 0, 0777));
    RETURN_IF_ERROR(Bool(*s, "optional", where));
  }
  if (const Value* s = json::Member(v, "secret")) {
    ++sources;
    const std::string where = At(path, "secret");
    RETURN_IF_ERROR(Object(*s, where, {"secretName", "items", "defaultMode", "optional"}));
    RETURN_IF_ERROR(Text(*s, "secretName", where, true, DnsSubdomain, "a DNS-1123 subdomain"));
    RETURN_IF_ERROR(KeyToPaths(*s, where));
    RETURN_IF_ERROR(Int(*s, "defaultMode", where, 0, 0777));
    RETURN_IF_ERROR(Bool(*s, "optional", where));
  }
  if (const Value* s = json::Member(v, "persistentVolumeClaim")) {
    ++sources;
    const std::string where = At(path, "persistentVolumeClaim");
    RETURN_IF_ERROR(Object(*s, where, {"claimName", "readOnly"}));
    RETURN_IF_ERROR(Text(*s, "claimName", where, true, DnsSubdomain, "a DNS-1123 subdomain"));
    RETURN_IF_ERROR(Bool(*s, "readOnly", where));
  }
  if (const Value* s = json::Member(v, "emptyDir")) {
    ++sources;
    const std::string where = At(path, "emptyDir");
    RETURN_IF_ERROR(Object(*s, where, {"medium", "sizeLimit"}));
    RETURN_IF_ERROR(OneOf(*s, "medium", where, {"", "Memory"}));
    RETURN_IF_ERROR(Text(*s, "sizeLimit", where, false, Quantity, "a quantity such as 1Gi"));
  }
  if (sources != 1) {
    return Bad(path, "must have exactly one of configMap, secret, persistentVolumeClaim, emptyDir");
  }
  return absl::OkStatus();
}

absl::Status EnvVar(const Value& v, std::string_view path) {
  RETURN_IF_ERROR(Object(v, path, {"name", "value", "valueFrom"}));
  RETURN_IF_ERROR(Text(v, "name", path, true, IsEnvVarName, "an environment variable name"));
  RETURN_IF_ERROR(Text(v, "value", path, false));
  const Value* from = json::Member(v, "valueFrom");
  if (from == nullptr) return absl::OkStatus();
  const std::string where = At(path, "valueFrom");
  if (json::Member(v, "value") != nullptr) return Bad(where, "can't be set with value");
  RETURN_IF_ERROR(Object(*from, where, {"secretKeyRef", "configMapKeyRef", "fieldRef"}));
  if (from->MemberCount() != 1) {
    return Bad(where, "must have exactly one of secretKeyRef, configMapKeyRef, fieldRef");
  }
  for (std::string_view ref : {"secretKeyRef", "configMapKeyRef"}) {
    if (const Value* r = json::Member(*from, ref)) {
      const std::string at = At(where, ref);
      RETURN_IF_ERROR(Object(*r, at, {"name", "key", "optional"}));
      RETURN_IF_ERROR(Text(*r, "name", at, true, DnsSubdomain, "a DNS-1123 subdomain"));
      RETURN_IF_ERROR(Text(*r, "key", at, true));
      RETURN_IF_ERROR(Bool(*r, "optional", at));
    }
  }
  if (const Value* r = json::Member(*from, "fieldRef")) {
    const std::string at = At(where, "fieldRef");
    RETURN_IF_ERROR(Object(*r, at, {"fieldPath", "apiVersion"}));
    RETURN_IF_ERROR(Text(*r, "fieldPath", at, true));
    RETURN_IF_ERROR(Text(*r, "apiVersion", at, false));
  }
  return absl::OkStatus();
}

absl::Status EnvFrom(const Value& v, std::string_view path) {
  RETURN_IF_ERROR(Object(v, path, {"secretRef", "configMapRef", "prefix"}));
  RETURN_IF_ERROR(Text(v, "prefix", path, false, IsEnvVarName, "an environment variable name"));
  int refs = 0;
  for (std::string_view ref : {"secretRef", "configMapRef"}) {
    if (const Value* r = json::Member(v, ref)) {
      ++refs;
      const std::string at = At(path, ref);
      RETURN_IF_ERROR(Object(*r, at, {"name", "optional"}));
      RETURN_IF_ERROR(Text(*r, "name", at, true, DnsSubdomain, "a DNS-1123 subdomain"));
      RETURN_IF_ERROR(Bool(*r, "optional", at));
    }
  }
  if (refs != 1) return Bad(path, "must have exactly one of secretRef, configMapRef");
  return absl::OkStatus();
}

absl::Status Resources(const Value& v, std::string_view path) {
  RETURN_IF_ERROR(Object(v, path, {"limits", "requests"}));
  for (std::string_view key : {"limits", "requests"}) {
    const Value* m = json::Member(v, key);
    if (m == nullptr) continue;
    const std::string where = At(path, key);
    if (!m->IsObject()) return Bad(where, "must be an object of quantities");
    for (const auto& r : m->GetObject()) {
      const std::string at = At(where, QuoteBounded(json::View(r.name), 64));
      if (!IsQualifiedName(json::View(r.name))) return Bad(at, "isn't a resource name");
      if (!(r.value.IsString() && IsQuantity(json::View(r.value))) && !r.value.IsUint64()) {
        return Bad(at, "must be a quantity such as 2, 500m or 4Gi");
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Seccomp(const Value& sc, std::string_view path) {
  const Value* v = json::Member(sc, "seccompProfile");
  if (v == nullptr) return absl::OkStatus();
  const std::string where = At(path, "seccompProfile");
  RETURN_IF_ERROR(Object(*v, where, {"type", "localhostProfile"}));
  if (json::Member(*v, "type") == nullptr) return Bad(At(where, "type"), "is required");
  RETURN_IF_ERROR(OneOf(*v, "type", where, {"RuntimeDefault", "Unconfined", "Localhost"}));
  return Text(*v, "localhostProfile", where, false);
}

absl::Status ContainerSecurity(const Value& v, std::string_view path) {
  RETURN_IF_ERROR(
      Object(v, path,
             {"runAsUser", "runAsGroup", "runAsNonRoot", "readOnlyRootFilesystem",
              "allowPrivilegeEscalation", "privileged", "capabilities", "seccompProfile"}));
  RETURN_IF_ERROR(Int(v, "runAsUser", path, 0, INT32_MAX));
  RETURN_IF_ERROR(Int(v, "runAsGroup", path, 0, INT32_MAX));
  for (std::string_view b :
       {"runAsNonRoot", "readOnlyRootFilesystem", "allowPrivilegeEscalation", "privileged"}) {
    RETURN_IF_ERROR(Bool(v, b, path));
  }
  if (const Value* c = json::Member(v, "capabilities")) {
    const std::string where = At(path, "capabilities");
    RETURN_IF_ERROR(Object(*c, where, {"add", "drop"}));
    RETURN_IF_ERROR(Strings(*c, "add", where));
    RETURN_IF_ERROR(Strings(*c, "drop", where));
  }
  return Seccomp(v, path);
}

absl::Status PodSecurity(const Value& v, std::string_view path) {
  RETURN_IF_ERROR(Object(v, path,
                         {"runAsUser", "runAsGroup", "runAsNonRoot", "fsGroup",
                          "fsGroupChangePolicy", "supplementalGroups", "seccompProfile"}));
  RETURN_IF_ERROR(Int(v, "runAsUser", path, 0, INT32_MAX));
  RETURN_IF_ERROR(Int(v, "runAsGroup", path, 0, INT32_MAX));
  RETURN_IF_ERROR(Int(v, "fsGroup", path, 0, INT32_MAX));
  RETURN_IF_ERROR(Bool(v, "runAsNonRoot", path));
  RETURN_IF_ERROR(OneOf(v, "fsGroupChangePolicy", path, {"OnRootMismatch", "Always"}));
  if (const Value* g = json::Member(v, "supplementalGroups")) {
    const std::string where = At(path, "supplementalGroups");
    RETURN_IF_ERROR(Array(*g, where));
    for (rapidjson::SizeType i = 0; i < g->Size(); ++i) {
      if (!(*g)[i].IsInt64() || (*g)[i].GetInt64() < 0) {
        return Bad(At(where, i), "must be a group id from 0");
      }
    }
  }
  return Seccomp(v, path);
}

struct ContainerContext {
  const std::set<std::string>* volumes;
  std::set<std::string>* names;
  bool spark = false;  // the role's Spark container
};

absl::Status Container(const Value& v, std::string_view path, PodRole role,
                       const ContainerContext& context) {
  if (context.spark) {
    // Spark sets the image, the command and its arguments, and the ports of its own container.
    RETURN_IF_ERROR(Object(v, path,
                           {"name", "env", "envFrom", "volumeMounts", "resources",
                            "securityContext", "terminationMessagePolicy"}));
    const Value* name = json::Member(v, "name");
    if (name != nullptr && !(name->IsString() && json::View(*name) == SparkContainerName(role))) {
      return Bad(At(path, "name"),
                 absl::StrCat("the first container is Spark's own: name it ",
                              ToAbsl(SparkContainerName(role)), " or leave the name out"));
    }
  } else {
    RETURN_IF_ERROR(Object(
        v, path,
        {"name", "image", "imagePullPolicy", "command", "args", "workingDir", "env", "envFrom",
         "volumeMounts", "resources", "securityContext", "ports", "terminationMessagePolicy"}));
    RETURN_IF_ERROR(Text(v, "name", path, true, DnsLabel, "a DNS-1123 label"));
    RETURN_IF_ERROR(Text(v, "image", path, true, AnyText));
    RETURN_IF_ERROR(OneOf(v, "imagePullPolicy", path, {"Always", "IfNotPresent", "Never"}));
    RETURN_IF_ERROR(Strings(v, "command", path));
    RETURN_IF_ERROR(Strings(v, "args", path));
    RETURN_IF_ERROR(Text(v, "workingDir", path, false, AbsolutePath, "an absolute path"));
  }
  RETURN_IF_ERROR(OneOf(v, "terminationMessagePolicy", path, {"File", "FallbackToLogsOnError"}));
  std::string name = context.spark ? std::string(SparkContainerName(role))
                                   : std::string(json::View(*json::Member(v, "name")));
  if (!context.names->insert(name).second) {
    return Bad(At(path, "name"), absl::StrCat(QuoteBounded(name), " names two containers"));
  }
  if (const Value* env = json::Member(v, "env")) {
    const std::string where = At(path, "env");
    RETURN_IF_ERROR(Array(*env, where));
    for (rapidjson::SizeType i = 0; i < env->Size(); ++i) {
      RETURN_IF_ERROR(EnvVar((*env)[i], At(where, i)));
    }
  }
  if (const Value* from = json::Member(v, "envFrom")) {
    const std::string where = At(path, "envFrom");
    RETURN_IF_ERROR(Array(*from, where));
    for (rapidjson::SizeType i = 0; i < from->Size(); ++i) {
      RETURN_IF_ERROR(EnvFrom((*from)[i], At(where, i)));
    }
  }
  if (const Value* mounts = json::Member(v, "volumeMounts")) {
    const std::string where = At(path, "volumeMounts");
    RETURN_IF_ERROR(Array(*mounts, where));
    std::set<std::string> paths;
    for (rapidjson::SizeType i = 0; i < mounts->Size(); ++i) {
      const Value& m = (*mounts)[i];
      const std::string at = At(where, i);
      RETURN_IF_ERROR(Object(m, at, {"name", "mountPath", "readOnly", "subPath"}));
      RETURN_IF_ERROR(Text(m, "name", at, true, DnsLabel, "a DNS-1123 label"));
      std::string volume(json::View(*json::Member(m, "name")));
      if (!context.volumes->contains(volume)) {
        return Bad(At(at, "name"), absl::StrCat(QuoteBounded(volume),
                                                " isn't a volume of the template's spec.volumes"));
      }
      RETURN_IF_ERROR(Text(m, "mountPath", at, true, AbsolutePath, "an absolute path"));
      std::string mount_path(json::View(*json::Member(m, "mountPath")));
      if (mount_path == "/opt/spark/conf" || mount_path.starts_with("/opt/spark/conf/")) {
        return Bad(At(at, "mountPath"), "/opt/spark/conf is where Spark mounts its own conf");
      }
      if (!paths.insert(mount_path).second) {
        return Bad(At(at, "mountPath"),
                   absl::StrCat(QuoteBounded(mount_path), " is mounted twice in this container"));
      }
      RETURN_IF_ERROR(Bool(m, "readOnly", at));
      RETURN_IF_ERROR(Text(m, "subPath", at, false, RelativePath, "a relative path without '..'"));
    }
  }
  if (const Value* r = json::Member(v, "resources")) {
    RETURN_IF_ERROR(Resources(*r, At(path, "resources")));
  }
  if (const Value* s = json::Member(v, "securityContext")) {
    RETURN_IF_ERROR(ContainerSecurity(*s, At(path, "securityContext")));
  }
  if (const Value* ports = json::Member(v, "ports")) {
    const std::string where = At(path, "ports");
    RETURN_IF_ERROR(Array(*ports, where));
    for (rapidjson::SizeType i = 0; i < ports->Size(); ++i) {
      const std::string at = At(where, i);
      RETURN_IF_ERROR(Object((*ports)[i], at, {"name", "containerPort", "protocol"}));
      RETURN_IF_ERROR(Int((*ports)[i], "containerPort", at, 1, 65535, true));
      RETURN_IF_ERROR(Text((*ports)[i], "name", at, false, PortName, "an IANA service name"));
      RETURN_IF_ERROR(OneOf((*ports)[i], "protocol", at, {"TCP", "UDP", "SCTP"}));
    }
  }
  return absl::OkStatus();
}

absl::Status Toleration(const Value& v, std::string_view path) {
  RETURN_IF_ERROR(Object(v, path, {"key", "operator", "value", "effect", "tolerationSeconds"}));
  RETURN_IF_ERROR(Text(v, "key", path, false, IsQualifiedName, "a label key"));
  RETURN_IF_ERROR(OneOf(v, "operator", path, {"Equal", "Exists"}));
  RETURN_IF_ERROR(Text(v, "value", path, false, IsLabelValue, "a label value"));
  RETURN_IF_ERROR(OneOf(v, "effect", path, {"", "NoSchedule", "PreferNoSchedule", "NoExecute"}));
  RETURN_IF_ERROR(Int(v, "tolerationSeconds", path, INT64_MIN, INT64_MAX));
  const std::optional<std::string_view> op = json::String(&v, "operator");
  const bool exists = op == "Exists";
  if (exists && !json::String(&v, "value").value_or("").empty()) {
    return Bad(At(path, "value"), "must be empty when the operator is Exists");
  }
  if (json::String(&v, "key").value_or("").empty() && !exists) {
    return Bad(At(path, "operator"), "must be Exists when the key is empty");
  }
  if (json::Member(v, "tolerationSeconds") != nullptr &&
      json::String(&v, "effect").value_or("") != "NoExecute") {
    return Bad(At(path, "tolerationSeconds"), "needs the effect NoExecute");
  }
  return absl::OkStatus();
}

// A node selector requirement (`fields`: a matchFields one) or a label selector one (`label`).
absl::Status Requirement(const Value& v, std::string_view path, bool label) {
  RETURN_IF_ERROR(Object(v, path, {"key", "operator", "values"}));
  RETURN_IF_ERROR(Text(v, "key", path, true, IsQualifiedName, "a label key"));
  if (json::Member(v, "operator") == nullptr) return Bad(At(path, "operator"), "is required");
  if (label) {
    RETURN_IF_ERROR(OneOf(v, "operator", path, {"In", "NotIn", "Exists", "DoesNotExist"}));
  } else {
    RETURN_IF_ERROR(
        OneOf(v, "operator", path, {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}));
  }
  RETURN_IF_ERROR(Strings(v, "values", path));
  const std::string_view op = *json::String(&v, "operator");
  const Value* values = json::Member(v, "values");
  const size_t count = values == nullptr ? 0 : values->Size();
  if ((op == "In" || op == "NotIn") && count == 0) {
    return Bad(At(path, "values"), "must not be empty for In and NotIn");
  }
  if ((op == "Exists" || op == "DoesNotExist") && count != 0) {
    return Bad(At(path, "values"), "must be empty for Exists and DoesNotExist");
  }
  if (op == "Gt" || op == "Lt") {
    int64_t n = 0;
    if (count != 1 || !absl::SimpleAtoi(ToAbsl(json::View((*values)[0])), &n)) {
      return Bad(At(path, "values"), "must be one whole number for Gt and Lt");
    }
  }
  return absl::OkStatus();
}

absl::Status NodeSelectorTerm(const Value& v, std::string_view path) {
  RETURN_IF_ERROR(Object(v, path, {"matchExpressions", "matchFields"}));
  for (std::string_view key : {"matchExpressions", "matchFields"}) {
    const Value* list = json::Member(v, key);
    if (list == nullptr) continue;
    const std::string where = At(path, key);
    RETURN_IF_ERROR(Array(*list, where));
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
      RETURN_IF_ERROR(Requirement((*list)[i], At(where, i), false));
    }
  }
  return absl::OkStatus();
}

absl::Status Weighted(const Value& v, std::string_view path, std::string_view inner,
                      const std::function<absl::Status(const Value&, std::string_view)>& check) {
  RETURN_IF_ERROR(Object(v, path, {"weight", inner}));
  RETURN_IF_ERROR(Int(v, "weight", path, 1, 100, true));
  const Value* term = json::Member(v, inner);
  if (term == nullptr) return Bad(At(path, inner), "is required");
  return check(*term, At(path, inner));
}

absl::Status PodAffinityTerm(const Value& v, std::string_view path) {
  RETURN_IF_ERROR(Object(v, path, {"labelSelector", "topologyKey", "namespaces"}));
  RETURN_IF_ERROR(Text(v, "topologyKey", path, true, IsQualifiedName, "a label key"));
  RETURN_IF_ERROR(Strings(v, "namespaces", path, DnsLabel, "a namespace name"));
  const Value* selector = json::Member(v, "labelSelector");
  if (selector == nullptr) return absl::OkStatus();
  const std::string where = At(path, "labelSelector");
  RETURN_IF_ERROR(Object(*selector, where, {"matchLabels", "matchExpressions"}));
  RETURN_IF_ERROR(StringMap(*selector, "matchLabels", where, IsQualifiedName, "a label key",
                            IsLabelValue, "a label value"));
  if (const Value* list = json::Member(*selector, "matchExpressions")) {
    const std::string at = At(where, "matchExpressions");
    RETURN_IF_ERROR(Array(*list, at));
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
      RETURN_IF_ERROR(Requirement((*list)[i], At(at, i), true));
    }
  }
  return absl::OkStatus();
}

absl::Status Affinity(const Value& v, std::string_view path) {
  constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
  constexpr std::string_view kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";
  RETURN_IF_ERROR(Object(v, path, {"nodeAffinity", "podAffinity", "podAntiAffinity"}));
  if (const Value* node = json::Member(v, "nodeAffinity")) {
    const std::string where = At(path, "nodeAffinity");
    RETURN_IF_ERROR(Object(*node, where, {kRequired, kPreferred}));
    if (const Value* required = json::Member(*node, kRequired)) {
      const std::string at = At(where, kRequired);
      RETURN_IF_ERROR(Object(*required, at, {"nodeSelectorTerms"}));
      const Value* terms = json::Member(*required, "nodeSelectorTerms");
      if (terms == nullptr || !terms->IsArray() || terms->Empty()) {
        return Bad(At(at, "nodeSelectorTerms"), "must be a non-empty array");
      }
      for (rapidjson::SizeType i = 0; i < terms->Size(); ++i) {
        RETURN_IF_ERROR(NodeSelectorTerm((*terms)[i], At(At(at, "nodeSelectorTerms"), i)));
      }
    }
    if (const Value* preferred = json::Member(*node, kPreferred)) {
      const std::string at = At(where, kPreferred);
      RETURN_IF_ERROR(Array(*preferred, at));
      for (rapidjson::SizeType i = 0; i < preferred->Size(); ++i) {
        RETURN_IF_ERROR(Weighted((*preferred)[i], At(at, i), "preference", NodeSelectorTerm));
      }
    }
  }
  for (std::string_view kind : {"podAffinity", "podAntiAffinity"}) {
    const Value* pod = json::Member(v, kind);
    if (pod == nullptr) continue;
    const std::string where = At(path, kind);
    RETURN_IF_ERROR(Object(*pod, where, {kRequired, kPreferred}));
    if (const Value* required = json::Member(*pod, kRequired)) {
      const std::string at = At(where, kRequired);
      RETURN_IF_ERROR(Array(*required, at));
      for (rapidjson::SizeType i = 0; i < required->Size(); ++i) {
        RETURN_IF_ERROR(PodAffinityTerm((*required)[i], At(at, i)));
      }
    }
    if (const Value* preferred = json::Member(*pod, kPreferred)) {
      const std::string at = At(where, kPreferred);
      RETURN_IF_ERROR(Array(*preferred, at));
      for (rapidjson::SizeType i = 0; i < preferred->Size(); ++i) {
        RETURN_IF_ERROR(Weighted((*preferred)[i], At(at, i), "podAffinityTerm", PodAffinityTerm));
      }
    }
  }
  return absl::OkStatus();
}

// Labels the service and the batch schedulers own on the pods.
bool ReservedLabel(std::string_view key) {
  return key.starts_with("gravitino.apache.org/") || key.starts_with("kueue.x-k8s.io/");
}

absl::Status Metadata(const Value& v, std::string_view path) {
  RETURN_IF_ERROR(Object(v, path, {"labels", "annotations"}));
  RETURN_IF_ERROR(StringMap(v, "labels", path, IsQualifiedName, "a label key", IsLabelValue,
                            "a label value (at most 63 letters, digits, '-', '_', '.')"));
  if (const Value* labels = json::Member(v, "labels")) {
    for (const auto& m : labels->GetObject()) {
      if (ReservedLabel(json::View(m.name))) {
        return Bad(At(At(path, "labels"), QuoteBounded(json::View(m.name), 64)),
                   "is a label the service or the queue sets itself");
      }
    }
  }
  return StringMap(v, "annotations", path, IsQualifiedName, "an annotation key", nullptr, "");
}

absl::Status Containers(const Value& spec, std::string_view key, std::string_view path,
                        PodRole role, const std::set<std::string>& volumes,
                        std::set<std::string>& names) {
  const Value* list = json::Member(spec, key);
  if (list == nullptr) return absl::OkStatus();
  const std::string where = At(path, key);
  RETURN_IF_ERROR(Array(*list, where));
  const bool main = key == "containers";
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    ContainerContext context{&volumes, &names, main && i == 0};
    RETURN_IF_ERROR(Container((*list)[i], At(where, i), role, context));
  }
  return absl::OkStatus();
}

}  // namespace

std::string_view SparkContainerName(PodRole role) {
  return role == PodRole::kDriver ? kDriverContainerName : kExecutorContainerName;
}

bool IsQuantity(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0;
  while (i < s.size() && absl::ascii_isdigit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && absl::ascii_isdigit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  std::string_view suffix = s.substr(i);
  if (suffix.empty()) return true;
  for (std::string_view known :
       {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E"}) {
    if (suffix == known) return true;
  }
  if (suffix[0] != 'e' && suffix[0] != 'E') return false;
  suffix.remove_prefix(1);
  if (!suffix.empty() && (suffix[0] == '+' || suffix[0] == '-')) suffix.remove_prefix(1);
  if (suffix.empty()) return false;
  for (char c : suffix) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  return true;
}

bool IsLabelValue(std::string_view v) {
  if (v.empty()) return true;
  if (v.size() > 63 || !absl::ascii_isalnum(v.front()) || !absl::ascii_isalnum(v.back())) {
    return false;
  }
  for (char c : v) {
    if (!absl::ascii_isalnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool IsQualifiedName(std::string_view key) {
  std::string_view name = key;
  if (size_t slash = key.find('/'); slash != std::string_view::npos) {
    if (!IsDns1123Subdomain(key.substr(0, slash))) return false;
    name = key.substr(slash + 1);
  }
  return !name.empty() && IsLabelValue(name);
}

absl::Status CheckPodTemplateSpec(const Value& spec_template, PodRole role) {
  RETURN_IF_ERROR(Object(spec_template, "", {"metadata", "spec"}));
  if (const Value* meta = json::Member(spec_template, "metadata")) {
    RETURN_IF_ERROR(Metadata(*meta, "metadata"));
  }
  const Value* spec = json::Member(spec_template, "spec");
  if (spec == nullptr) return absl::OkStatus();
  constexpr std::string_view kSpec = "spec";
  RETURN_IF_ERROR(Object(*spec, kSpec,
                         {"volumes", "containers", "initContainers", "nodeSelector", "tolerations",
                          "affinity", "priorityClassName", "securityContext"}));
  std::set<std::string> volumes;
  if (const Value* list = json::Member(*spec, "volumes")) {
    const std::string where = At(kSpec, "volumes");
    RETURN_IF_ERROR(Array(*list, where));
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
      RETURN_IF_ERROR(Volume((*list)[i], At(where, i), volumes));
    }
  }
  std::set<std::string> containers;
  RETURN_IF_ERROR(Containers(*spec, "containers", kSpec, role, volumes, containers));
  RETURN_IF_ERROR(Containers(*spec, "initContainers", kSpec, role, volumes, containers));
  RETURN_IF_ERROR(StringMap(*spec, "nodeSelector", kSpec, IsQualifiedName, "a label key",
                            IsLabelValue, "a label value"));
  if (const Value* list = json::Member(*spec, "tolerations")) {
    const std::string where = At(kSpec, "tolerations");
    RETURN_IF_ERROR(Array(*list, where));
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
      RETURN_IF_ERROR(Toleration((*list)[i], At(where, i)));
    }
  }
  if (const Value* affinity = json::Member(*spec, "affinity")) {
    RETURN_IF_ERROR(Affinity(*affinity, At(kSpec, "affinity")));
  }
  RETURN_IF_ERROR(
      Text(*spec, "priorityClassName", kSpec, false, DnsSubdomain, "a DNS-1123 subdomain"));
  if (const Value* security = json::Member(*spec, "securityContext")) {
    RETURN_IF_ERROR(PodSecurity(*security, At(kSpec, "securityContext")));
  }
  return absl::OkStatus();
}

}  // namespace kje::spark
