#include "spark/backend.h"

namespace kje::spark {

absl::StatusOr<AppProjection> OperatorBackend::ProjectJson(std::string_view json) const {
  return ProjectJsonWith(json, [this](const rapidjson::Value& app) { return Project(app); });
}

}  // namespace kje::spark
