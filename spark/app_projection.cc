#include "spark/app_projection.h"

#include "base/mask.h"
#include "spark/cancel_keep.h"
#include "spark/deadline.h"
#include "spark/json_util.h"
#include "spark/last_words.h"
#include "spark/names.h"
#include "spark/template_hash.h"

namespace kje::spark {

std::string CapMessage(std::string_view raw) {
  // A message may quote a job's conf or arguments (spark-submit's stderr, an operator's
  // refusal): sensitive values are masked before anyone is shown it.
  const std::string masked = MaskText(raw);
  const std::string_view message = masked;
  if (message.size() <= kMaxMessageBytes) return std::string(message);
  size_t cut = kMaxMessageBytes;
  while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) --cut;
  return std::string(message.substr(0, cut)) + "...";
}

std::string_view KueueQueueOf(const AppProjection& app) {
  return app.labels().Find(kLabelKueueQueueName).value_or(std::string_view());
}

absl::StatusOr<AppFields> ProjectMetadata(const rapidjson::Value& app) {
  const rapidjson::Value* metadata = json::Member(app, "metadata");
  std::optional<std::string_view> name = json::String(metadata, "name");
  std::optional<std::string_view> namespace_ = json::String(metadata, "namespace");
  // An API server never serves a namespaced object with an empty name or namespace; one that
  // says so is not an object this cache can key or answer for.
  if (!name || !namespace_ || name->empty() || namespace_->empty()) {
    return absl::InvalidArgumentError(
        "A SparkApplication without a non-empty metadata.name and metadata.namespace");
  }
  AppFields projection;
  projection.name = std::string(*name);
  projection.namespace_ = std::string(*namespace_);
  projection.uid = std::string(json::String(metadata, "uid").value_or(""));
  projection.resource_version = std::string(json::String(metadata, "resourceVersion").value_or(""));
  projection.creation_time = json::Time(metadata, "creationTimestamp");
  projection.deleting = json::String(metadata, "deletionTimestamp").has_value();
  projection.deletion_time = json::Time(metadata, "deletionTimestamp");
  const rapidjson::Value* labels = json::Member(metadata, "labels");
  projection.managed_by_us = json::String(labels, kLabelManagedBy) == kManagedByGravitino;
  projection.kueue_queued = json::String(labels, kLabelKueueQueueName).has_value();
  if (labels && labels->IsObject()) {
    projection.labels.reserve(labels->MemberCount());
    for (const auto& m : labels->GetObject()) {
      if (!m.value.IsString()) continue;
      projection.labels.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()),
                                     std::string(m.value.GetString(), m.value.GetStringLength()));
    }
  }
  const rapidjson::Value* annotations = json::Member(metadata, "annotations");
  projection.metalake = std::string(json::String(annotations, kAnnotationMetalake).value_or(""));
  projection.cancel_requested =
      json::String(annotations, kAnnotationCancelRequested) == kCancelRequestedValue;
  projection.deadline_exceeded =
      ParseDeadlineName(json::String(annotations, kAnnotationDeadlineExceeded).value_or(""));
  // Written escaped by the service; capped here too, as anyone may edit an annotation.
  projection.cancel_reason = std::string(json::String(annotations, kAnnotationCancelReason)
                                             .value_or("")
                                             .substr(0, 8 * kMaxCancelReasonBytes));
  projection.template_hash = std::string(json::String(annotations, kAnnotationTemplateHash)
                                             .value_or("")
                                             .substr(0, kMaxTemplateHashBytes));
  // Anyone may edit an annotation: capped as the service writes it.
  static_assert(kMaxLastWordsBytes == kMaxMessageBytes);
  projection.last_words = CapMessage(json::String(annotations, kAnnotationLastWords).value_or(""));
  projection.stop_kept_done = json::String(annotations, kAnnotationStopKeptDone) == "true";
  projection.stop_kept_at =
      std::string(json::String(annotations, kAnnotationStopKeptAt).value_or("").substr(0, 64));
  const rapidjson::Value* status = json::Member(app, "status");
  projection.has_status =
      status != nullptr && !status->IsNull() && !(status->IsObject() && status->MemberCount() == 0);
  return projection;
}

absl::StatusOr<AppProjection> ProjectJsonWith(
    std::string_view json_text,
    absl::FunctionRef<absl::StatusOr<AppProjection>(const rapidjson::Value&)> project) {
  rapidjson::Document document;
  document.Parse(json_text.data(), json_text.size());
  if (document.HasParseError()) {
    return absl::InvalidArgumentError("A SparkApplication that isn't valid JSON");
  }
  return project(document);
}

}  // namespace kje::spark
