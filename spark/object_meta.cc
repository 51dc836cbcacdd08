#include "spark/object_meta.h"

#include "spark/names.h"

namespace kje::spark {
namespace {

void WriteStringMap(json::Writer& w, std::string_view key,
                    const std::map<std::string, std::string>& values) {
  json::Key(w, key);
  w.StartObject();
  for (const auto& [k, v] : values) json::KeyStr(w, k, v);
  w.EndObject();
}

}  // namespace

ObjectMeta JobObjectMeta(std::string_view name, std::string_view namespace_,
                         std::string_view job_id, std::string_view metalake) {
  ObjectMeta meta;
  meta.name = std::string(name);
  meta.namespace_ = std::string(namespace_);
  meta.labels.emplace(kLabelManagedBy, kManagedByGravitino);
  meta.labels.emplace(kLabelJobId, job_id);
  if (!metalake.empty()) meta.annotations.emplace(kAnnotationMetalake, metalake);
  return meta;
}

void WriteObjectMeta(json::Writer& w, const ObjectMeta& meta) {
  json::Key(w, "metadata");
  w.StartObject();
  json::KeyStr(w, "name", meta.name);
  json::KeyStr(w, "namespace", meta.namespace_);
  if (!meta.labels.empty()) WriteStringMap(w, "labels", meta.labels);
  if (!meta.annotations.empty()) WriteStringMap(w, "annotations", meta.annotations);
  w.EndObject();
}

}  // namespace kje::spark
