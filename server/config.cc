#include "server/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/quote.h"
#include "base/status_macros.h"
#include "base/strings.h"
#include "base/suggest.h"
#include "server/config_keys.h"

namespace kje::server {
namespace {

using config_internal::Build;
using config_internal::ConfigKey;
using config_internal::ConfigSection;
using config_internal::ConfigSections;
using config_internal::KeyError;
using config_internal::Raw;
using config_internal::RawMap;

constexpr char kEnvPrefix[] = "K8S_JOB_EXECUTOR_";
constexpr char kSparkConfPrefix[] = "spark.conf.";
constexpr char kLinksPrefix[] = "links.";

std::string Trim(const std::string& s) { return std::string(absl::StripAsciiWhitespace(s)); }

// The variables of the known keys, in the keys' order.
const std::vector<std::string>& KnownEnvNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> out;
    for (const std::string& key : KnownConfigKeys()) out.push_back(EnvNameForKey(key));
    return out;
  }();
  return kNames;
}

bool IsKnownKey(const std::string& key) {
  const std::vector<std::string>& known = KnownConfigKeys();
  return std::find(known.begin(), known.end(), key) != known.end();
}

absl::Status Put(RawMap& raw, const std::string& key, std::string value, const std::string& origin,
                 bool allow_override) {
  if (!IsKnownKey(key) && !absl::StartsWith(key, kSparkConfPrefix) &&
      !absl::StartsWith(key, kLinksPrefix)) {
    return KeyError(key, absl::StrCat("unknown configuration key (from ", origin, ")",
                                      DidYouMean(key, KnownConfigKeys())));
  }
  auto it = raw.find(key);
  if (it != raw.end() && !allow_override) {
    return KeyError(key, absl::StrCat("set twice in ", origin));
  }
  raw[key] = Raw{std::move(value), origin};
  return absl::OkStatus();
}

// Flattens nested maps into dotted keys: {spark: {image: x}} and {"spark.image": x} mean the same.
absl::Status Flatten(const YAML::Node& node, const std::string& prefix, const std::string& origin,
                     RawMap& raw) {
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) {
      return KeyError(prefix.empty() ? "<root>" : prefix, "map keys must be strings");
    }
    std::string key = entry.first.as<std::string>();
    std::string full = prefix.empty() ? key : absl::StrCat(prefix, ".", key);
    const YAML::Node& value = entry.second;
    if (value.IsMap()) {
      RETURN_IF_ERROR(Flatten(value, full, origin, raw));
    } else if (value.IsSequence()) {
      if (full != "server.allowedNamespaces" && full != "server.sensitiveKeys") {
        return KeyError(full, "must be a single value, not a list");
      }
      std::vector<std::string> items;
      for (const auto& item : value) {
        if (!item.IsScalar()) return KeyError(full, "must be a list of names");
        items.push_back(item.as<std::string>());
      }
      RETURN_IF_ERROR(Put(raw, full, absl::StrJoin(items, ","), origin, false));
    } else if (value.IsNull()) {
      RETURN_IF_ERROR(Put(raw, full, "", origin, false));
    } else {
      RETURN_IF_ERROR(Put(raw, full, value.as<std::string>(), origin, false));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseYaml(const std::string& text, const std::string& origin, RawMap& raw) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(origin, ": not valid YAML: ", EscapeBounded(e.what())));
  }
  if (root.IsNull()) return absl::OkStatus();
  if (!root.IsMap()) {
    return absl::InvalidArgumentError(
        absl::StrCat(origin, ": must be a YAML map of configuration keys"));
  }
  try {
    return Flatten(root, "", origin, raw);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(origin, ": ", EscapeBounded(e.what())));
  }
}

