#pragma once

// JSON as YAML, the way `kubectl get -o yaml` prints an object: block style, keys sorted,
// sequences under a key not indented, and every string that YAML would read as something else
// (a number, a boolean, null, an indicator, a multi-line text) quoted, so that the YAML reads
// back as the same JSON.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kje::cli {

// INVALID_ARGUMENT when `json` isn't JSON.
absl::StatusOr<std::string> JsonToYaml(std::string_view json);

}  // namespace kje::cli
