#pragma once

// Submit's dry run (SubmitRequest.dry_run): what is shown of the application it answers.

#include <string>
#include <string_view>

#include "base/mask.h"

namespace kje::executor {

// An object's JSON as a dry run shows it: every scalar of a member whose name is sensitive
// masked (a Spark conf's password), every list of strings masked as job arguments are
// (`--password x`), every other string as free text (MaskText). The object's secrets never
// leave the service, however the operator lays out its conf and arguments. Not JSON: "".
std::string MaskedObjectJson(std::string_view json, const SensitiveWords& words);

}  // namespace kje::executor
