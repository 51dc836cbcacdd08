#include "spark/pod_template.h"

#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/names.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "rapidjson/error/en.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "spark/json_util.h"
#include "spark/json_writer.h"
#include "spark/pod_spec_rules.h"

namespace kje::spark {
namespace {

using rapidjson::Document;
using rapidjson::Value;

constexpr std::string_view kEnvSecretSuffix = "-env";
constexpr std::string_view kHadoopConfDirEnv = "HADOOP_CONF_DIR";

std::string_view Blank(std::string_view text) {
  return ToStd(absl::StripAsciiWhitespace(ToAbsl(text)));
}

// The custom field's text, trimmed; "" when absent or blank.
std::string_view FieldText(const std::map<std::string, std::string>& fields, std::string_view key) {
  auto it = fields.find(std::string(key));
  return it == fields.end() ? std::string_view() : Blank(it->second);
}

absl::Status FieldError(std::string_view field, const std::string& template_name,
                        std::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("The custom field ", ToAbsl(field),
                                                 " of job template ", template_name, ": ",
                                                 ToAbsl(problem)));
}

// The role's template as given (a JSON object), checked; an empty object when none is.
absl::StatusOr<Document> ParseRole(const std::map<std::string, std::string>& fields,
                                   std::string_view role_field, PodRole role,
                                   const std::string& template_name) {
  std::string_view field = role_field;
  std::string_view text = FieldText(fields, role_field);
  if (text.empty()) {
    field = kCustomFieldPodTemplate;
    text = FieldText(fields, kCustomFieldPodTemplate);
  }
  Document doc;
  if (text.empty()) {
    doc.SetObject();
    return doc;
  }
  if (text.size() > kMaxPodTemplateBytes) {
    return FieldError(
        field, template_name,
        absl::StrCat("is ", text.size(), " bytes, more than the limit of ", kMaxPodTemplateBytes));
  }
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError()) {
    // The text isn't quoted: it may hold anything the caller pasted.
    return FieldError(
        field, template_name,
        absl::StrCat("isn't valid JSON (", rapidjson::GetParseError_En(doc.GetParseError()),
                     " at offset ", doc.GetErrorOffset(),
                     "): it must be a JSON object holding a pod template "
                     "(metadata and spec of a core/v1 PodTemplateSpec)"));
  }
  if (absl::Status bad = CheckPodTemplateSpec(doc, role); !bad.ok()) {
    return FieldError(field, template_name, ToStd(bad.message()));
  }
  return doc;
}

// The member `key` of `object`, added (of `type`) when absent.
Value& Ensure(Value& object, std::string_view key, rapidjson::Type type,
              Document::AllocatorType& alloc) {
  auto ref = rapidjson::StringRef(key.data(), key.size());
  if (auto it = object.FindMember(ref); it != object.MemberEnd()) return it->value;
  object.AddMember(Value(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc),
                   Value(type), alloc);
  return object.FindMember(ref)->value;
}

Value Text(std::string_view text, Document::AllocatorType& alloc) {
  return Value(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc);
}

// The ConfigMap `config_map` as the volume `volume`, mounted at `path` in the Spark container.
absl::Status MountConfigMap(Document& doc, Value& container, std::string_view field,
                            std::string_view config_map, std::string_view volume,
                            std::string_view path, const std::string& template_name) {
  auto& alloc = doc.GetAllocator();
  Value& mounts = Ensure(container, "volumeMounts", rapidjson::kArrayType, alloc);
  for (const Value& m : mounts.GetArray()) {
    if (json::String(&m, "mountPath") == path) {
      return FieldError(field, template_name,
                        absl::StrCat("mounts at ", ToAbsl(path),
                                     ", where the pod template already mounts a volume"));
    }
  }
  Value& volumes = Ensure(Ensure(doc, "spec", rapidjson::kObjectType, alloc), "volumes",
                          rapidjson::kArrayType, alloc);
  Value source(rapidjson::kObjectType);
  source.AddMember("name", Text(config_map, alloc), alloc);
  Value v(rapidjson::kObjectType);
  v.AddMember("name", Text(volume, alloc), alloc);
  v.AddMember("configMap", source, alloc);
  volumes.PushBack(v, alloc);
  Value mount(rapidjson::kObjectType);
  mount.AddMember("name", Text(volume, alloc), alloc);
  mount.AddMember("mountPath", Text(path, alloc), alloc);
  mount.AddMember("readOnly", true, alloc);
  mounts.PushBack(mount, alloc);
  return absl::OkStatus();
}

struct Additions {
  std::string_view spark_config_map;
  std::string_view hadoop_config_map;
  std::string_view env_secret;
};

