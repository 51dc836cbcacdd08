#pragma once

// The configuration's one key table (config.cc's own; not for other code): every key with the
// reader that parses its value into Config and the validator that judges the result, in
// sections. The known keys, their environment variables, the "did you mean" suggestions and
// Build all come from it.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/config.h"

namespace kje::server::config_internal {

// A raw value and where it came from, for error messages.
struct Raw {
  std::string value;
  std::string origin;
};
using RawMap = std::map<std::string, Raw>;

struct ConfigKey {
  std::string name;
  // Parses a set, non-blank value (trimmed) into the key's field; the error names the key and the
  // rule.
  std::function<absl::Status(const std::string& value, Config& config)> read;
  // Judges the key's field once read, set or left at its default, against the keys before it.
  // Empty: any value that reads is good.
  std::function<absl::Status(const Config& config)> validate;
};

// Keys judged together: each key is read and validated in order, then `check` (when given)
// judges what they say together.
struct ConfigSection {
  std::vector<ConfigKey> keys;
  std::function<absl::Status(const RawMap& raw, Config& config)> check;
};

// In documentation order, which is also the order Build reads and judges them.
const std::vector<ConfigSection>& ConfigSections();

// The typed, validated configuration from the merged raw values; blank means the default.
absl::StatusOr<Config> Build(const RawMap& raw);

absl::Status KeyError(const std::string& key, const std::string& rule);

}  // namespace kje::server::config_internal
