#pragma once

// `forward`: the driver's Spark UI of a running job on a local port, as sparkctl's forward did,
// tunnelled through the service (ProxyUi), so the user needs no kubeconfig and no route to the
// cluster. Internal to cli/.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cli/command.h"

namespace kje::cli {

// The command, for cli.cc's table.
Command ForwardCommand();

// The UI path a browser's request target names: an origin-form target ("/jobs/?id=1") as it
// is; INVALID_ARGUMENT for anything else (an absolute URL, "*", a target with spaces or
// control bytes, more than 8 KiB).
absl::StatusOr<std::string> UiPathOf(std::string_view target);

}  // namespace kje::cli