absl::StatusOr<std::string> Complete(Document doc, PodRole role, const Additions& add,
                                     const std::string& template_name) {
  auto& alloc = doc.GetAllocator();
  Value& spec = Ensure(doc, "spec", rapidjson::kObjectType, alloc);
  Value& containers = Ensure(spec, "containers", rapidjson::kArrayType, alloc);
  if (containers.Empty()) containers.PushBack(Value(rapidjson::kObjectType), alloc);
  Value& spark = containers[0];
  // Spark names its container itself, and the service finds the driver's by this name.
  if (!spark.HasMember("name"))
    spark.AddMember("name", Text(SparkContainerName(role), alloc), alloc);
  if (!add.spark_config_map.empty()) {
    RETURN_IF_ERROR(MountConfigMap(doc, spark, kCustomFieldSparkConfigMap, add.spark_config_map,
                                   kSparkConfigMapVolume, kSparkConfigMapPath, template_name));
  }
  if (!add.hadoop_config_map.empty()) {
    RETURN_IF_ERROR(MountConfigMap(doc, spark, kCustomFieldHadoopConfigMap, add.hadoop_config_map,
                                   kHadoopConfigMapVolume, kHadoopConfigMapPath, template_name));
    Value env(rapidjson::kObjectType);
    env.AddMember("name", Text(kHadoopConfDirEnv, alloc), alloc);
    env.AddMember("value", Text(kHadoopConfigMapPath, alloc), alloc);
    Ensure(spark, "env", rapidjson::kArrayType, alloc).PushBack(env, alloc);
  }
  if (!add.env_secret.empty()) {
    Value ref(rapidjson::kObjectType);
    ref.AddMember("name", Text(add.env_secret, alloc), alloc);
    Value from(rapidjson::kObjectType);
    from.AddMember("secretRef", ref, alloc);
    Ensure(spark, "envFrom", rapidjson::kArrayType, alloc).PushBack(from, alloc);
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  doc.Accept(w);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

std::string EnvironmentSecretName(std::string_view app_name) {
  return absl::StrCat(ToAbsl(app_name), ToAbsl(kEnvSecretSuffix));
}

bool IsEnvVarName(std::string_view name) {
  if (name.empty() || absl::ascii_isdigit(name.front())) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '-' && c != '.' && c != '_') return false;
  }
  return true;
}

bool IsPodCustomField(std::string_view key) {
  return absl::StartsWith(ToAbsl(key), ToAbsl(kCustomFieldPodTemplate)) ||
         key == kCustomFieldSparkConfigMap || key == kCustomFieldHadoopConfigMap;
}

absl::StatusOr<PodTemplates> ResolvePodTemplates(
    const std::map<std::string, std::string>& custom_fields, std::string_view env_secret,
    const std::string& template_name) {
  for (const auto& [key, value] : custom_fields) {
    if (!absl::StartsWith(key, ToAbsl(kCustomFieldPodTemplate))) continue;
    if (key == kCustomFieldPodTemplate || key == kCustomFieldPodTemplateDriver ||
        key == kCustomFieldPodTemplateExecutor) {
      continue;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "The custom field ", QuoteBounded(key, 64), " of job template ", template_name,
        " isn't known: the pod template fields are ", ToAbsl(kCustomFieldPodTemplate), ", ",
        ToAbsl(kCustomFieldPodTemplateDriver), " and ", ToAbsl(kCustomFieldPodTemplateExecutor)));
  }
  Additions add;
  add.spark_config_map = FieldText(custom_fields, kCustomFieldSparkConfigMap);
  add.hadoop_config_map = FieldText(custom_fields, kCustomFieldHadoopConfigMap);
  add.env_secret = env_secret;
  for (auto [field, name] : {std::pair{kCustomFieldSparkConfigMap, add.spark_config_map},
                             std::pair{kCustomFieldHadoopConfigMap, add.hadoop_config_map}}) {
    if (!name.empty() && !IsDns1123Subdomain(name)) {
      return FieldError(field, template_name,
                        absl::StrCat("must name a ConfigMap (a DNS-1123 subdomain), not ",
                                     QuoteBounded(name, 64)));
    }
  }
  const bool any = !FieldText(custom_fields, kCustomFieldPodTemplate).empty() ||
                   !FieldText(custom_fields, kCustomFieldPodTemplateDriver).empty() ||
                   !FieldText(custom_fields, kCustomFieldPodTemplateExecutor).empty() ||
                   !add.spark_config_map.empty() || !add.hadoop_config_map.empty() ||
                   !env_secret.empty();
  PodTemplates templates;
  if (!any) return templates;
  ASSIGN_OR_RETURN(Document driver, ParseRole(custom_fields, kCustomFieldPodTemplateDriver,
                                              PodRole::kDriver, template_name));
  ASSIGN_OR_RETURN(Document executor, ParseRole(custom_fields, kCustomFieldPodTemplateExecutor,
                                                PodRole::kExecutor, template_name));
  ASSIGN_OR_RETURN(templates.driver,
                   Complete(std::move(driver), PodRole::kDriver, add, template_name));
  ASSIGN_OR_RETURN(templates.executor,
                   Complete(std::move(executor), PodRole::kExecutor, add, template_name));
  return templates;
}

std::string BuildEnvironmentSecret(std::string_view name, std::string_view namespace_,
                                   const std::map<std::string, std::string>& labels,
                                   const std::map<std::string, std::string>& environments) {
  rapidjson::StringBuffer buffer;
  json::Writer w(buffer);
  w.StartObject();
  json::KeyStr(w, "apiVersion", "v1");
  json::KeyStr(w, "kind", "Secret");
  json::Key(w, "metadata");
  w.StartObject();
  json::KeyStr(w, "name", name);
  json::KeyStr(w, "namespace", namespace_);
  json::Key(w, "labels");
  w.StartObject();
  for (const auto& [key, value] : labels) json::KeyStr(w, key, value);
  w.EndObject();
  w.EndObject();
  json::KeyStr(w, "type", "Opaque");
  json::Key(w, "stringData");
  w.StartObject();
  for (const auto& [key, value] : environments) json::KeyStr(w, key, value);
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace kje::spark
