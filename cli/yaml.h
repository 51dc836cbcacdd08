#pragma once

// JSON as YAML (-o yaml, submit --dry-run): block style, in the JSON's order, every string that
// YAML would read as something else (a number, a boolean, null, a date) quoted, so that the YAML
// reads back as the same JSON. yaml-cpp's emitter quotes indicators and multi-line text itself.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kje::cli {

// INVALID_ARGUMENT when `json` isn't JSON.
absl::StatusOr<std::string> JsonToYaml(std::string_view json);

}  // namespace kje::cli