// A K8S_JOB_EXECUTOR_* variable someone else sets: the links Kubernetes gives the pods of a
// namespace with a Service named k8s-job-executor (_SERVICE_HOST, _SERVICE_PORT[_<name>], _PORT,
// _PORT_<port>_<proto>[_PROTO|_PORT|_ADDR]), and the CLI's server address.
bool IsForeignEnvName(std::string_view name) {
  std::string_view rest = name.substr(sizeof(kEnvPrefix) - 1);
  if (rest == "SERVER" || rest == "SERVICE_HOST" || rest == "SERVICE_PORT" || rest == "PORT" ||
      absl::StartsWith(ToAbsl(rest), "SERVICE_PORT_")) {
    return true;
  }
  std::vector<absl::string_view> parts = absl::StrSplit(ToAbsl(rest), '_');
  if (parts.size() < 3 || parts.size() > 4 || parts[0] != "PORT" || parts[1].empty() ||
      !std::all_of(parts[1].begin(), parts[1].end(), absl::ascii_isdigit)) {
    return false;
  }
  if (parts[2] != "TCP" && parts[2] != "UDP" && parts[2] != "SCTP") return false;
  return parts.size() == 3 || parts[3] == "PROTO" || parts[3] == "PORT" || parts[3] == "ADDR";
}

absl::StatusOr<Config> Load(const std::optional<std::string>& yaml_text,
                            const std::string& yaml_origin, const ConfigSources& sources) {
  RawMap raw;
  if (yaml_text) RETURN_IF_ERROR(ParseYaml(*yaml_text, yaml_origin, raw));

  // Environment: the known keys have variables; any other K8S_JOB_EXECUTOR_* name is a typo
  // unless Kubernetes (a Service's links) or the CLI (its server address) set it.
  const std::vector<std::string>& keys = KnownConfigKeys();
  const std::vector<std::string>& env_names = KnownEnvNames();
  for (size_t i = 0; i < keys.size(); ++i) {
    auto it = sources.env.find(env_names[i]);
    if (it != sources.env.end()) {
      RETURN_IF_ERROR(Put(raw, keys[i], it->second, absl::StrCat("environment ", it->first), true));
    }
  }
  for (const auto& [name, value] : sources.env) {
    if (!absl::StartsWith(name, kEnvPrefix) || IsForeignEnvName(name)) continue;
    if (std::find(env_names.begin(), env_names.end(), name) != env_names.end()) continue;
    // The value is never quoted: it may be a secret.
    return KeyError(QuoteBounded(name), absl::StrCat("unknown configuration variable (from the "
                                                     "environment)",
                                                     DidYouMean(name, env_names)));
  }
  for (const auto& [key, value] : sources.flags) {
    RETURN_IF_ERROR(Put(raw, Trim(key), value, "command line", true));
  }
  return Build(raw);
}

}  // namespace

const std::vector<std::string>& KnownConfigKeys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> names;
    for (const ConfigSection& section : ConfigSections()) {
      for (const ConfigKey& key : section.keys) names.push_back(key.name);
    }
    return names;
  }();
  return kKeys;
}

std::string EnvNameForKey(const std::string& key) {
  std::string out = kEnvPrefix;
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    if (c == '.') {
      out.push_back('_');
    } else if (std::isupper(static_cast<unsigned char>(c))) {
      if (i > 0 && key[i - 1] != '.') out.push_back('_');
      out.push_back(c);
    } else {
      out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    }
  }
  return out;
}

absl::StatusOr<Config> LoadConfigFromYaml(const std::string& yaml, const ConfigSources& rest) {
  return Load(yaml, "config", rest);
}

absl::StatusOr<Config> LoadConfig(const ConfigSources& sources) {
  if (!sources.yaml_path) return Load(std::nullopt, "", sources);
  std::ifstream f(*sources.yaml_path);
  if (!f) {
    return absl::InvalidArgumentError(
        absl::StrCat("--config: can't read the file ", *sources.yaml_path));
  }
  std::stringstream buf;
  buf << f.rdbuf();
  return Load(buf.str(), *sources.yaml_path, sources);
}

}  // namespace kje::server
