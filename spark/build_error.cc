#include "spark/build_error.h"

#include <string>

#include "absl/strings/cord.h"

namespace kje::spark {
namespace {

constexpr char kPayloadUrl[] = "type.kje/spark.BuildInput";

}  // namespace

absl::Status TagBuildError(BuildInput input, absl::Status status) {
  if (status.ok()) return status;
  status.SetPayload(kPayloadUrl, absl::Cord(std::string(1, static_cast<char>(input))));
  return status;
}

BuildInput BuildInputOf(const absl::Status& status) {
  const auto payload = status.GetPayload(kPayloadUrl);
  if (!payload || payload->size() != 1) return BuildInput::kTemplate;
  const auto value = static_cast<uint8_t>(std::string(*payload)[0]);
  if (value > static_cast<uint8_t>(BuildInput::kServerConfig)) return BuildInput::kTemplate;
  return static_cast<BuildInput>(value);
}

}  // namespace kje::spark
